#!/bin/bash
# session 9 H100 call 3: sgemm_warptile with the BVEC fact alone. (1) its
# default point against a0387a5's, launch by launch against cuBLAS (--pairs
# 20) and interleaved (--ab), aligned and N % 4 != 0 shapes; (2) one-GPU
# fp32 GEMM runs at 6001x5999x6007 with the old build and this one, same
# seed and budget, own empty compile caches (evaluations/min, compile ms);
# (3) kevo bench, the four fp32 issue-12 cases, 40 s each.
set -u
NB=$PWD/build/lead-bundle; OB=$PWD/build/old-bundle
L=$OUT/c3; mkdir -p $L /tmp/v; S=$L/summary.txt
echo "new $(cat $NB/COMMIT) old $(cat $OB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1) $(nproc) CPUs" > $S
snap() { tar czf $OUT/c3.tgz -C $OUT c3 2>/dev/null; }
cp $OB/templates/gemm/sgemm_warptile.cu /tmp/v/sgemm_warptile_old.cu
for sh in 4096x4096x4096 6001x5999x6007 4096x4096x4095; do
  echo "### $sh ($SECONDS s)" >> $L/ab.log
  timeout 120 $NB/kevo eval /tmp/v/sgemm_warptile_old.cu $NB/templates/gemm/sgemm_warptile.cu --ab --pairs 20 \
    --problem gemm --dtype fp32 --shape $sh --seed 5 --timeout-ms 8000 >> $L/ab.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ab.log; snap
done
grep -v "^  " $L/ab.log | sed 's|/work/main/build/lead-bundle/templates/gemm/||' | cut -c1-200 >> $S
run() { local tag=$1 B=$2 sh=$3 T=$4; D=$(mktemp -d /tmp/kevo-r.XXXXXX)
  KEVO_CACHE_DIR=$D/cache $B/kevo run --problem gemm --dtype fp32 --shape $sh --seed 11 --time $T --runs-dir $D \
    --templates-dir $B/templates --quiet --name r > $L/run-$tag.log 2>&1
  echo "run $tag $sh $T rc=$? ($SECONDS s)" >> $S
  $B/kevo status $D/r > $L/$tag.status 2>&1; grep -E "evaluations|throughput|best" $L/$tag.status >> $S
  gzip -c $D/r/journal.jsonl > $L/$tag.journal.jsonl.gz; rm -rf $D; snap; }
run old-6001 $OB 6001x5999x6007 45s
run new-6001 $NB 6001x5999x6007 45s
D=$(mktemp -d /tmp/kevo-b.XXXXXX)
( cd $NB && KEVO_CACHE_DIR=$D/cache timeout 330 ./kevo bench --case gemm-fp32-4096x4096x4096 --case gemm-fp32-6144x2048x3072 \
   --case gemm-fp32-6001x5999x6007 --case gemm-fp32-384x384x262144 --time 40s --runs-dir $D/runs --out $L/bench ) > $L/bench.log 2>&1
echo "bench rc=$? ($SECONDS s)" >> $S
grep -E "^\|" $L/bench.log >> $S
for c in $D/runs/*/; do n=$(basename $c); cp $c/verify.json $L/verify-$n.json 2>/dev/null; cp $c/best.json $L/best-$n.json 2>/dev/null; done
snap; cat $S
