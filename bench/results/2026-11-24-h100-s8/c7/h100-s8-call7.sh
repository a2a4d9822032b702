#!/bin/bash
# lead H100 call 7 (session 8): scripts/gemm-sustain.c for six hgemm_wgmma
# points (single-point exports, build/sus2/NAME) against cuBLAS, bf16 4096^3,
# 1.5 s a phase: which point needs the least energy a GEMM under the cap.
set -u
L=$OUT/c7; mkdir -p $L; S=$L/summary.txt
echo "$(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,clocks.max.sm --format=csv,noheader | head -1)" > $S
cd build/sus2
for v in d0 lean lmw l2 lmw2 epo0 d0; do
  echo "### $v" >> $S
  timeout 90 ./$v/gemm-sustain $v/exp/kevo_gemm.cubin 4096 4096 4096 1.5 >> $S 2>&1; echo "rc $? ($SECONDS s)" >> $S
done
cat $S
