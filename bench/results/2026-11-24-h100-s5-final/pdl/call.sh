#!/bin/bash
set -u
K=$PWD/build/lead-bundle/kevo; export KEVO_CACHE_DIR=/tmp/kc
H=build/lead-bundle/tests/gpu/harness
mkdir -p $OUT/p
for f in gemm_pdl_ok gemm_pdl_early; do
  for dt in fp32 bf16; do
    $K eval $H/$f.cu --dtype $dt --shape gemm=512x384x257 --timeout-ms 3000 --seed 12345 > $OUT/p/$f-$dt.log 2>&1; echo "$f $dt rc=$?: $(grep "$f.cu:" $OUT/p/$f-$dt.log | head -1)"
  done
done | tee $OUT/p/summary.txt
$K eval $H/gemm_pdl_ok.cu $H/gemm_pdl_early.cu $H/gemm_ok.cu --shape gemm=512x384x257 --seed 777 > $OUT/p/batch.log 2>&1; echo "batch rc=$?" >> $OUT/p/summary.txt
grep -E "\.cu: " $OUT/p/batch.log >> $OUT/p/summary.txt
cat $OUT/p/summary.txt
