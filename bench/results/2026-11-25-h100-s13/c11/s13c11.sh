#!/bin/bash
# session 13 H100 call 11: scripts/gemm-sustain.c (NVML power and clock,
# energy a GEMM) with hgemm_wgmma's new default (build/sus13, exported at
# bc11599) and the former default (build/sus13o: LEAN MCK EPW KREV off,
# L2P=256) against cuBLAS, bf16 4096^3: each back to back 2 s a phase
# (with and without an L2 flush), then the two alternating (SUSTAIN_ALT).
set -u
L=$OUT/c11; mkdir -p $L; S=$L/summary.txt
echo "$(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,clocks.max.sm --format=csv,noheader | head -1)" > $S
for d in sus13 sus13o; do
  echo "### $d 4096^3 back to back" >> $S
  ( cd build/$d && timeout 120 ./gemm-sustain exp/kevo_gemm.cubin 4096 4096 4096 2 ) >> $S 2>&1; echo "rc $? ($SECONDS s)" >> $S
done
echo "### sus13 4096^3 alternating" >> $S
( cd build/sus13 && SUSTAIN_ALT=1 timeout 120 ./gemm-sustain exp/kevo_gemm.cubin 4096 4096 4096 2 ) >> $S 2>&1; echo "rc $? ($SECONDS s)" >> $S
echo "### sus13 8192^3 back to back" >> $S
( cd build/sus13 && timeout 120 ./gemm-sustain exp/kevo_gemm.cubin 8192 8192 8192 2 ) >> $S 2>&1; echo "rc $? ($SECONDS s)" >> $S
cat $S
