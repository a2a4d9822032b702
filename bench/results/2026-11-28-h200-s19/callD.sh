#!/bin/bash
# session 19, call D (nvidia-h200, 1 GPU, 16 cores): this tree ("head":
# the profiler torn down after each profile, OCC, launch-only params at
# their defaults in the initial design) and 1281cf3 ("base", its bundle,
# --compilers 16), one after the other in the same call, on softmax fp32
# 4096^2, T s each (default 140), seed 11, fresh caches; replay of each.
set -u
R=$PWD; W=/tmp/w1; D=/tmp/d1; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/.dev-s19/bundle
( sleep ${GUARD:-350}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
mkdir -p /tmp/base && tar xJf $R/.dev-s17/base-bundle.tar.xz -C /tmp/base
H=$R/.dev-s19/bundle; B=/tmp/base/bundle
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; $B/kevo --version; } > $W/env.txt 2>&1
. $R/bench/results/2026-11-28-h200-s18/lib.sh
T=${TTB:-140}s
one A head $H softmax fp32 4096x4096 $T; waitruns
one A base $B softmax fp32 4096x4096 $T --compilers $PER; waitruns
summary
kill $guard 2>/dev/null; tar czf $OUT/callD.tgz -C $W . ; ls -la $OUT
