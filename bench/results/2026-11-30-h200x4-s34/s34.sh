#!/bin/bash
# session 34 (nvidia-h200-x4, 64 cores): builds in .dev-s34/LABEL (bundles),
# seed 11, a fresh compile cache a run.
#   pair CASE A B REP      35 s, bundle A on GPU 0 (cores 0-15) and bundle
#                          B on GPU 1 (cores 16-31) at once, --compilers 16
#   scale A REP CASE:MODE..  35 s, A alone on the whole host: 1g (--gpus 0),
#                          2g (--gpus 0,1), 4g (--gpus 0,1,2,3), mpi (mpirun -np 2)
#   quad-start C1 A B C2   10 minutes, four runs at once, detached (setsid):
#                          C1 with A on GPU 0 (cores 0-15), C1 with B on GPU 1
#                          (16-31), C2 with A on GPU 2 (32-47), C2 with B on
#                          GPU 3 (48-63), --compilers 16 each
#   quad-wait C1 A B C2    waits for the four, then as after a pair
# CASE: softmax (softmax fp32 4096^2), sgemm (gemm fp32 4096^3), hgemm
# (gemm bf16 8192^3). After each run: kevo status, session 26's ttb.py,
# (not with NOREPLAY set), the journal gzipped (with JOURNAL set). Results under /tmp/w34, packed by the caller.
set -u
R=$PWD; W=/tmp/w34; D=/tmp/d34; mkdir -p $W $D
B=$R/.dev-s34; S=$R/bench/results/2026-11-30-h200x4-s34
MR="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && MR="$MR --allow-run-as-root"
[ -f $W/env.txt ] || { date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc;
  for b in $B/*/; do [ -x $b/kevo ] && LD_LIBRARY_PATH=$B/lib $b/kevo --version; done; } > $W/env.txt 2>&1
args() { case $1 in
  softmax) echo "--problem softmax --dtype fp32 --shape 4096x4096" ;;
  sgemm) echo "--problem gemm --dtype fp32 --shape 4096x4096x4096" ;;
  hgemm) echo "--problem gemm --dtype bf16 --shape 8192x8192x8192" ;; esac; }
after() { # name label
  local K=$B/$2
  { echo "== $1"; LD_LIBRARY_PATH=$K:$B/lib $K/kevo status $D/$1; } >> $W/status.txt 2>&1
  python3 $R/bench/results/2026-11-29-h200-s26/ttb.py $D/$1 > $W/$1.ttb.json 2>&1
  grep '"type":"gen"' $D/$1/journal.jsonl | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); r.pop('islands',None); r.pop('island_n',None); print(json.dumps(r))" > $W/$1.gens.jsonl
  [ -z "${NOREPLAY:-}" ] && { echo "== replay $1"; LD_LIBRARY_PATH=$K:$B/lib $K/kevo replay $D/$1 2>&1 | tail -2; } >> $W/replay.txt
  [ -n "${JOURNAL:-}" ] && gzip -c $D/$1/journal.jsonl > $W/$1.journal.gz
  rm -rf $D/c-$1
}
launch() { # name label gpu cores case time
  local K=$B/$2
  ( cd $W; LD_LIBRARY_PATH=$K:$B/lib KEVO_CACHE_DIR=$D/c-$1 setsid nohup taskset -c $4 $K/kevo run $(args $5) \
      --seed 11 --time $6 --compilers 16 --gpus $3 --templates-dir $K/templates \
      --runs-dir $D --name $1 --quiet > $W/$1.log 2>&1 < /dev/null & echo $! > $W/$1.pid )
}
waitfor() { while kill -0 $(cat $W/$1.pid) 2>/dev/null; do sleep 0.5; done; }
case $1 in
pair)
  c=$2; a=$3; b=$4; rep=$5
  launch $c-$a-$rep $a 0 0-15 $c 35s; launch $c-$b-$rep $b 1 16-31 $c 35s
  waitfor $c-$a-$rep; waitfor $c-$b-$rep
  after $c-$a-$rep $a; after $c-$b-$rep $b ;;
scale)
  a=$2; rep=$3; shift 3; K=$B/$a
  for cm in "$@"; do c=${cm%%:*}; m=${cm##*:}; n=$c-$a-$m-$rep
    A="$(args $c) --seed 11 --time 35s --templates-dir $K/templates --runs-dir $D --name $n --quiet"
    ( cd $W; export LD_LIBRARY_PATH=$K:$B/lib; t0=$(date +%s.%N)
      case $m in
        1g) KEVO_CACHE_DIR=$D/c-$n timeout 200 $K/kevo run $A --gpus 0 > $W/$n.log 2>&1 ;;
        2g) KEVO_CACHE_DIR=$D/c-$n timeout 200 $K/kevo run $A --gpus 0,1 > $W/$n.log 2>&1 ;;
        4g) KEVO_CACHE_DIR=$D/c-$n timeout 200 $K/kevo run $A --gpus 0,1,2,3 > $W/$n.log 2>&1 ;;
        mpi) KEVO_CACHE_DIR=$D/c-$n timeout 200 mpirun $MR -np 2 -x KEVO_CACHE_DIR -x LD_LIBRARY_PATH $K/kevo-mpi run $A > $W/$n.log 2>&1 ;;
      esac
      echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.log )
    after $n $a
  done ;;
quad-start)
  launch $2-ttb-$3 $3 0 0-15 $2 10m; launch $2-ttb-$4 $4 1 16-31 $2 10m
  launch $5-ttb-$3 $3 2 32-47 $5 10m; launch $5-ttb-$4 $4 3 48-63 $5 10m
  sleep 2; ps aux | grep -c "[k]evo run" ;;
quad-wait)
  for n in $2-ttb-$3 $2-ttb-$4 $5-ttb-$3 $5-ttb-$4; do waitfor $n; done
  after $2-ttb-$3 $3; after $2-ttb-$4 $4; after $5-ttb-$3 $3; after $5-ttb-$4 $4 ;;
esac
