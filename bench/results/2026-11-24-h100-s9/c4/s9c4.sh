#!/bin/bash
# session 9 H100 call 4: make gpu-test (tests/gpu/run.sh) and
# tests/gpu/gemm_families.sh at ff6517e (the shape-fact code).
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
L=$OUT/c4; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c4.tgz -C $OUT c4 2>/dev/null; }
( cd $BD && OUT=/tmp/gt KEVO=$K timeout 360 tests/gpu/run.sh ) > $L/gpu-test.log 2>&1
echo "gpu-test rc=$? $(grep -c '^PASS' /tmp/gt/summary.txt) PASS $(grep -c '^FAIL' /tmp/gt/summary.txt) FAIL ($SECONDS s)" >> $S
grep '^FAIL' /tmp/gt/summary.txt >> $S; cp /tmp/gt/summary.txt $L/gpu-test-summary.txt 2>/dev/null
snap
( cd $BD && OUT=/tmp/gf KEVO=$K timeout 120 sh tests/gpu/gemm_families.sh ) > $L/gemm-families.log 2>&1
echo "gemm_families rc=$? ($SECONDS s)" >> $S; cp /tmp/gf/gemm_families.txt $L/ 2>/dev/null
grep -E "non-ok" $L/gemm-families.log >> $S
snap; cat $S
