#!/bin/bash
# lead H100 call 11 (session 8): make gpu-test (tests/gpu/run.sh) at the final
# commit, with room for its last section; then, if time is left, a 40 s
# one-GPU fp32 GEMM 4096^3 run (launch-only points, twin compiles).
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c11; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | head -1)" > $S
( cd $BD && OUT=/tmp/gt KEVO=$K timeout 520 tests/gpu/run.sh ) > $L/gpu-test.log 2>&1
echo "gpu-test rc=$? $(grep -c '^PASS' /tmp/gt/summary.txt) PASS $(grep -c '^FAIL' /tmp/gt/summary.txt) FAIL ($SECONDS s)" >> $S
grep '^FAIL' /tmp/gt/summary.txt >> $S; cp /tmp/gt/summary.txt $L/gpu-test-summary.txt 2>/dev/null
tar czf $OUT/c11.tgz -C $OUT c11
if false; then
  D=$(mktemp -d /tmp/kevo-r.XXXXXX)
  KEVO_CACHE_DIR=$D/cache timeout 90 $K run --problem gemm --dtype fp32 --shape 4096x4096x4096 --seed 11 --time 40s --runs-dir $D --quiet --name g32 > $L/run-g32.log 2>&1
  echo "run g32 rc=$? ($SECONDS s)" >> $S
  $K status $D/g32 > $L/g32.status 2>&1; grep -E "evaluations:|throughput:" $L/g32.status >> $S
  gzip -c $D/g32/journal.jsonl > $L/g32.journal.jsonl.gz
fi
tar czf $OUT/c11.tgz -C $OUT c11
cat $S
