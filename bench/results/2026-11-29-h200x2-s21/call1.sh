#!/bin/bash
# session 21, call 1 (nvidia-h200-x2: 2 GPUs, 32 cores, at 85b3495): one
# GPU against --gpus 0,1 and mpirun -np 2 on fp32 GEMM 4096^3, softmax
# fp32 4096^2 and bf16 GEMM 8192^3, 35 s each, one run at a time on the
# whole host; seed 11, a fresh compile cache per run, replay of each;
# phases.py on every journal.
set -u
R=$PWD; W=/tmp/w1; D=/tmp/d1; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/.dev-s21/bundle
( sleep ${GUARD:-540}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
H=$R/.dev-s21/bundle
{ date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; } > $W/env.txt 2>&1
. $R/bench/results/2026-11-28-h200-s18/lib.sh
T=${T:-35}s
G="gemm fp32 4096x4096x4096"; S="softmax fp32 4096x4096"; BF="gemm bf16 8192x8192x8192"
for c in G S BF; do
  one A 1g $H ${!c} $T --gpus 0; waitruns
  one A 2g $H ${!c} $T --gpus 0,1; waitruns
  one A mpi2 $H ${!c} $T; waitruns
done
for f in $W/*.journal.jsonl.gz; do python3 $R/bench/results/2026-11-29-h200-s20/phases.py $f > ${f%.journal.jsonl.gz}.phases 2>&1; done
summary
kill $guard 2>/dev/null; tar czf $OUT/call1.tgz -C $W . ; ls -la $OUT
