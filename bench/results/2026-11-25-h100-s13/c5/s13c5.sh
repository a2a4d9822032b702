#!/bin/bash
# session 13 H100 call 5 (a04f6c1, KREV=2 default): kevo bench bf16/fp16
# 4096^3 (90 s a case), tests/gpu/wgmma.sh, tests/gpu/gemm_families.sh.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c5; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c5.tgz -C $OUT c5 2>/dev/null; }
D=$(mktemp -d /tmp/kevo-b.XXXXXX)
( cd $BD && timeout 300 $K bench --case gemm-bf16-4096x4096x4096 --case gemm-fp16-4096x4096x4096 --time 90s --runs-dir $D --out $L/bench4 ) > $L/bench4.log 2>&1
echo "bench4 rc=$? ($SECONDS s)" >> $S; cat $L/bench4/*.md 2>/dev/null | grep -E "^\|" >> $S
for r in $D/*/; do n=$(basename $r); cp $r/verify.json $L/verify-$n.json 2>/dev/null; cp $r/best.json $L/best-$n.json 2>/dev/null; done; snap
( cd $BD && OUT=$L/wgmma KEVO=$K timeout 150 sh tests/gpu/wgmma.sh > $L/wgmma.log 2>&1; echo "wgmma.sh rc $? ($SECONDS s)" >> $S )
tail -1 $L/wgmma.log >> $S; cp $L/wgmma/wgmma-summary.txt $L/ 2>/dev/null; rm -rf $L/wgmma; snap
( cd $BD && OUT=/tmp/gf KEVO=$K timeout 100 sh tests/gpu/gemm_families.sh ) > $L/gemm-families.log 2>&1
echo "gemm_families rc=$? ($SECONDS s)" >> $S; grep -E "non-ok" $L/gemm-families.log >> $S; cp /tmp/gf/gemm_families.txt $L/ 2>/dev/null
snap; tail -c 4000 $S
