#!/bin/bash
# session 35, nvidia-h200-x2 (2 H200s, 32 cores): bundle .dev-s35/head
# (1cb2d4a), seed 11, 35 s, a fresh compile cache a run, the whole host.
#   scale TAG CASE:MODE ...   MODE: 1g (--gpus 0), 2g (--gpus 0,1),
#                             mpi (mpirun -np 2); TAG names the runs
#                             (e.g. 1, 2, take32); the environment passes
#                             through (KEVO_FANOUT_TAKE)
# After each run: kevo status, kevo replay, and everything so far packed
# into $OUT/x2.tgz (so a cut call still returns what ran).
set -u
R=$PWD; W=/tmp/w35x2; D=/tmp/d35x2; mkdir -p $W $D
K=$R/.dev-s35/head; L=$R/.dev-s35/lib
MR="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && MR="$MR --allow-run-as-root"
[ -f $W/env.txt ] || { date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc;
  LD_LIBRARY_PATH=$L $K/kevo --version; } > $W/env.txt 2>&1
args() { case $1 in
  softmax) echo "--problem softmax --dtype fp32 --shape 4096x4096" ;;
  sgemm) echo "--problem gemm --dtype fp32 --shape 4096x4096x4096" ;; esac; }
tag=$2; shift 2
for cm in "$@"; do c=${cm%%:*}; m=${cm##*:}; n=$c-$m-$tag
  A="$(args $c) --seed 11 --time 35s --templates-dir $K/templates --runs-dir $D --name $n --quiet"
  ( cd $W; export LD_LIBRARY_PATH=$L; t0=$(date +%s.%N)
    case $m in
      1g) KEVO_CACHE_DIR=$D/c-$n timeout 200 $K/kevo run $A --gpus 0 > $W/$n.log 2>&1 ;;
      2g) KEVO_CACHE_DIR=$D/c-$n timeout 200 $K/kevo run $A --gpus 0,1 > $W/$n.log 2>&1 ;;
      mpi) KEVO_CACHE_DIR=$D/c-$n timeout 200 mpirun $MR -np 2 -x KEVO_CACHE_DIR -x LD_LIBRARY_PATH $K/kevo-mpi run $A > $W/$n.log 2>&1 ;;
    esac
    echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,3))") take ${KEVO_FANOUT_TAKE:-default}" >> $W/$n.log )
  { echo "== $n"; LD_LIBRARY_PATH=$L $K/kevo status $D/$n; } >> $W/status.txt 2>&1
  grep '"type":"gen"' $D/$n/journal.jsonl | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); r.pop('islands',None); print(json.dumps(r))" > $W/$n.gens.jsonl
  { echo "== replay $n"; LD_LIBRARY_PATH=$L $K/kevo replay $D/$n 2>&1 | tail -2; } >> $W/replay.txt
  rm -rf $D/c-$n
  (cd $W && tar czf ${OUT:-/tmp}/x2.tgz .)
done
