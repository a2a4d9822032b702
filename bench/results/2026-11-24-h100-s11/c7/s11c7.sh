#!/bin/bash
# session 11 H100 call 7: what a new user gets on smaller and long-K bf16
# GEMMs: `kevo run` 40 s each (seed 11, own empty cache), best vs cuBLAS.
set -u
NB=$PWD/build/lead-bundle
L=$OUT/c7; mkdir -p $L; S=$L/summary.txt
echo "bundle $(cat $NB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c7.tgz -C $OUT c7 2>/dev/null; }
run() { local dt=$1 sh=$2 T=$3; D=$(mktemp -d /tmp/kevo-r.XXXXXX); tag=$dt-$sh
  KEVO_CACHE_DIR=$D/cache timeout 120 $NB/kevo run --problem gemm --dtype $dt --shape $sh --seed 11 --time $T --runs-dir $D \
    --templates-dir $NB/templates --quiet --name r > $L/run-$tag.log 2>&1
  echo "run $tag $T rc=$? ($SECONDS s)" >> $S
  $NB/kevo status $D/r > $L/$tag.status 2>&1; grep -E "evaluations|best|baseline" $L/$tag.status | head -6 >> $S
  $NB/kevo report $D/r > /dev/null 2>&1; cp $D/r/report.md $L/$tag.report.md 2>/dev/null
  gzip -c $D/r/journal.jsonl > $L/$tag.journal.jsonl.gz; rm -rf $D; snap; }
run bf16 1024x1024x1024 40s
run bf16 2048x2048x2048 40s
run bf16 1024x1024x16384 40s
run bf16 512x8192x4096 40s
run fp16 4096x1024x4096 40s
snap; cat $S
