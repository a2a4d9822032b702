#!/bin/bash
# call 4 (session 18, nvidia-h200-x2: 2 GPUs, all CPUs): one GPU against
# --gpus 0,1 and mpirun -np 2 (a rank now records the GPU's wait between
# requests as worker idle, so it gets fill), for fp32 GEMM 4096^3, softmax
# fp32 4096^2 and bf16 GEMM 8192^3, 35 s each, one run at a time; seed 11,
# a fresh compile cache per run, replay of each.
set -u
R=$PWD; W=/tmp/w2; D=/tmp/d2; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/build/bundle
( sleep ${GUARD:-540}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
H=$R/build/bundle
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; lscpu | grep -E 'Model name|Thread|Socket'; $H/kevo --version; } > $W/env.txt 2>&1
. $R/bench/results/2026-11-28-h200-s18/lib.sh
G="gemm fp32 4096x4096x4096"; S="softmax fp32 4096x4096"; BF="gemm bf16 8192x8192x8192"
for c in G S BF; do
  one A 1g $H ${!c} 35s --gpus 0; waitruns
  one A 2g $H ${!c} 35s --gpus 0,1; waitruns
  one A mpi2 $H ${!c} 35s; waitruns
done
summary
kill $guard 2>/dev/null; tar czf $OUT/call4.tgz -C $W . ; ls -la $OUT
