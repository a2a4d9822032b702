#!/bin/bash
# call 1 (session 17, nvidia-h200-x4: 4 GPUs, 64 CPUs): issue 32 on one
# GPU with 16 CPUs. Every run has a GPU and 16 CPUs of its own (taskset,
# CUDA_VISIBLE_DEVICES), four at a time, a fresh compile cache each, seed
# 11; "base" is 1281cf3 (the baseline, its bundle with its own
# templates from .dev-s17/base-bundle.tar.xz), "head" this commit (the
# fill on, its default), "f0" this commit with --fill 0, "p1" with
# --pipeline 1.
#  A. 35 s runs, fp32 GEMM 4096^3 and softmax fp32 4096^2, in two rounds:
#     gemm base/head/f0 + softmax base, then softmax head/f0 + both p1;
#  B. tests/gpu/softmax_wave.sh (the softmax templates' launch-only WAVE);
#  C. two GPUs against one on a 32-CPU half of the host (as the issue's
#     2 x H200 host with 32 CPUs): half A = GPUs 0,1 + CPUs 0-31, half B =
#     GPUs 2,3 + CPUs 32-63, one run per half at a time: 1 GPU, --gpus 0,1
#     and mpirun -np 2 for bf16 GEMM 8192^3, fp32 GEMM 4096^3 and softmax
#     fp32 4096^2 (35 s each).
set -u
R=$PWD; W=/tmp/w1; D=/tmp/d1; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/build/bundle
( sleep ${GUARD:-575}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
mkdir -p /tmp/base && tar xJf $R/.dev-s17/base-bundle.tar.xz -C /tmp/base
H=$R/build/bundle; B=/tmp/base/bundle
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $R/build/bundle/kevo --version; /tmp/base/bundle/kevo --version; } > $W/env.txt 2>&1
. $R/bench/results/2026-11-28-h200-s17/lib.sh
G="gemm fp32 4096x4096x4096"; S="softmax fp32 4096x4096"; BF="gemm bf16 8192x8192x8192"
# A
one 0 base $B $G 35s; one 1 head $H $G 35s; one 2 f0 $H $G 35s --fill 0; one 3 base $B $S 35s; wait
one 0 head $H $S 35s; one 1 f0 $H $S 35s --fill 0; one 2 p1 $H $G 35s --pipeline 1; one 3 p1 $H $S 35s --pipeline 1; wait
# B
( cd $R; CUDA_VISIBLE_DEVICES=0 KEVO=$H/kevo OUT=$W/B sh tests/gpu/softmax_wave.sh > $W/B-wave.log 2>&1; echo "exit $?" >> $W/B-wave.log )
# C
one A 1g $H $BF 35s --gpus 0; one B 2g $H $BF 35s --gpus 0,1; wait
one A mpi2 $H $BF 35s; one B 1g $H $G 35s --gpus 0; wait
one A 2g $H $G 35s --gpus 0,1; one B mpi2 $H $G 35s; wait
one A 1g $H $S 35s --gpus 0; one B 2g $H $S 35s --gpus 0,1; wait
one A mpi2 $H $S 35s; wait
for f in $W/*.status; do echo "== $(basename $f .status): $(grep -E 'evaluations:|throughput:|fill:|gpu:|best:' $f | tr -s ' ' | tr '\n' ' ')"; cat ${f%.status}.replay; done > $W/summary.txt
kill $guard 2>/dev/null; tar czf $OUT/call1.tgz -C $W . ; ls -la $OUT
