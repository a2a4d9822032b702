#!/bin/bash
# session 19, call A (nvidia-h200, 1 GPU, 16 cores):
#  A. the launch-only OCC (blocks per SM, capped by padding the dynamic
#     shared memory) swept at fixed points of each softmax family, fp32
#     4096^2: `kevo eval` per (point, OCC), median ns and occupancy;
#  B. this tree ("head") on softmax fp32 4096^2, 270 s, seed 11.
set -u
R=$PWD; W=/tmp/w1; D=/tmp/d1; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/build/bundle
( sleep ${GUARD:-560}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
H=$R/build/bundle; T=$H/templates/softmax
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; lscpu | grep -E 'Model name|Thread|Socket'; $H/kevo --version; } > $W/env.txt 2>&1
. $R/bench/results/2026-11-28-h200-s18/lib.sh
sweep() { # tag template threads params...
  local tag=$1 f=$2 th=$3; shift 3
  local ps=; for kv in "$@"; do ps="$ps --param $kv"; done
  for occ in 0 2 3 4 6 8 12 0; do
    [ $occ -ne 0 ] && [ $((occ * th)) -ge 2048 ] && continue
    KEVO_CACHE_DIR=$D/c-sweep timeout 60 $H/kevo eval $T/$f.cu --dtype fp32 --shape 4096x4096 --seed 5 --json $ps --param OCC=$occ > $W/j.json 2>$W/j.err
    python3 -c "import json,sys; j=json.load(open('$W/j.json')); print('$tag', '$occ', j['outcome'], '%.1f' % (j['median_ns']/1e3), '%.3f' % j['spread'], j['occupancy'], j['regs'])" 2>/dev/null || echo "$tag $occ fail $(tail -c 300 $W/j.err)"
  done
}
{ sweep blockdef softmax_block 256
  sweep blockbest softmax_block 128 THREADS=128 VEC=4 REG=8 CACHE=1 UNROLL=2 MINB=4
  sweep clusterdef softmax_cluster 256
  sweep cluster1 softmax_cluster 128 CL=1 THREADS=128 VEC=4 REG=8 UNROLL=4 LDH=0 STH=0 MINB=4
  sweep unitdef softmax_unit 256
  sweep unit1 softmax_unit 128 CL=1 THREADS=128 REG=8 SMK=0 UNROLL=2 MINB=4
  sweep warpdef softmax_warp 128
  sweep multirowdef softmax_multirow 128
  sweep onlinedef softmax_online 256
  sweep splitdef softmax_split 256
} > $W/sweep.txt 2>&1
date -u >> $W/env.txt
one A head $H softmax fp32 4096x4096 ${TTB:-270}s; waitruns
summary
kill $guard 2>/dev/null; tar czf $OUT/callA.tgz -C $W . ; ls -la $OUT
