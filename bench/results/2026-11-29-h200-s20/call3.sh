#!/bin/bash
# session 20, call 3 (nvidia-h200, 1 GPU, 16 cores): this tree ("head":
# compilers under SCHED_IDLE, launch-only neighbours one source, the
# pool's rule scan once per source, the faster forest fit) on softmax fp32
# 4096^2, then head and 1281cf3 ("base", its bundle, --compilers 16) on
# fp32 GEMM 4096^3; T s each (default 100), seed 11, fresh caches,
# one after the other; replay of each; phases.py on the head's journals.
set -u
R=$PWD; W=/tmp/w3; D=/tmp/d3; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/.dev-s20/bundle
( sleep ${GUARD:-500}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
mkdir -p /tmp/base && tar xJf $R/.dev-s17/base-bundle.tar.xz -C /tmp/base
H=$R/.dev-s20/bundle; B=/tmp/base/bundle
{ date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; $B/kevo --version; } > $W/env.txt 2>&1
. $R/bench/results/2026-11-28-h200-s18/lib.sh
T=${TTB:-100}s
one A head $H softmax fp32 4096x4096 $T; waitruns
one A head $H gemm fp32 4096x4096x4096 $T; waitruns
one A base $B gemm fp32 4096x4096x4096 $T --compilers $PER; waitruns
for f in $W/*-head.journal.jsonl.gz; do python3 $R/bench/results/2026-11-29-h200-s20/phases.py $f > ${f%.journal.jsonl.gz}.phases 2>&1; done
summary
python3 $R/scripts/time-to-best.py $W/gemm-fp32-head.journal.jsonl.gz $W/gemm-fp32-base.journal.jsonl.gz > $W/time-to-best.txt 2>&1
kill $guard 2>/dev/null; tar czf $OUT/call3.tgz -C $W . ; ls -la $OUT
