#!/bin/bash
# lead H100 call 6 (session 8): scripts/gemm-sustain.c - hgemm_wgmma's default
# point (kevo export --format c) against cuBLAS, bf16, back to back for 2 s a
# phase, with and without an L2 flush per launch, NVML power/clock sampled.
set -u
L=$OUT/c6; mkdir -p $L; S=$L/summary.txt
echo "$(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,clocks.max.sm --format=csv,noheader | head -1)" > $S
cd build/sus
for s in "4096 4096 4096 2" "8192 8192 8192 2" "4096 4096 4096 2"; do
  echo "### $s" >> $S
  timeout 120 ./gemm-sustain exp/kevo_gemm.cubin $s >> $S 2>&1; echo "rc $? ($SECONDS s)" >> $S
done
cat $S
