#!/bin/bash
# session 30 (nvidia-h200-x2, 32 cores): this build (.dev-s30/new) against
# 4711465 (.dev-s30/old, session 29's last commit), seed 11, a fresh
# compile cache a run.
#   pair CASE NEWGPU REP   35 s, new and old at once, one GPU and 16 of the
#                          32 cores each (taskset, --compilers 16); new on
#                          GPU NEWGPU (its cores: 0-15 for GPU 0), old on
#                          the other
#   scale REP CASE:MODE..  35 s, new alone on the whole host: 1g (--gpus 0),
#                          2g (--gpus 0,1), mpi (mpirun -np 2)
#   ttb-start CASE         10 minutes, new and old at once as in pair (new
#                          on GPU 0), detached (setsid)
#   ttb-wait CASE          waits for both, then as after a pair
# CASE: softmax (softmax fp32 4096^2) or sgemm (gemm fp32 4096^3). After
# each run: kevo status, session 26's ttb.py (compact journal), the gen
# records (engine_ms), the first result's evidence, kevo replay (new's
# runs; not with NOREPLAY set). Results under /tmp/w30, packed by the
# caller.
set -u
R=$PWD; W=/tmp/w30; D=/tmp/d30; mkdir -p $W $D
NEW=$R/.dev-s30/new; OLD=$R/.dev-s30/old
export LD_LIBRARY_PATH=$NEW
MR="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && MR="$MR --allow-run-as-root"
[ -f $W/env.txt ] || { date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc;
  $NEW/kevo --version; $OLD/kevo --version; } > $W/env.txt 2>&1
args() { case $1 in
  softmax) echo "--problem softmax --dtype fp32 --shape 4096x4096" ;;
  sgemm) echo "--problem gemm --dtype fp32 --shape 4096x4096x4096" ;; esac; }
after() { # name bundle
  { echo "== $1"; $2/kevo status $D/$1; } >> $W/status.txt 2>&1
  python3 $R/bench/results/2026-11-29-h200-s26/ttb.py $D/$1 > $W/$1.ttb.json 2>&1
  cp $D/$1/journal.min.jsonl $W/$1.min.jsonl 2>/dev/null
  grep '"type":"gen"' $D/$1/journal.jsonl | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); r.pop('islands',None); r.pop('island_n',None); print(json.dumps(r))" > $W/$1.gens.jsonl
  grep -m1 '"type":"eval"' $D/$1/journal.jsonl | python3 -c "import json,sys; print(json.dumps(json.loads(sys.stdin.read()).get('evidence')))" > $W/$1.evidence.json
  [ $2 = $NEW ] && [ -z "${NOREPLAY:-}" ] && { echo "== replay $1"; $NEW/kevo replay $D/$1 2>&1 | tail -2; } >> $W/replay.txt
  rm -rf $D/c-$1
}
launch() { # name bundle gpu cores case time
  ( cd $W; KEVO_CACHE_DIR=$D/c-$1 setsid nohup taskset -c $4 $2/kevo run $(args $5) \
      --seed 11 --time $6 --compilers 16 --gpus $3 --templates-dir $2/templates \
      --runs-dir $D --name $1 --quiet > $W/$1.log 2>&1 < /dev/null & echo $! > $W/$1.pid )
}
waitfor() { while kill -0 $(cat $W/$1.pid) 2>/dev/null; do sleep 0.5; done; }
case $1 in
pair)
  c=$2; g=$3; rep=$4; o=$((1-g))
  cn=$([ $g = 0 ] && echo 0-15 || echo 16-31); co=$([ $o = 0 ] && echo 0-15 || echo 16-31)
  launch $c-new-$rep $NEW $g $cn $c 35s; launch $c-old-$rep $OLD $o $co $c 35s
  waitfor $c-new-$rep; waitfor $c-old-$rep
  after $c-new-$rep $NEW; after $c-old-$rep $OLD ;;
scale)
  rep=$2; shift 2
  for cm in "$@"; do c=${cm%%:*}; m=${cm##*:}; n=$c-$m-$rep
    A="$(args $c) --seed 11 --time 35s --templates-dir $NEW/templates --runs-dir $D --name $n --quiet"
    ( cd $W; t0=$(date +%s.%N)
      case $m in
        1g) KEVO_CACHE_DIR=$D/c-$n timeout 200 $NEW/kevo run $A --gpus 0 > $W/$n.log 2>&1 ;;
        2g) KEVO_CACHE_DIR=$D/c-$n timeout 200 $NEW/kevo run $A --gpus 0,1 > $W/$n.log 2>&1 ;;
        mpi) KEVO_CACHE_DIR=$D/c-$n timeout 200 mpirun $MR -np 2 -x KEVO_CACHE_DIR -x LD_LIBRARY_PATH $NEW/kevo-mpi run $A > $W/$n.log 2>&1 ;;
      esac
      echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.log )
    after $n $NEW
  done ;;
ttb-start)
  launch $2-ttbnew $NEW 0 0-15 $2 10m; launch $2-ttbold $OLD 1 16-31 $2 10m
  sleep 2; ps aux | grep -c "[k]evo run" ;;
ttb-wait)
  waitfor $2-ttbnew; waitfor $2-ttbold
  after $2-ttbnew $NEW; after $2-ttbold $OLD ;;
esac
