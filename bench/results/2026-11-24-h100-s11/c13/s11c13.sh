#!/bin/bash
# session 11 H100 call 13: gemm_families.sh; `kevo bench` bf16 4096^3
# (60 s, then verify); 40 s runs on long-K bf16 shapes (as c7: seed 11,
# own empty cache) to compare with c7's (before SK=3).
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
L=$OUT/c13; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c13.tgz -C $OUT c13 2>/dev/null; }
( cd $BD && OUT=/tmp/gf KEVO=$K timeout 130 sh tests/gpu/gemm_families.sh ) > $L/gemm-families.log 2>&1
echo "gemm_families rc=$? ($SECONDS s)" >> $S; grep -E "non-ok" $L/gemm-families.log >> $S; cp /tmp/gf/gemm_families.txt $L/ 2>/dev/null; snap
run() { local dt=$1 sh=$2 T=$3; D=$(mktemp -d /tmp/kevo-r.XXXXXX); tag=$dt-$sh
  KEVO_CACHE_DIR=$D/cache timeout 90 $K run --problem gemm --dtype $dt --shape $sh --seed 11 --time $T --runs-dir $D \
    --templates-dir $BD/templates --quiet --name r > $L/run-$tag.log 2>&1
  echo "run $tag $T rc=$? ($SECONDS s)" >> $S
  $K status $D/r > $L/$tag.status 2>&1; grep -E "evaluations|best" $L/$tag.status | head -3 >> $S
  gzip -c $D/r/journal.jsonl > $L/$tag.journal.jsonl.gz; rm -rf $D; snap; }
run bf16 1024x1024x16384 40s
run bf16 768x1024x16384 40s
D=$(mktemp -d /tmp/kevo-b.XXXXXX)
( cd $BD && KEVO_CACHE_DIR=$D/cache timeout 200 $K bench --case gemm-bf16-4096x4096x4096 --time 60s --runs-dir $D/runs --out $L/bench ) > $L/bench.log 2>&1
echo "bench rc=$? ($SECONDS s)" >> $S; cat $L/bench/*.md 2>/dev/null | grep -E "^\|" >> $S
snap; cat $S
