#!/bin/sh
# The H100 session of issue 15's core (user-defined problems), run from the
# repository root with the bundle in build/up-bundle: tests/gpu/userprob.sh
# (the scale example: its template and tests/*.cu at three shapes, the four
# reference rules), then a short `kevo run` of the scale problem with its
# copy baseline, its status, verify and replay. Logs under $OUT.
export KEVO_CACHE_DIR=/tmp/kc
B=$PWD/build/up-bundle/kevo
mkdir -p "$OUT/gpu"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/gpu.txt" 2>&1
KEVO=$B OUT=$OUT/gpu timeout 120 sh tests/gpu/userprob.sh >"$OUT/userprob-gpu.log" 2>&1
echo "userprob.sh rc=$?" >>"$OUT/userprob-gpu.log"
$B run --problem-file examples/problems/scale/scale.problem --dtype bf16 --shape 8192x8192 \
    --time 25s --seed 1 --runs-dir /tmp/r --name scale-bf16 >"$OUT/run.log" 2>&1
echo "run rc=$?" >>"$OUT/run.log"
$B status /tmp/r/scale-bf16 >>"$OUT/run.log" 2>&1
timeout 40 $B verify /tmp/r/scale-bf16 --top 1 >>"$OUT/run.log" 2>&1
echo "verify rc=$?" >>"$OUT/run.log"
$B replay /tmp/r/scale-bf16 >>"$OUT/run.log" 2>&1
cp /tmp/r/scale-bf16/manifest.json /tmp/r/scale-bf16/best.json "$OUT/" 2>/dev/null
tar czf "$OUT/gpu-logs.tgz" -C "$OUT" gpu && rm -rf "$OUT/gpu"
