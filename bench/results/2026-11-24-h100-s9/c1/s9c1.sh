#!/bin/bash
# session 9 H100 call 1: shape facts in sgemm_warptile. (1) the kernel's
# speed: the template at a0387a5 ("old", three main loops) against this
# commit's ("new", facts) at the default point, interleaved (--ab) and each
# launch by launch against cuBLAS (--pairs 20), four fp32 shapes; (2) a
# one-GPU fp32 GEMM run with the old build and the new, same seed and
# budget, each with its own empty compile cache: evaluations/min, compile
# time, worker idle.
set -u
NB=$PWD/build/lead-bundle; OB=$PWD/build/old-bundle
L=$OUT/c1; mkdir -p $L /tmp/v; S=$L/summary.txt
echo "new $(cat $NB/COMMIT) old $(cat $OB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1) $(nproc) CPUs" > $S
snap() { tar czf $OUT/c1.tgz -C $OUT c1 2>/dev/null; }
cp $OB/templates/gemm/sgemm_warptile.cu /tmp/v/sgemm_warptile_old.cu
for sh in 4096x4096x4096 6144x2048x3072 6001x5999x6007 384x384x262144; do
  echo "### $sh ($SECONDS s)" >> $L/ab.log
  timeout 90 $NB/kevo eval /tmp/v/sgemm_warptile_old.cu $NB/templates/gemm/sgemm_warptile.cu --ab --pairs 20 \
    --problem gemm --dtype fp32 --shape $sh --seed 5 --timeout-ms 8000 >> $L/ab.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ab.log; snap
done
grep -v "^  " $L/ab.log | cut -c1-200 >> $S
run() { local tag=$1 B=$2 sh=$3 T=$4; D=$(mktemp -d /tmp/kevo-r.XXXXXX)
  KEVO_CACHE_DIR=$D/cache $B/kevo run --problem gemm --dtype fp32 --shape $sh --seed 11 --time $T --runs-dir $D --quiet --name r > $L/run-$tag.log 2>&1
  echo "run $tag $sh $T rc=$? ($SECONDS s)" >> $S
  $B/kevo status $D/r > $L/$tag.status 2>&1; grep -E "evaluations|throughput|best" $L/$tag.status >> $S
  gzip -c $D/r/journal.jsonl > $L/$tag.journal.jsonl.gz; rm -rf $D; snap; }
run old-4096 $OB 4096x4096x4096 60s
run new-4096 $NB 4096x4096x4096 60s
run new-6001 $NB 6001x5999x6007 45s
run old-6001 $OB 6001x5999x6007 45s
snap
cat $S
