#!/bin/bash
# call 2 (session 15, nvidia-h200-x2): issue 32's throughput on one GPU with
# 16 CPUs (GPU 0, CPUs 0-15: HEAD, HEAD --pipeline 0 and the 1281cf3 base,
# fresh caches, same seed) while GPU 1 (CPUs 16-31) runs issue 31's long
# LLM run for profiling's share of a run and its rewrite prompts.
set -u
R=$PWD; W=/tmp/w2; mkdir -p $W
export LD_LIBRARY_PATH=$R/build/bundle
( sleep ${GUARD:-575}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; } > $W/env.txt 2>&1
( GPU=1 CPUS=16-31 T=${TL:-9m} W=$W/long bash $R/.dev-s15/longrun.sh > $W/longrun.out 2>&1 ) & pl=$!
( CUDA_VISIBLE_DEVICES=0 OUT=$W KEVO=$R/build/bundle/kevo KEVO_BASE=$R/.dev-s15/base/kevo T=${T:-35s} \
  CASES="${CASES:-gemm fp32 4096x4096x4096;softmax fp32 4096x4096;gemm bf16 8192x8192x8192}" \
  timeout 560 taskset -c 0-15 bash $R/scripts/gpu-speed.sh > $W/speed.out 2>&1 ) & ps=$!
wait $ps $pl
kill $guard 2>/dev/null; tar czf $OUT/call2.tgz -C $W . ; ls -la $OUT
