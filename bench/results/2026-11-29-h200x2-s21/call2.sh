#!/bin/bash
# session 21, call 2 (nvidia-h200-x2, 32 cores): the fan-out's ready
# candidates several at a time and its wait for a compile (94838ce, "head")
# against 85b3495 ("base", a lone kevo binary next to the bundle) on two
# GPUs, and head on one GPU, for softmax fp32 4096^2 and fp32 GEMM 4096^3;
# head on 1 and 2 GPUs for bf16 GEMM 8192^3. 35 s each, one run at a time
# on the whole host; seed 11, a fresh compile cache per run, replay of each.
set -u
R=$PWD; W=/tmp/w2; D=/tmp/d2; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/.dev-s21/bundle
( sleep ${GUARD:-560}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
H=$R/.dev-s21/bundle
mkdir -p /tmp/base && cp -a $H/. /tmp/base/ && cp $R/.dev-s21/kevo-85b3495 /tmp/base/kevo
B=/tmp/base
{ date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; $B/kevo --version; } > $W/env.txt 2>&1
. $R/bench/results/2026-11-28-h200-s18/lib.sh
T=${T:-35}s
G="gemm fp32 4096x4096x4096"; S="softmax fp32 4096x4096"; BF="gemm bf16 8192x8192x8192"
for c in S G; do
  one A 1g $H ${!c} $T --gpus 0; waitruns
  one A 2g $H ${!c} $T --gpus 0,1; waitruns
  one A 2gbase $B ${!c} $T --gpus 0,1; waitruns
done
one A 1g $H $BF $T --gpus 0; waitruns
one A 2g $H $BF $T --gpus 0,1; waitruns
for f in $W/*.journal.jsonl.gz; do python3 $R/bench/results/2026-11-29-h200-s20/phases.py $f > ${f%.journal.jsonl.gz}.phases 2>&1; done
summary
kill $guard 2>/dev/null; tar czf $OUT/call2.tgz -C $W . ; ls -la $OUT
