#!/bin/bash
# lead H100 call 5 (session 7): make gpu-test (tests/gpu/run.sh) and tests/gpu/gemm_families.sh
# at the final commit (NVRTC -no-cache, hgemm_packed exclusions, stream-K regression points)
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
O=$OUT/g; mkdir -p $O; S=$O/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" > $S
( cd $BD && OUT=/tmp/gt KEVO=$K timeout 330 tests/gpu/run.sh ) > $O/gpu-test.log 2>&1
echo "gpu-test rc=$? $(grep -c '^PASS' /tmp/gt/summary.txt) PASS $(grep -c '^FAIL' /tmp/gt/summary.txt) FAIL ($SECONDS s)" >> $S
grep '^FAIL' /tmp/gt/summary.txt >> $S
cp /tmp/gt/summary.txt $O/gpu-test-summary.txt 2>/dev/null
tail -2 $O/gpu-test.log >> $S
tar czf $OUT/g.tgz -C $OUT g
( cd $BD && OUT=/tmp/gf KEVO=$K timeout 200 sh tests/gpu/gemm_families.sh ) > $O/gemm-families.log 2>&1
echo "gemm_families rc=$? ($SECONDS s)" >> $S
cp /tmp/gf/gemm_families.txt $O/ 2>/dev/null
grep -E "hgemm_packed|non-ok" $O/gemm-families.log >> $S
du -sh ~/.nv/ComputeCache 2>/dev/null >> $S
cat $S
tar czf $OUT/g.tgz -C $OUT g && rm -rf $OUT/g
