#!/bin/bash
# call 5 (session 18, nvidia-h200-x4: 4 GPUs, all CPUs), in the device time
# left: one GPU against --gpus 0,1,2,3 for bf16 GEMM 8192^3 and fp32 GEMM
# 4096^3, 35 s each, one run at a time; seed 11, a fresh compile cache per
# run, replay of each.
set -u
R=$PWD; W=/tmp/w5; D=/tmp/d5; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/build/bundle
( sleep ${GUARD:-225}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
H=$R/build/bundle
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; lscpu | grep -E 'Model name|Thread|Socket'; $H/kevo --version; } > $W/env.txt 2>&1
. $R/bench/results/2026-11-28-h200-s18/lib.sh
G="gemm fp32 4096x4096x4096"; BF="gemm bf16 8192x8192x8192"
for c in BF G; do
  one A 1g $H ${!c} 35s --gpus 0; waitruns
  one A 4g $H ${!c} 35s --gpus 0,1,2,3; waitruns
done
summary
kill $guard 2>/dev/null; tar czf $OUT/call5.tgz -C $W . ; ls -la $OUT
