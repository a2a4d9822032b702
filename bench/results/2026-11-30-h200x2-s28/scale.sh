#!/bin/bash
# session 28 (nvidia-h200-x2, 32 cores): evaluations/min on one GPU
# (--gpus 0), two (--gpus 0,1) and mpirun -np 2, 35 s, seed 11, a fresh
# compile cache per run, one run at a time on the whole host, all with
# .dev-s28/bundle (this session's build). Case softmax: softmax fp32
# 4096^2; sgemm: gemm fp32 4096^3. Each run is named CASE-MODE-REP; then
# kevo status, kevo replay, session 26's ttb.py. The compact journals are
# packed into $OUT by the call.
# usage: scale.sh REP case:mode ...   (e.g. scale.sh 1 softmax:1g softmax:2g)
set -u
R=$PWD; W=/tmp/ws; D=/tmp/ds; mkdir -p $W $D
B=$R/.dev-s28/bundle
export LD_LIBRARY_PATH=$B
MR="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && MR="$MR --allow-run-as-root"
[ -f $W/env.txt ] || { date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc;
  $B/kevo --version; } > $W/env.txt 2>&1
rep=$1; shift
one() { # case mode
  local c=$1 m=$2 n=$1-$2-$rep P
  case $c in
    softmax) P="--problem softmax --dtype fp32 --shape 4096x4096" ;;
    sgemm) P="--problem gemm --dtype fp32 --shape 4096x4096x4096" ;;
  esac
  local A="$P --seed 11 --time 35s --templates-dir $B/templates --runs-dir $D --name $n --quiet"
  ( cd $W; t0=$(date +%s.%N)
    case $m in
      1g) KEVO_CACHE_DIR=$D/c-$n timeout 200 $B/kevo run $A --gpus 0 > $W/$n.log 2>&1 ;;
      2g) KEVO_CACHE_DIR=$D/c-$n timeout 200 $B/kevo run $A --gpus 0,1 > $W/$n.log 2>&1 ;;
      mpi) KEVO_CACHE_DIR=$D/c-$n timeout 200 mpirun $MR -np 2 -x KEVO_CACHE_DIR -x LD_LIBRARY_PATH $B/kevo-mpi run $A > $W/$n.log 2>&1 ;;
    esac
    echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.log
    rm -rf $D/c-$n; { echo "== $n"; $B/kevo status $D/$n; } >> $W/scale.status 2>&1
    python3 $R/bench/results/2026-11-29-h200-s26/ttb.py $D/$n > $W/$n.ttb.json 2>&1
    cp $D/$n/journal.min.jsonl $W/$n.min.jsonl
    { echo "== replay $n"; $B/kevo replay $D/$n 2>&1 | tail -2; } >> $W/replay.txt )
}
for c in "$@"; do one ${c%%:*} ${c##*:}; done
