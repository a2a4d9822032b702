#!/bin/bash
# lead call C: the GPU suite at the final code commit, and two points
set -u
BD=$PWD/build/lead-bundle
K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
mkdir -p $OUT/c
S=$OUT/c/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ)" > $S
$K doctor > $OUT/c/doctor.log 2>&1; echo "doctor rc=$?" >> $S
( cd $BD && OUT=/tmp/gt KEVO=$K timeout 300 tests/gpu/run.sh ) > $OUT/c/gpu-test.log 2>&1
echo "gpu-test rc=$? $(grep -c '^PASS' /tmp/gt/summary.txt) PASS $(grep -c '^FAIL' /tmp/gt/summary.txt) FAIL" >> $S
grep '^FAIL' /tmp/gt/summary.txt >> $S
cp /tmp/gt/summary.txt $OUT/c/gpu-test-summary.txt 2>/dev/null
$K eval $BD/templates/gemm/sgemm_warptile.cu --problem gemm --dtype fp32 --shape 384x384x262144 \
   --param BM=128 --param BN=128 --param TM=16 --param TN=8 --param LN=8 --param MINB=2 > $OUT/c/longk.log 2>&1
for v in "8 96" "16 96" "16 64"; do set -- $v
  echo "### CL=$1 SMK=$2" >> $OUT/c/cl16.log
  $K eval $BD/templates/softmax/softmax_unit.cu --problem softmax --dtype fp32 --shape 256x400000 \
     --param CL=$1 --param THREADS=512 --param REG=4 --param SMK=$2 --param MINB=2 --param ASYNC=1 --param UNROLL=1 >> $OUT/c/cl16.log 2>&1
done
grep -h "ok \|wrong\|cheat\|error\|crashed\|###\|baseline" $OUT/c/longk.log $OUT/c/cl16.log | cut -c1-200 >> $S
tar czf $OUT/c/gt.tgz -C /tmp/gt . 2>/dev/null
