#!/bin/bash
# session 24, call 5 (nvidia-h200-x2: 2 GPUs, 32 cores): softmax fp32
# 4096^2 once more at b39390b, one GPU (--gpus 0, all 32 cores) and
# --gpus 0,1 interleaved, twice each: the two-GPU ratio on one more host.
# 35 s, seed 11, a fresh compile cache per run, one run at a time.
set -u
R=$PWD; W=/tmp/w5; D=/tmp/d5; rm -rf $W $D; mkdir -p $W $D
H=$R/.dev-s24/bundle
export LD_LIBRARY_PATH=$H
{ date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; } > $W/env.txt 2>&1
cp $W/env.txt $OUT/
T=${T:-35}s
one() { # label problem dtype shape [flags]
  local lab=$1 p=$2 dt=$3 sh=$4; shift 4; local n=$p-$dt-$lab
  local A="--problem $p --dtype $dt --shape $sh --seed 11 --time $T --templates-dir $H/templates --runs-dir $D --name $n --quiet"
  ( cd $H; t0=$(date +%s.%N)
    KEVO_CACHE_DIR=$D/c-$n timeout 200 ./kevo run $A "$@" > $W/$n.log 2>&1
    echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.log
    rm -rf $D/c-$n; { echo "== $n"; ./kevo status $D/$n; } >> $OUT/status.txt 2>&1 )
}
S="softmax fp32 4096x4096"
one 2g-1 $S --gpus 0,1; one 1g-1 $S --gpus 0; one 2g-2 $S --gpus 0,1; one 1g-2 $S --gpus 0
tar czf /tmp/c5.tgz -C /tmp w5 d5 && split -b 7M /tmp/c5.tgz $OUT/c5.part. ; ls -la $OUT
