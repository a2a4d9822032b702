#!/bin/bash
# lead H100 call 12 (session 8): the review commit's shared confirm request:
# kevo eval --ab (candidate vs candidate) and --pairs (vs cuBLAS), bf16 4096^3.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c12; mkdir -p $L /tmp/v; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid --format=csv,noheader | head -1)" > $S
cp $BD/templates/gemm/hgemm_wgmma.cu /tmp/v/d0.cu
sed -E "s/^(\/\/ kevo: param LEAN .*default=)[0-9]+/\11/" $BD/templates/gemm/hgemm_wgmma.cu > /tmp/v/lean.cu
timeout 120 $K eval /tmp/v/d0.cu /tmp/v/lean.cu --problem gemm --shape 4096x4096x4096 --dtype bf16 --ab --pairs 20 >> $S 2>&1
echo "rc $? ($SECONDS s)" >> $S
cat $S
