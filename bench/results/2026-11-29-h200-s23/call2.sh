#!/bin/bash
# session 23, call 2 (nvidia-h200, 1 GPU, 16 cores): call 1 found HEAD's
# softmax at 0.82x 8146c91's evaluations/min (one run each). Softmax fp32
# 4096^2, 35 s, seed 11, fresh caches, one run at a time, twice each,
# interleaved: HEAD ("head": the GPU evaluator may drop only in generation
# 0's batches, 51c7af4), HEAD with drops allowed in every batch of a fill0
# run as 8146c91 did ("alld": engine.c runlog_set_drop(log, optional ||
# fill0), kevo-alld), and 8146c91 ("s22").
set -u
R=$PWD; W=/tmp/w2; D=/tmp/d2; rm -rf $W $D; mkdir -p $W $D
N=$R/.dev-s23/bundle
P=/tmp/s22; mkdir -p $P && cp -a $N/. $P/ && cp $R/.dev-s23/kevo-8146c91 $P/kevo
A=/tmp/alld; mkdir -p $A && cp -a $N/. $A/ && cp $R/.dev-s23/kevo-alld $A/kevo
export LD_LIBRARY_PATH=$N
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $N/kevo --version; $A/kevo --version; $P/kevo --version; } > $W/env.txt 2>&1
T=${T:-35}s
one() { # label bundle problem dtype shape
  local lab=$1 bd=$2 p=$3 dt=$4 sh=$5; shift 5; local n=$p-$dt-$lab
  ( cd $bd; t0=$(date +%s.%N)
    KEVO_CACHE_DIR=$D/c-$n timeout 300 ./kevo run --problem $p --dtype $dt --shape $sh --seed 11 --time $T --templates-dir $bd/templates --runs-dir $D --name $n --quiet "$@" > $W/$n.log 2>&1
    echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.log
    ./kevo status $D/$n > $W/$n.status 2>&1; rm -rf $D/c-$n )
}
S="softmax fp32 4096x4096"
for i in 1 2; do one head$i $N $S; one alld$i $A $S; one s22$i $P $S; done
for d in $D/*/; do n=$(basename $d); tar czf $W/$n.run.tgz -C $D $n; done
tar czf $OUT/call2.tgz -C $W . ; ls -la $OUT
