#!/bin/sh
# How build/v7 (carried by call 8) was made at ab94414: hgemm_packed.cu
# with its defaults set to the three SK=2 points that crashed in call 7.
set -eu
mkdir -p build/v7
mk() { n=$1; shift; cp templates/gemm/hgemm_packed.cu build/v7/$n.cu
  for kv in "$@"; do k=${kv%%=*}; v=${kv#*=}
    sed -i -E "s/^(\/\/ kevo: param $k .*)default=[0-9]+$/\1default=$v/" build/v7/$n.cu; done; }
mk hp_sk2a BM=128 BN=256 CONSUMERS=2 STAGES=2 GROUP_M=16 CLUSTER=1 CLN=0 BT=0 SK=2 FOLD=0 FUSE=1 PRE=0 EPI=0 SKIP=1 EPO=0 PDLT=1
mk hp_sk2b BM=128 BN=128 CONSUMERS=2 STAGES=5 GROUP_M=32 CLUSTER=2 CLN=0 BT=1 SK=2 FOLD=0 FUSE=0 PRE=20 EPI=1 SKIP=1 EPO=0 PDLT=0
mk hp_sk2c BM=128 BN=192 CONSUMERS=2 STAGES=4 GROUP_M=8 CLUSTER=1 CLN=0 BT=0 SK=2 FOLD=0 FUSE=0 PRE=20 EPI=1 SKIP=1 EPO=1 PDLT=0
