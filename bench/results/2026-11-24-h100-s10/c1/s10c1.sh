#!/bin/bash
# session 10 H100 call 1: GROUP_M as an int kernel argument and RT from
# blockDim.x in sgemm_warptile (launch-only params). (1) the default point's
# speed, this commit's template against 5042871's, interleaved (--ab) and
# launch by launch against cuBLAS (--pairs 20), four fp32 shapes; (2) the
# template self-test on the GPU with GROUP_M=1 and 16 (args passed by the
# self-test's launcher); (3) one-GPU fp32 GEMM 4096^3 runs with the old
# build and the new, same seed and budget, each with its own empty compile
# cache, in the order old new new old: evaluations/min, compile time.
set -u
NB=$PWD/build/lead-bundle; OB=$PWD/build/old-bundle
L=$OUT/c1; mkdir -p $L /tmp/v; S=$L/summary.txt
echo "new $(cat $NB/COMMIT) old $(cat $OB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1) $(nproc) CPUs" > $S
snap() { tar czf $OUT/c1.tgz -C $OUT c1 2>/dev/null; }
cp $OB/templates/gemm/sgemm_warptile.cu /tmp/v/sgemm_warptile_old.cu
for sh in 4096x4096x4096 6144x2048x3072 6001x5999x6007 384x384x262144; do
  echo "### $sh ($SECONDS s)" >> $L/ab.log
  timeout 100 $NB/kevo eval /tmp/v/sgemm_warptile_old.cu $NB/templates/gemm/sgemm_warptile.cu --ab --pairs 20 \
    --problem gemm --dtype fp32 --shape $sh --seed 5 --timeout-ms 8000 >> $L/ab.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ab.log; snap
done
grep -v "^  " $L/ab.log | sed 's|/work/main/build/lead-bundle/templates/gemm/||' | cut -c1-220 >> $S
echo "### selftest ($SECONDS s)" >> $L/selftest.log
for p in "GROUP_M=1 SPLITK=2 RT=512" "GROUP_M=16 SPLITK=3 RT=128" ""; do
  TPLCC_DIR=/tmp/tplcc timeout 120 scripts/tplcc.sh --no-compile --gpu 700x300x64 templates/gemm/sgemm_warptile.cu BM=64 BN=64 TM=8 TN=8 LN=4 $p >> $L/selftest.log 2>&1
  echo "selftest [$p] rc=$?" >> $L/selftest.log
done
grep -E "verdict|rc=|arg 0" $L/selftest.log >> $S; snap
run() { local tag=$1 B=$2 sh=$3 T=$4; D=$(mktemp -d /tmp/kevo-r.XXXXXX)
  KEVO_CACHE_DIR=$D/cache $B/kevo run --problem gemm --dtype fp32 --shape $sh --seed 11 --time $T --runs-dir $D \
    --templates-dir $B/templates --quiet --name r > $L/run-$tag.log 2>&1
  echo "run $tag $sh $T rc=$? ($SECONDS s)" >> $S
  $B/kevo status $D/r > $L/$tag.status 2>&1; grep -E "evaluations|throughput|best" $L/$tag.status >> $S
  gzip -c $D/r/journal.jsonl > $L/$tag.journal.jsonl.gz; rm -rf $D; snap; }
run old1-4096 $OB 4096x4096x4096 45s
run new1-4096 $NB 4096x4096x4096 45s
run new2-4096 $NB 4096x4096x4096 45s
run old2-4096 $OB 4096x4096x4096 45s
snap
cat $S
