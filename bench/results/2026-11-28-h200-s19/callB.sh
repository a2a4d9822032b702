#!/bin/bash
# session 19, call B (nvidia-h200, 1 GPU, 16 cores):
#  A. probe: CUPTI collect time over 6000 jobs with module load/unload
#     churn (mode bit 0) and activity disable/enable around checks (bit 1);
#  B. 1281cf3 ("base", its bundle, --compilers 16) on softmax fp32 4096^2,
#     270 s, seed 11 (call A ran head the same way).
set -u
R=$PWD; W=/tmp/w1; D=/tmp/d1; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/build/bundle
( sleep ${GUARD:-560}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
mkdir -p /tmp/base && tar xJf $R/.dev-s17/base-bundle.tar.xz -C /tmp/base
H=$R/build/bundle; B=/tmp/base/bundle
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $B/kevo --version; } > $W/env.txt 2>&1
for m in 3 1 2 0; do LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64 timeout 100 $R/.dev-s19/cb/cb $m 6000; done > $W/probe.txt 2>&1
. $R/bench/results/2026-11-28-h200-s18/lib.sh
one A base $B softmax fp32 4096x4096 ${TTB:-270}s --compilers $PER; waitruns
summary
kill $guard 2>/dev/null; tar czf $OUT/callB.tgz -C $W . ; ls -la $OUT
