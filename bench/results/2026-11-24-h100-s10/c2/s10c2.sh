#!/bin/bash
# session 10 H100 call 2: longer one-GPU fp32 GEMM 4096^3 runs (200 s, seed
# 11, own empty compile caches), this commit's build then 5042871's, so the
# searches reach later generations (where mutation children differ from
# their parents in one param, e.g. GROUP_M or RT); then gemm_families.sh.
set -u
NB=$PWD/build/lead-bundle; OB=$PWD/build/old-bundle
L=$OUT/c2; mkdir -p $L; S=$L/summary.txt
echo "new $(cat $NB/COMMIT) old $(cat $OB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1) $(nproc) CPUs" > $S
snap() { tar czf $OUT/c2.tgz -C $OUT c2 2>/dev/null; }
run() { local tag=$1 B=$2 sh=$3 T=$4; D=$(mktemp -d /tmp/kevo-r.XXXXXX)
  KEVO_CACHE_DIR=$D/cache $B/kevo run --problem gemm --dtype fp32 --shape $sh --seed 11 --time $T --runs-dir $D \
    --templates-dir $B/templates --quiet --name r > $L/run-$tag.log 2>&1
  echo "run $tag $sh $T rc=$? ($SECONDS s)" >> $S
  $B/kevo status $D/r > $L/$tag.status 2>&1; grep -E "evaluations|throughput|best" $L/$tag.status >> $S
  gzip -c $D/r/journal.jsonl > $L/$tag.journal.jsonl.gz; rm -rf $D; snap; }
run new-4096 $NB 4096x4096x4096 200s
run old-4096 $OB 4096x4096x4096 200s
( cd $NB && OUT=/tmp/gf KEVO=$NB/kevo timeout 100 sh tests/gpu/gemm_families.sh ) > $L/gemm-families.log 2>&1
echo "gemm_families rc=$? ($SECONDS s)" >> $S; cp /tmp/gf/gemm_families.txt $L/ 2>/dev/null
grep -E "non-ok" $L/gemm-families.log >> $S
snap; cat $S
