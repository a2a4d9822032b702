#!/bin/bash
# call 3 (session 17, nvidia-h200-x4): issue 32's time-to-best target.
# 1281cf3 ("tbase", its bundle and templates) and this commit ("thead")
# on fp32 GEMM 4096^3 and softmax fp32 4096^2, TTB seconds each (480), all
# four at once, each with a GPU and 16 CPUs of its own, seed 11, a fresh
# compile cache; scripts/time-to-best.py reads the journals.
set -u
R=$PWD; W=/tmp/w3; D=/tmp/d3; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/build/bundle
( sleep ${GUARD:-580}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
mkdir -p /tmp/base && tar xJf $R/.dev-s17/base-bundle.tar.xz -C /tmp/base
H=$R/build/bundle; B=/tmp/base/bundle
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; $B/kevo --version; } > $W/env.txt 2>&1
. $R/bench/results/2026-11-28-h200-s17/lib.sh
T=${TTB:-480}s
one 0 tbase $B gemm fp32 4096x4096x4096 $T; one 1 thead $H gemm fp32 4096x4096x4096 $T
one 2 tbase $B softmax fp32 4096x4096 $T; one 3 thead $H softmax fp32 4096x4096 $T; wait
for f in $W/*.status; do echo "== $(basename $f .status): $(grep -E 'evaluations:|throughput:|fill:|gpu:|best:' $f | tr -s ' ' | tr '\n' ' ')"; cat ${f%.status}.replay; done > $W/summary.txt
kill $guard 2>/dev/null; tar czf $OUT/call3.tgz -C $W . ; ls -la $OUT
