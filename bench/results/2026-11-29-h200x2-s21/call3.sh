#!/bin/bash
# session 21, call 3 (nvidia-h200, 1 GPU, 16 cores; the 2-GPU kind was no
# longer lent): 89ea76c with deferred candidates ("defer", the default)
# and without ("nodefer": --spec nodefer.json) on softmax fp32 4096^2 and
# fp32 GEMM 4096^3, 35 s each, one run at a time; seed 11, a fresh compile
# cache per run, replay of each; phases.py on every journal.
set -u
R=$PWD; W=/tmp/w3; D=/tmp/d3; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/.dev-s21/bundle
( sleep ${GUARD:-330}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
H=$R/.dev-s21/bundle
{ date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; } > $W/env.txt 2>&1
. $R/bench/results/2026-11-28-h200-s18/lib.sh
T=${T:-35}s
G="gemm fp32 4096x4096x4096"; S="softmax fp32 4096x4096"
for c in S G; do
  one A defer $H ${!c} $T; waitruns
  one A nodefer $H ${!c} $T --spec $R/bench/results/2026-11-29-h200x2-s21/nodefer.json; waitruns
done
for f in $W/*.journal.jsonl.gz; do python3 $R/bench/results/2026-11-29-h200-s20/phases.py $f > ${f%.journal.jsonl.gz}.phases 2>&1; done
summary
kill $guard 2>/dev/null; tar czf $OUT/call3.tgz -C $W . ; ls -la $OUT
