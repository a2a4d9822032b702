#!/bin/bash
# lead H100 call 6 (session 7): is the bench's 4096^3 ratio biased by when cuBLAS is timed?
# kevo eval measures cuBLAS at its worker's start: once cold, then after 60 back-to-back
# evaluations of hgemm_wgmma's default (bf16 4096^3), then again right after
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
O=$OUT/t; mkdir -p $O; S=$O/summary.txt
T=$BD/templates/gemm/hgemm_wgmma.cu
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,temperature.gpu --format=csv,noheader | head -1)" > $S
A="--dtype bf16 --shape 4096x4096x4096 --seed 7"
$K eval $T $A > $O/cold.log 2>&1; echo "cold: $(grep -h 'baseline' $O/cold.log | head -2 | tr '\n' ' ') | $(grep -h "hgemm_wgmma.cu: " $O/cold.log | cut -c1-140)" >> $S
files=""; for i in $(seq 60); do files="$files $T"; done
$K eval $files $A > $O/heat.log 2>&1; echo "heat (60 evals, one worker): $(grep -h 'baseline' $O/heat.log | head -1) ratios: $(grep -o '[0-9.]*x cublas' $O/heat.log | tr '\n' ' ')" >> $S
for r in 1 2 3; do $K eval $T $T $T $A > $O/hot$r.log 2>&1; echo "hot$r: $(grep -h 'baseline' $O/hot$r.log | head -1) ratios: $(grep -o '[0-9.]*x cublas' $O/hot$r.log | tr '\n' ' ') temp $(nvidia-smi --query-gpu=temperature.gpu --format=csv,noheader)" >> $S; done
cat $S
tar czf $OUT/t.tgz -C $OUT t && rm -rf $OUT/t
