#!/bin/bash
# session 22, call 1 (nvidia-h200, 1 GPU, 16 cores): HEAD ("head", this
# commit's bundle) against 1281cf3 ("base", its bundle, --compilers 16) on
# softmax fp32 4096^2 and fp32 GEMM 4096^3, T s each (default 35), seed 11,
# a fresh compile cache per run, one run at a time; replay of each; each
# run's --json progress stamped with the seconds since its process
# started (*.events), to see where the start-up goes.
set -u
R=$PWD; W=/tmp/w1; D=/tmp/d1; rm -rf $W $D; mkdir -p $W $D
H=$R/.dev-s22/bundle
mkdir -p /tmp/base && tar xJf $R/.dev-s17/base-bundle.tar.xz -C /tmp/base; B=/tmp/base/bundle
export LD_LIBRARY_PATH=$H
( sleep ${GUARD:-400}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
{ date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; $B/kevo --version; } > $W/env.txt 2>&1
stamp() { python3 -u -c 'import sys,time
t0=float(sys.argv[1])
for l in sys.stdin: sys.stdout.write("%.3f %s" % (time.time()-t0, l))' "$1"; }
T=${T:-35}s
one() { # label bundle problem dtype shape [flags]
  local lab=$1 bd=$2 p=$3 dt=$4 sh=$5; shift 5; local n=$p-$dt-$lab
  ( cd $bd; t0=$(date +%s.%N)
    KEVO_CACHE_DIR=$D/c-$n timeout 300 ./kevo run --problem $p --dtype $dt --shape $sh --seed 11 --time $T --templates-dir $bd/templates --runs-dir $D --name $n --json "$@" 2>&1 | stamp $t0 > $W/$n.events
    echo "exit ${PIPESTATUS[0]} wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.events
    ./kevo status $D/$n > $W/$n.status 2>&1
    timeout 120 ./kevo replay $D/$n 2>&1 | head -1 > $W/$n.replay
    gzip -c $D/$n/journal.jsonl > $W/$n.journal.jsonl.gz; cp $D/$n/manifest.json $W/$n.manifest.json; rm -rf $D/c-$n )
}
one head $H softmax fp32 4096x4096
one base $B softmax fp32 4096x4096 --compilers 16
one head $H gemm fp32 4096x4096x4096
one base $B gemm fp32 4096x4096x4096 --compilers 16
for f in $W/*.journal.jsonl.gz; do python3 $R/bench/results/2026-11-29-h200-s20/phases.py $f > ${f%.journal.jsonl.gz}.phases 2>&1; done
for f in $W/*.status; do echo "== $(basename $f .status): $(grep -E 'evaluations:|throughput:|fill:|gpu:|best:' $f | tr -s ' ' | tr '\n' ' ')"; cat ${f%.status}.replay; done > $W/summary.txt
kill $guard 2>/dev/null; tar czf $OUT/call1.tgz -C $W . ; ls -la $OUT
