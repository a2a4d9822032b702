#!/bin/bash
# session 13 H100 call 3 (83a60ec: hgemm_wgmma's new default LEAN MCK EPW
# L2P=128 KREV): kevo bench bf16/fp16 4096^3 (60 s) and 8192^3 (45 s);
# tests/gpu/wgmma.sh; interleaved A/Bs new default (nd) against the former
# (od) at other shapes.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo; V=$PWD/build/c3v
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c3; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c3.tgz -C $OUT c3 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; [ $SECONDS -gt ${LIMIT:-570} ] && { echo "skip $* (time)" >> $L/$log; return; }
  echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
D=$(mktemp -d /tmp/kevo-b.XXXXXX)
( cd $BD && timeout 200 $K bench --case gemm-bf16-4096x4096x4096 --case gemm-fp16-4096x4096x4096 --time 60s --runs-dir $D --out $L/bench4 ) > $L/bench4.log 2>&1
echo "bench4 rc=$? ($SECONDS s)" >> $S; cat $L/bench4/*.md 2>/dev/null | grep -E "^\|" >> $S; snap
( cd $BD && timeout 170 $K bench --case gemm-bf16-8192x8192x8192 --case gemm-fp16-8192x8192x8192 --time 45s --runs-dir $D --out $L/bench8 ) > $L/bench8.log 2>&1
echo "bench8 rc=$? ($SECONDS s)" >> $S; cat $L/bench8/*.md 2>/dev/null | grep -E "^\|" >> $S
for r in $D/*/; do n=$(basename $r); cp $r/verify.json $L/verify-$n.json 2>/dev/null; cp $r/best.json $L/best-$n.json 2>/dev/null; done; snap
( cd $BD && OUT=$L/wgmma KEVO=$K timeout 150 sh tests/gpu/wgmma.sh > $L/wgmma.log 2>&1; echo "wgmma.sh rc $? ($SECONDS s)" >> $S )
tail -3 $L/wgmma.log >> $S; rm -rf $L/wgmma/points; snap
for sh in 2048x6144x1024 3000x5000x4000 4096x4096x2048 2048x2048x8192; do
  ev ab.log 40 $V/od.cu $V/nd.cu --ab --pairs 20 --problem gemm --dtype bf16 --shape $sh; done
grep -h "^###\|confirm\|pairs:\|^rc \|skip" $L/ab.log | sed "s|$V/||g" | cut -c1-200 >> $S
snap; tail -c 6000 $S
