#!/bin/bash
# session 10 H100 call 8: hgemm_packed with the SK=2 fix. (1) the three
# SK=2 points that crashed in call 7 (build/v7: the template with those
# defaults), kevo eval at bf16 4099x4097x4095; (2) the one-GPU bf16 run
# at 4099x4097x4095, 50 s, seed 11, own empty cache (call 7's old run is
# the comparison: same seed and budget); (3) gemm_families.sh.
set -u
NB=$PWD/build/lead-bundle
L=$OUT/c8; mkdir -p $L; S=$L/summary.txt
echo "new $(cat $NB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1) $(nproc) CPUs" > $S
snap() { tar czf $OUT/c8.tgz -C $OUT c8 2>/dev/null; }
for f in build/v7/*.cu; do
  timeout 120 $NB/kevo eval $f --problem gemm --dtype bf16 --shape 4099x4097x4095 --seed 5 --timeout-ms 8000 >> $L/evals.log 2>&1
  echo "eval $(basename $f) rc=$?" >> $L/evals.log
done
grep -vE "^#|^  " $L/evals.log | sed 's|/work/main/build/v7/||' | cut -c1-200 >> $S; snap
run() { local tag=$1 B=$2 dt=$3 sh=$4 T=$5; D=$(mktemp -d /tmp/kevo-r.XXXXXX)
  KEVO_CACHE_DIR=$D/cache $B/kevo run --problem gemm --dtype $dt --shape $sh --seed 11 --time $T --runs-dir $D \
    --templates-dir $B/templates --quiet --name r > $L/run-$tag.log 2>&1
  echo "run $tag $dt $sh $T rc=$? ($SECONDS s)" >> $S
  $B/kevo status $D/r > $L/$tag.status 2>&1; grep -E "evaluations|throughput|best" $L/$tag.status >> $S
  gzip -c $D/r/journal.jsonl > $L/$tag.journal.jsonl.gz; rm -rf $D; snap; }
run new-odd $NB bf16 4099x4097x4095 50s
( cd $NB && OUT=/tmp/gf KEVO=$NB/kevo timeout 100 sh tests/gpu/gemm_families.sh ) > $L/gemm-families.log 2>&1
echo "gemm_families rc=$? ($SECONDS s)" >> $S; cp /tmp/gf/gemm_families.txt $L/ 2>/dev/null
grep -E "non-ok" $L/gemm-families.log >> $S
snap; cat $S
