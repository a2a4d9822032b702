#!/bin/bash
# session 11 H100 call 12: make gpu-test (tests/gpu/run.sh) at this commit,
# then tests/gpu/wgmma.sh (SK=2 and SK=3 points).
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
L=$OUT/c12; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c12.tgz -C $OUT c12 2>/dev/null; }
( cd $BD && OUT=/tmp/gt KEVO=$K timeout 430 tests/gpu/run.sh ) > $L/gpu-test.log 2>&1
echo "gpu-test rc=$? $(grep -c '^PASS' /tmp/gt/summary.txt) PASS $(grep -c '^FAIL' /tmp/gt/summary.txt) FAIL ($SECONDS s)" >> $S
grep '^FAIL' /tmp/gt/summary.txt >> $S; cp /tmp/gt/summary.txt $L/gpu-test-summary.txt 2>/dev/null
gzip -f $L/gpu-test.log; snap
( cd $BD && OUT=/tmp/wg KEVO=$K timeout 150 sh tests/gpu/wgmma.sh ) > $L/wgmma.log 2>&1
echo "wgmma.sh rc=$? ($SECONDS s)" >> $S; cat /tmp/wg/wgmma-summary.txt >> $S 2>/dev/null; snap
run() { local dt=$1 sh=$2 T=$3; D=$(mktemp -d /tmp/kevo-r.XXXXXX); tag=$dt-$sh
  KEVO_CACHE_DIR=$D/cache timeout 90 $K run --problem gemm --dtype $dt --shape $sh --seed 11 --time $T --runs-dir $D \
    --templates-dir $BD/templates --quiet --name r > $L/run-$tag.log 2>&1
  echo "run $tag $T rc=$? ($SECONDS s)" >> $S
  $K status $D/r > $L/$tag.status 2>&1; grep -E "evaluations|best" $L/$tag.status | head -3 >> $S
  gzip -c $D/r/journal.jsonl > $L/$tag.journal.jsonl.gz; rm -rf $D; snap; }
snap; cat $S
