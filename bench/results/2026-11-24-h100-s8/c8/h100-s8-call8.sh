#!/bin/bash
# lead H100 call 8 (session 8): gemm-sustain with SUSTAIN_ALT=1 - hgemm_wgmma's
# default and cuBLAS alternating a launch (flush before each), back to back
# and in bursts of 5 pairs after 20 ms idle; bf16 4096^3, 8192^3, 4096^3.
set -u
L=$OUT/c8; mkdir -p $L; S=$L/summary.txt
echo "$(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,clocks.max.sm --format=csv,noheader | head -1)" > $S
cd build/sus3
for s in "4096 4096 4096 2" "8192 8192 8192 2" "4096 4096 4096 2"; do
  echo "### $s" >> $S
  SUSTAIN_ALT=1 timeout 120 ./gemm-sustain exp/kevo_gemm.cubin $s >> $S 2>&1; echo "rc $? ($SECONDS s)" >> $S
done
cat $S
