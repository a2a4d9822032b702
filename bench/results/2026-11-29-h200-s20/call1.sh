#!/bin/bash
# session 20, call 1 (nvidia-h200, 1 GPU, 16 cores): this tree ("head":
# the worker's job time and the round trip recorded per result) and
# 1281cf3 ("base", its bundle, --compilers 16), one after the other, on
# softmax fp32 4096^2, T s each (default 140), seed 11, fresh caches;
# replay of each; phases.py on the head's journal.
set -u
R=$PWD; W=/tmp/w1; D=/tmp/d1; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/.dev-s20/bundle
( sleep ${GUARD:-560}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
mkdir -p /tmp/base && tar xJf $R/.dev-s17/base-bundle.tar.xz -C /tmp/base
H=$R/.dev-s20/bundle; B=/tmp/base/bundle
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; $B/kevo --version; } > $W/env.txt 2>&1
. $R/bench/results/2026-11-28-h200-s18/lib.sh
T=${TTB:-140}s
one A head $H softmax fp32 4096x4096 $T; waitruns
python3 $R/bench/results/2026-11-29-h200-s20/phases.py $W/softmax-fp32-head.journal.jsonl.gz > $W/softmax-fp32-head.phases 2>&1
one A base $B softmax fp32 4096x4096 $T --compilers $PER; waitruns
summary
python3 $R/scripts/time-to-best.py $W/softmax-fp32-head.journal.jsonl.gz $W/softmax-fp32-base.journal.jsonl.gz > $W/time-to-best.txt 2>&1
kill $guard 2>/dev/null; tar czf $OUT/call1.tgz -C $W . ; ls -la $OUT
