#!/bin/bash
# session 27: 10-minute runs of softmax fp32 4096^2, two at once on
# nvidia-h200-x2, each on one GPU and 16 of the 32 cores (taskset,
# --compilers 16), seed 11, --time 10m, a fresh compile cache each:
# .dev-s27/base (c256414) on GPU 0 (cores 0-15), .dev-s27/b2 (fdf79b5:
# GRID and generation 0's fill at 8 a point) on GPU 1 (cores 16-31), as
# session 26 placed its pair. Detached (setsid): a case spans two calls.
# usage: ttb.sh start; ttb.sh wait
set -u
R=$PWD; W=/tmp/wt; D=/tmp/dt; mkdir -p $W $D
B=$R/.dev-s27
export LD_LIBRARY_PATH=$B/bundle
launch() { # name bundle gpu cores
  local n=$1 b=$B/$2 g=$3 c=$4
  ( cd $W; KEVO_CACHE_DIR=$D/c-$n setsid nohup taskset -c $c \
      $b/kevo run --problem softmax --dtype fp32 --shape 4096x4096 --seed 11 --time ${TT:-10m} --compilers 16 --gpus $g \
      --templates-dir $b/templates --runs-dir $D --name $n --quiet \
      > $W/$n.log 2>&1 < /dev/null & echo $! > $W/$n.pid )
}
case $1 in
start)
  { date -u; nvidia-smi --query-gpu=index,name,driver_version --format=csv; nproc;
    for b in base b2; do $B/$b/kevo --version; done; } > $W/env-ttb.txt 2>&1
  launch ttb-base base 0 0-15
  launch ttb-b2 b2 1 16-31
  sleep 2; ps aux | grep -c "[k]evo run" ;;
wait)
  for n in ttb-base ttb-b2; do
    while kill -0 $(cat $W/$n.pid) 2>/dev/null; do sleep 1; done
    echo "== $n (exit seen $(date -u +%T))" >> $W/ttb.status
    $B/b2/kevo status $D/$n >> $W/ttb.status 2>&1
    python3 $R/bench/results/2026-11-29-h200-s26/ttb.py $D/$n > $W/$n.ttb.json 2>&1
    cp $D/$n/journal.min.jsonl $W/$n.min.jsonl
    rm -rf $D/c-$n
  done
  cat $W/ttb.status; tail -n 2 $W/*.log ;;
esac
