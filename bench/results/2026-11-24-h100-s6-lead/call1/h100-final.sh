#!/bin/bash
# lead H100 call (session 6): the issue-12 bf16/fp16 GEMM bench cases at
# 4585564 (hgemm_packed's new default CLN=1 BT=1 BN=208 GROUP_M=32), then
# hw3's call 2 (hgemm_wgmma LEAN/MCK/EPW A/B and ncu), time-limited
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
O=$OUT/f; mkdir -p $O; S=$O/summary.txt
D=$(mktemp -d /tmp/kevo-f.XXXXXX)
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" > $S
( cd $BD && $K bench --case gemm-bf16-4099x4097x4095 --case gemm-fp16-4099x4097x4095 --case gemm-bf16-4096x4096x4096 --case gemm-fp16-4096x4096x4096 --time 40s --runs-dir $D/bench --out $O/bench ) > $O/bench.log 2>&1
echo "bench rc=$? ($SECONDS s)" >> $S; cat $O/bench/*.md 2>/dev/null | grep -E "^\|" >> $S
for r in $D/bench/*; do [ -d $r ] && $K status $r >> $O/bench-status.txt 2>&1; done
tar czf $OUT/f.tgz -C $OUT f
LIMIT=230 NLIMIT=215 CALL=2 timeout 300 bash bench/results/2026-11-24-h100-s6-wgmma/call.sh > $O/hw3-call2.out 2>&1
echo "hw3 call2 rc=$? ($SECONDS s)" >> $S
cat $S
tar czf $OUT/all.tgz -C $OUT f s6 && rm -rf $OUT/f $OUT/s6 $OUT/f.tgz $OUT/s6.tgz
