#!/bin/bash
# session 19, call C (nvidia-h200, 1 GPU, 16 cores):
#  A. probe: CUPTI collect time over 6000 module-churn jobs after
#     cuptiProfilerInitialize (mode 9), after Initialize + DeInitialize
#     (mode 25), and with neither (mode 3: call B);
#  B. this tree (the profiler torn down after each profile, OCC) on
#     softmax fp32 4096^2, 270 s, seed 11, as calls A and B.
set -u
R=$PWD; W=/tmp/w1; D=/tmp/d1; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/build/bundle
( sleep ${GUARD:-560}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
H=$R/build/bundle
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; } > $W/env.txt 2>&1
for m in 9 25 3; do LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64 timeout 60 $R/.dev-s19/cb/cb $m 6000; done > $W/probe.txt 2>&1
. $R/bench/results/2026-11-28-h200-s18/lib.sh
one A head $H softmax fp32 4096x4096 ${TTB:-270}s; waitruns
summary
kill $guard 2>/dev/null; tar czf $OUT/callC.tgz -C $W . ; ls -la $OUT
