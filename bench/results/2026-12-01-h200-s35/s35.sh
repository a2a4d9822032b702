#!/bin/bash
# session 35 (nvidia-h200, 16 cores): builds in .dev-s35/LABEL (bundles),
# seed 11, a fresh compile cache a run, --gpus 0, all 16 cores.
#   long A CASE SECS [SPEC]   one run of SECS seconds with bundle A (spec
#                             file SPEC, if given), journal kept (gzipped)
# CASE: softmax (softmax fp32 4096^2), sgemm (gemm fp32 4096^3).
# After each run: kevo status, session 26's ttb.py, the "gen" records,
# kevo replay, the journal gzipped. Results under /tmp/w35.
set -u
R=$PWD; W=/tmp/w35; D=/tmp/d35; mkdir -p $W $D
B=$R/.dev-s35
[ -f $W/env.txt ] || { date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc;
  for b in $B/*/; do [ -x $b/kevo ] && LD_LIBRARY_PATH=$B/lib $b/kevo --version; done; } > $W/env.txt 2>&1
args() { case $1 in
  softmax) echo "--problem softmax --dtype fp32 --shape 4096x4096" ;;
  sgemm) echo "--problem gemm --dtype fp32 --shape 4096x4096x4096" ;; esac; }
after() { # name label
  local K=$B/$2
  { echo "== $1"; LD_LIBRARY_PATH=$B/lib $K/kevo status $D/$1; } >> $W/status.txt 2>&1
  python3 $R/bench/results/2026-11-29-h200-s26/ttb.py $D/$1 > $W/$1.ttb.json 2>&1
  grep '"type":"gen"' $D/$1/journal.jsonl > $W/$1.gens.jsonl
  { echo "== replay $1"; LD_LIBRARY_PATH=$B/lib $K/kevo replay $D/$1 2>&1 | tail -2; } >> $W/replay.txt
  gzip -c $D/$1/journal.jsonl > $W/$1.journal.gz
  rm -rf $D/c-$1
}
case $1 in
long)
  a=$2; c=$3; s=$4; K=$B/$a; n=$c-$a-$s${5:+-$(basename $5 .json)}
  sp=""; [ -n "${5:-}" ] && sp="--spec $5"
  ( cd $W; t0=$(date +%s.%N)
    LD_LIBRARY_PATH=$B/lib KEVO_CACHE_DIR=$D/c-$n timeout $((s+120)) $K/kevo run $(args $c) --seed 11 \
      --time ${s}s --gpus 0 $sp --templates-dir $K/templates --runs-dir $D --name $n --quiet > $W/$n.log 2>&1
    echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.log )
  after $n $a ;;
esac
