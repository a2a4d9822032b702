#!/bin/bash
# session 25: time to the best point in a 10-minute run, this build (the
# bundle in .dev-s25/bundle, kevo --version in env.txt) against 1281cf3
# (.dev-s25/old, its own templates), both at once on nvidia-h200-x2: each
# run one GPU and 16 of the 32 cores (taskset, --compilers 16), seed 11,
# --time 10m, a fresh compile cache each. GEMM: this build on GPU 0 (cores
# 0-15), 1281cf3 on GPU 1 (cores 16-31); softmax the other way round.
# Runs are detached (setsid): one device call holds at most 10 minutes, so
# a case spans two calls on the warm machine.
# usage: ttb.sh start gemm|softmax; ttb.sh wait gemm|softmax; ttb.sh pack
set -u
R=$PWD; W=/tmp/wt; D=/tmp/dt; mkdir -p $W $D
H=$R/.dev-s25/bundle; OLD=$R/.dev-s25/old
export LD_LIBRARY_PATH=$H
case_args() {
  case $1 in
    gemm) echo "--problem gemm --dtype fp32 --shape 4096x4096x4096";;
    softmax) echo "--problem softmax --dtype fp32 --shape 4096x4096";;
  esac
}
launch() { # name bin templates gpu cores case
  local n=$1 bin=$2 tp=$3 g=$4 c=$5 k=$6
  ( cd $W; KEVO_CACHE_DIR=$D/c-$n setsid nohup taskset -c $c $bin run \
      $(case_args $k) --seed 11 --time 10m --compilers 16 --gpus $g \
      --templates-dir $tp --runs-dir $D --name $n --quiet \
      > $W/$n.log 2>&1 < /dev/null & echo $! > $W/$n.pid )
}
case $1 in
start)
  { date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; $OLD/kevo --version; } > $W/env-$2.txt 2>&1
  date -u +%s > $W/start-$2
  if [ $2 = gemm ]; then
    launch gemm-new $H/kevo $H/templates 0 0-15 gemm
    launch gemm-old $OLD/kevo $OLD/templates 1 16-31 gemm
  else
    launch softmax-old $OLD/kevo $OLD/templates 0 0-15 softmax
    launch softmax-new $H/kevo $H/templates 1 16-31 softmax
  fi
  sleep 2; ps aux | grep -c "[k]evo run" ;;
wait)
  for n in $2-new $2-old; do
    while kill -0 $(cat $W/$n.pid) 2>/dev/null; do sleep 1; done
    echo "== $n (exit seen $(date -u +%T))" >> $OUT/status.txt
    $H/kevo status $D/$n >> $OUT/status.txt 2>&1
    python3 $R/bench/results/2026-11-29-h200-s25/ttb.py $D/$n > $W/$n.ttb.json 2>&1
    rm -rf $D/c-$n
  done; cp $W/*.ttb.json $OUT/ 2>/dev/null; tail -3 $W/*.log >> $OUT/status.txt ;;
pack)
  cd /tmp && tar cf - --exclude=journal.jsonl --exclude='sources' wt dt | xz -T16 -6 > /tmp/t.txz
  split -b 7M /tmp/t.txz $OUT/t.part.; ls -la $OUT ;;
esac
