#!/bin/bash
# call 2 (session 17, nvidia-h200-x4: 4 GPUs, 64 CPUs): issue 32's 4-GPU
# target. One GPU and --gpus 0,1,2,3 on the whole host, bf16 GEMM 8192^3,
# fp32 GEMM 4096^3 and softmax fp32 4096^2, 35 s, seed 11, a fresh compile
# cache each run; replay of each.
set -u
R=$PWD; W=/tmp/w2; D=/tmp/d2; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/build/bundle
( sleep ${GUARD:-575}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
H=$R/build/bundle
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; } > $W/env.txt 2>&1
. $R/bench/results/2026-11-28-h200-s17/lib.sh
for c in "gemm bf16 8192x8192x8192" "gemm fp32 4096x4096x4096" "softmax fp32 4096x4096"; do
  one all 1g64 $H $c 35s --gpus 0; wait
  one all 4g $H $c 35s --gpus 0,1,2,3; wait
done
for f in $W/*.status; do echo "== $(basename $f .status): $(grep -E 'evaluations:|throughput:|fill:|gpu:|best:' $f | tr -s ' ' | tr '\n' ' ')"; cat ${f%.status}.replay; done > $W/summary.txt
kill $guard 2>/dev/null; tar czf $OUT/call2.tgz -C $W . ; ls -la $OUT
