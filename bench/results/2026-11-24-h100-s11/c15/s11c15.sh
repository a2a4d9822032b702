#!/bin/bash
# session 11 H100 call 15: ncu --set full of SK=3 and cuBLAS's split-K
# kernel at bf16 512x512x32768 (what holds SK=3 back there).
set -u
NB=$PWD/build/lead-bundle
L=$OUT/c15; mkdir -p $L; S=$L/summary.txt; V=$(mktemp -d /tmp/v.XXXX)
echo "bundle $(cat $NB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c15.tgz -C $OUT c15 2>/dev/null; }
sed "s/^\(\/\/ kevo: param SK .*default=\)[0-9]*/\13/" $NB/templates/gemm/hgemm_wgmma.cu > $V/k3.cu
for kn in hgemm_wgmma nvjet; do
  timeout 150 ncu --set full --clock-control base --target-processes all --kernel-name regex:$kn --launch-skip 1 --launch-count 1 \
    $NB/kevo eval $V/k3.cu --problem gemm --dtype bf16 --shape 512x512x32768 --seed 3 --timeout-ms 8000 > $L/full-$kn.txt 2>&1
  echo "$kn rc=$? ($SECONDS s)" >> $S; snap; done
snap; cat $S
