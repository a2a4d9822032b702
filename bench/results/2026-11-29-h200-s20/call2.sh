#!/bin/bash
# session 20, call 2 (nvidia-h200, 1 GPU, 16 cores): softmax fp32 4096^2,
# T s each (default 100), seed 11, fresh caches, one after the other:
# X = the transport times recorded (compilers at nice 10, as before),
# Y = X + compilers under SCHED_IDLE; replay of each; phases.py on both.
set -u
R=$PWD; W=/tmp/w2; D=/tmp/d2; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/.dev-s20/bundleX
( sleep ${GUARD:-570}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
X=$R/.dev-s20/bundleX; Y=/tmp/bundleY
# Y differs from X only in kevo (carried alone)
rm -rf $Y; cp -r $X $Y; cp $R/.dev-s20/y/kevo $Y/kevo
{ date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $X/kevo --version; $Y/kevo --version; } > $W/env.txt 2>&1
. $R/bench/results/2026-11-28-h200-s18/lib.sh
T=${TTB:-100}s
H=$X; one A nice10 $X softmax fp32 4096x4096 $T; waitruns
H=$Y; one A idle $Y softmax fp32 4096x4096 $T; waitruns
for f in $W/*.journal.jsonl.gz; do python3 $R/bench/results/2026-11-29-h200-s20/phases.py $f > ${f%.journal.jsonl.gz}.phases 2>&1; done
summary
kill $guard 2>/dev/null; tar czf $OUT/call2.tgz -C $W . ; ls -la $OUT
