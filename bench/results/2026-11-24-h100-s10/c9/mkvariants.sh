#!/bin/sh
# How build/v8 (carried by call 9) was made: hgemm_packed.cu at ab94414
# (new_t) and at 5042871 (old_t), defaults set to the point that timed out
# in call 8.
set -eu
mkdir -p build/v8
git show ab94414:templates/gemm/hgemm_packed.cu > /tmp/hp_new.cu
git show 5042871:templates/gemm/hgemm_packed.cu > /tmp/hp_old.cu
P="BM=256 BN=128 CONSUMERS=2 STAGES=3 GROUP_M=4 CLUSTER=2 CLN=0 BT=0 SK=2 FOLD=0 FUSE=1 PRE=5 EPI=0 SKIP=1 EPO=0 PDLT=1"
for v in new old; do cp /tmp/hp_$v.cu build/v8/${v}_t.cu
  for kv in $P; do k=${kv%%=*}; x=${kv#*=}
    sed -i -E "s/^(\/\/ kevo: param $k .*)default=[0-9]+$/\1default=$x/" build/v8/${v}_t.cu; done; done
