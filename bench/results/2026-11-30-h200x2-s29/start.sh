#!/bin/bash
# session 29, call 4 (nvidia-h200-x2): the wall time of short runs (softmax
# fp32 4096^2, --time 5s, seed 11, a fresh compile cache each) on one and
# two GPUs, 4ac571b (.dev-s29/new: the listed GPUs' workers start at once)
# against eaf87ae (.dev-s29/old: one after the other), twice; then
# --gpus 0,7 (a GPU the driver does not show), --gpus all, and two workers
# a GPU (KEVO_WORKERS_PER_GPU=2) with kevo status and kevo replay.
# Results under /tmp/w29s (wall.txt, check.txt, the logs).
set -u
R=$PWD; W=/tmp/w29s; D=/tmp/d29s; mkdir -p $W $D
NEW=$R/.dev-s29/new; OLD=$R/.dev-s29/old; export LD_LIBRARY_PATH=$NEW
P="--problem softmax --dtype fp32 --shape 4096x4096 --seed 11 --time 5s --quiet"
one() { # name bundle gpus [VAR=value]
  local t0=$(date +%s.%N)
  env ${4:-X=} KEVO_CACHE_DIR=$D/c-$1 $2/kevo run $P --templates-dir $2/templates \
      --gpus $3 --runs-dir $D --name $1 > $W/$1.log 2>&1
  local rc=$?
  echo "$1 rc $rc wall $(python3 -c "import time;print(round(time.time()-$t0,2))")" | tee -a $W/wall.txt
  rm -rf $D/c-$1
}
for rep in 1 2; do
  one new-1g-$rep $NEW 0; one new-2g-$rep $NEW 0,1
  one old-1g-$rep $OLD 0; one old-2g-$rep $OLD 0,1
done
one new-bad $NEW 0,7; cat $W/new-bad.log
one new-all $NEW all
one new-per2 $NEW 0,1 KEVO_WORKERS_PER_GPU=2
for n in new-2g-1 new-all new-per2; do
  { echo "== $n"; $NEW/kevo status $D/$n | grep -E "evaluations:|throughput|gpu:";
    $NEW/kevo replay $D/$n 2>&1 | tail -1; } >> $W/check.txt 2>&1
done
cat $W/check.txt
