#!/bin/bash
# call 4 (session 15, nvidia-h200-x2): the KernelBench level-1 trial, rest:
# the six files that ran out of memory with three files on one GPU in call
# 3, then the fourteen not reached; one gpu-kb1.sh per GPU, two files at once.
R=$PWD; K=$R/build/bundle/kevo; W=/tmp/w4; mkdir -p $W
export LD_LIBRARY_PATH=$R/build/bundle
( sleep 235; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
for g in 0 1; do d=$([ $g = 0 ] && echo a || echo b)
  ( CUDA_VISIBLE_DEVICES=$g KEVO=$K KB_DIR=$R/.dev-kb/$d OUT=$W/kb1-$d JOBS=2 TIMEOUT_S=200 MODE=bench \
    KEVO_TORCH_COMPILE=off timeout 225 bash $R/scripts/gpu-kb1.sh > $W/kb1-$d.log 2>&1 ) &
done
wait %2 %3 2>/dev/null; sleep 1
kill $guard 2>/dev/null; tar czf $OUT/call4.tgz -C $W . ; ls -la $OUT
