#!/bin/bash
# call 2 (session 17, nvidia-h200-x4: 4 GPUs, 64 cores, no SMT): what is
# left of call 1 (which waited for its own guard after its first round),
# in the device time left.
#  A. two GPUs against one on a 32-CPU half of the host (as the issue's
#     2 x H200 host with 32 CPUs): half A = GPUs 0,1 + CPUs 0-31, half B =
#     GPUs 2,3 + CPUs 32-63, one run per half at a time: 1 GPU, --gpus 0,1
#     and mpirun -np 2 for bf16 GEMM 8192^3, fp32 GEMM 4096^3 and softmax
#     fp32 4096^2 (35 s each);
#  B. 1281cf3 ("base", its bundle and templates, --compilers 16: it would
#     count the host's 64 CPUs) against this commit ("head", the fill on)
#     on fp32 GEMM 4096^3 and softmax fp32 4096^2, each run with a GPU and
#     16 CPUs of its own, all four at once, TTB seconds (270): evaluations
#     per minute and time to best (scripts/time-to-best.py).
# Seed 11, a fresh compile cache per run; replay of each.
set -u
R=$PWD; W=/tmp/w2; D=/tmp/d2; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/build/bundle
( sleep ${GUARD:-560}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
mkdir -p /tmp/base && tar xJf $R/.dev-s17/base-bundle.tar.xz -C /tmp/base
H=$R/build/bundle; B=/tmp/base/bundle
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; $B/kevo --version; } > $W/env.txt 2>&1
. $R/bench/results/2026-11-28-h200-s17/lib.sh
G="gemm fp32 4096x4096x4096"; S="softmax fp32 4096x4096"; BF="gemm bf16 8192x8192x8192"
# A
one A 1g $H $BF 35s --gpus 0; one B 2g $H $BF 35s --gpus 0,1; waitruns
one A mpi2 $H $BF 35s; one B 1g $H $G 35s --gpus 0; waitruns
one A 2g $H $G 35s --gpus 0,1; one B mpi2 $H $G 35s; waitruns
one A 1g $H $S 35s --gpus 0; one B 2g $H $S 35s --gpus 0,1; waitruns
one A mpi2 $H $S 35s; waitruns
date -u >> $W/env.txt
# B
T=${TTB:-270}s
one 0 base $B $G $T --compilers 16; one 1 head $H $G $T
one 2 base $B $S $T --compilers 16; one 3 head $H $S $T; waitruns
for f in $W/*.status; do echo "== $(basename $f .status): $(grep -E 'evaluations:|throughput:|fill:|gpu:|best:' $f | tr -s ' ' | tr '\n' ' ')"; cat ${f%.status}.replay; done > $W/summary.txt
kill $guard 2>/dev/null; tar czf $OUT/call2.tgz -C $W . ; ls -la $OUT
