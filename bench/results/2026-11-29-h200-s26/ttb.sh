#!/bin/bash
# session 26: 10-minute runs, two at once on nvidia-h200-x2, each on one GPU
# and 16 of the 32 cores (taskset, --compilers 16), seed 11, --time 10m, a
# fresh compile cache each. Bundles (kevo --version of each in env-*.txt):
# .dev-s26/bundle (this commit: timing races the best with a 3 % margin),
# .dev-s26/base (aa01e7b, session 25's last commit), .dev-s26/old (1281cf3).
#   softmax fp32 4096^2: base on GPU 0 (cores 0-15), race on GPU 1 (16-31)
#   gemm bf16 8192^3:   race on GPU 0 (cores 0-15), 1281cf3 on GPU 1
# Runs are detached (setsid): one device call holds at most 10 minutes, so
# a case spans two calls on the warm machine.
# usage: ttb.sh start softmax|bf16; ttb.sh wait softmax|bf16; ttb.sh pack
set -u
R=$PWD; W=/tmp/wt; D=/tmp/dt; mkdir -p $W $D
B=$R/.dev-s26
export LD_LIBRARY_PATH=$B/bundle
case_args() {
  case $1 in
    bf16) echo "--problem gemm --dtype bf16 --shape 8192x8192x8192";;
    softmax) echo "--problem softmax --dtype fp32 --shape 4096x4096";;
  esac
}
launch() { # name bundle gpu cores case
  local n=$1 b=$B/$2 g=$3 c=$4 k=$5
  ( cd $W; KEVO_CACHE_DIR=$D/c-$n setsid nohup taskset -c $c \
      $b/kevo run $(case_args $k) --seed 11 --time ${TT:-10m} --compilers 16 --gpus $g \
      --templates-dir $b/templates --runs-dir $D --name $n --quiet \
      > $W/$n.log 2>&1 < /dev/null & echo $! > $W/$n.pid )
}
runs() { [ $1 = softmax ] && echo "softmax-base softmax-race" || echo "bf16-race bf16-old"; }
case $1 in
start)
  { date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc;
    for b in bundle base old; do $B/$b/kevo --version; done; } > $W/env-$2.txt 2>&1
  if [ $2 = softmax ]; then
    launch softmax-base base 0 0-15 softmax
    launch softmax-race bundle 1 16-31 softmax
  else
    launch bf16-race bundle 0 0-15 bf16
    launch bf16-old old 1 16-31 bf16
  fi
  sleep 2; ps aux | grep -c "[k]evo run" ;;
wait)
  for n in $(runs $2); do
    while kill -0 $(cat $W/$n.pid) 2>/dev/null; do sleep 1; done
    echo "== $n (exit seen $(date -u +%T))" >> $W/$2.status
    $B/bundle/kevo status $D/$n >> $W/$2.status 2>&1
    python3 $R/bench/results/2026-11-29-h200-s26/ttb.py $D/$n > $W/$n.ttb.json 2>&1
    rm -rf $D/c-$n
  done
  cat $W/$2.status; tail -n 2 $W/*.log
  for n in $(runs $2); do python3 -c "
import json,sys; d=json.load(open('$W/$n.ttb.json')); print('$n', d['evals'], d['best']['ratio'], d['accepted'][-1:] )
for m in d['minutes']: print(' ', m)"; done ;;
pack)
  cd /tmp && tar cf - --exclude=journal.jsonl --exclude='sources' wt dt | xz -T16 -6 > /tmp/t.txz
  split -b 7M /tmp/t.txz $OUT/t.part.; ls -la $OUT ;;
esac
