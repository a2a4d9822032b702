#!/bin/bash
# session 12 H100 call 10: odd long-K bf16 shapes (K or N not a multiple of
# 8: hgemm_wgmma cannot run) - every gemm template at its default point
# against cuBLAS, then a 30 s kevo run each.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c10; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c10.tgz -C $OUT c10 2>/dev/null; }
T=$BD/templates/gemm
for sh in 512x512x32767 1000x1000x16383 777x1001x20001; do
  echo "### eval $sh ($SECONDS s)" >> $L/evals.log
  timeout 90 $K eval $T/hgemm_packed.cu $T/hgemm_mma.cu --problem gemm --dtype bf16 --shape $sh --timeout-ms 8000 --pairs 5 >> $L/evals.log 2>&1
  echo "rc $?" >> $L/evals.log; snap; done
for sh in 512x512x32767 1000x1000x16383; do
  D=$(mktemp -d /tmp/kr.XXXX)
  echo "### run $sh ($SECONDS s)" >> $L/runs.log
  ( cd $BD && KEVO_CACHE_DIR=$D/cache timeout 60 $K run --problem gemm --dtype bf16 --shape $sh --time 30s --seed 11 --runs-dir $D --name r --quiet ) >> $L/runs.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/runs.log; $K status $D/r >> $L/runs.log 2>&1; cp $D/r/best.json $L/best-$sh.json 2>/dev/null; snap; done
grep -h "^###\|: ok\|: [a-z_]* \|baseline\|pairs:\|best:" $L/evals.log $L/runs.log | grep -v "^  " | cut -c1-200 >> $S
snap; cat $S
