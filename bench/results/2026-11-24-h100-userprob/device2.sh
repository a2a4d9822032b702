#!/bin/sh
# Second H100 call: tests/gpu/userprob.sh again (now with the in-place axpy
# problem of tests/gpu/userprob/ and the fixed fault message), then a short
# `kevo run` of axpy bf16 (role inout) with status, verify and replay.
export KEVO_CACHE_DIR=/tmp/kc
B=$PWD/build/up-bundle/kevo
mkdir -p "$OUT/gpu2"
KEVO=$B OUT=$OUT/gpu2 timeout 120 sh tests/gpu/userprob.sh >"$OUT/userprob-gpu2.log" 2>&1
echo "userprob.sh rc=$?" >>"$OUT/userprob-gpu2.log"
$B run --problem-file tests/gpu/userprob/axpy/axpy.problem --dtype bf16 --shape 67108864 \
    --time 20s --seed 1 --runs-dir /tmp/r --name axpy-bf16 >"$OUT/run2.log" 2>&1
echo "run rc=$?" >>"$OUT/run2.log"
$B status /tmp/r/axpy-bf16 >>"$OUT/run2.log" 2>&1
timeout 40 $B verify /tmp/r/axpy-bf16 --top 1 >>"$OUT/run2.log" 2>&1
echo "verify rc=$?" >>"$OUT/run2.log"
$B replay /tmp/r/axpy-bf16 >>"$OUT/run2.log" 2>&1
tar czf "$OUT/gpu2-logs.tgz" -C "$OUT" gpu2 && rm -rf "$OUT/gpu2"
