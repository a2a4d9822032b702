#!/bin/bash
# session 10 H100 call 5: make gpu-test (tests/gpu/run.sh) at this commit.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
L=$OUT/c5; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c5.tgz -C $OUT c5 2>/dev/null; }
( cd $BD && OUT=/tmp/gt KEVO=$K timeout 420 tests/gpu/run.sh ) > $L/gpu-test.log 2>&1
echo "gpu-test rc=$? $(grep -c '^PASS' /tmp/gt/summary.txt) PASS $(grep -c '^FAIL' /tmp/gt/summary.txt) FAIL ($SECONDS s)" >> $S
grep '^FAIL' /tmp/gt/summary.txt >> $S; cp /tmp/gt/summary.txt $L/gpu-test-summary.txt 2>/dev/null
gzip -f $L/gpu-test.log
snap; cat $S
