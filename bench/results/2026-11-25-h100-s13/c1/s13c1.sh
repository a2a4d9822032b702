#!/bin/bash
# session 13 H100 call 1: make gpu-test's script at 9810121 (store_pair,
# not GPU-run before), tests/gpu/gemm_families.sh (its SK=4 points, not run
# before), kevo bench gemm-bf16-512x512x32767 (not benched before), then
# interleaved A/Bs at bf16 4096^3 of the four energy levers together
# (all = LEAN=1 MCK=1 EPW=1 L2P=128; ll = LEAN=1 L2P=128) against the
# default d0, and each launch by launch against cuBLAS.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo; V=$PWD/build/c1v
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c1; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c1.tgz -C $OUT c1 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; [ $SECONDS -gt ${LIMIT:-545} ] && { echo "skip $* (time)" >> $L/$log; return; }
  echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
( cd $BD && OUT=$L/gt KEVO=$K timeout 400 bash tests/gpu/run.sh > $L/gpu-test.log 2>&1; echo "gpu-test rc $? ($SECONDS s)" >> $S )
tail -4 $L/gpu-test.log >> $S; rm -rf $L/gt/points 2>/dev/null; snap
( cd $BD && OUT=/tmp/gf KEVO=$K timeout 100 sh tests/gpu/gemm_families.sh ) > $L/gemm-families.log 2>&1
echo "gemm_families rc=$? ($SECONDS s)" >> $S; grep -E "non-ok" $L/gemm-families.log >> $S; cp /tmp/gf/gemm_families.txt $L/ 2>/dev/null; snap
D=$(mktemp -d /tmp/kevo-b.XXXXXX)
( cd $BD && timeout 110 $K bench --case gemm-bf16-512x512x32767 --time 40s --runs-dir $D --out $L/bench ) > $L/bench.log 2>&1
echo "bench rc=$? ($SECONDS s)" >> $S; cat $L/bench/*.md 2>/dev/null | grep -E "^\|" >> $S
for r in $D/*/; do n=$(basename $r); cp $r/verify.json $L/verify-$n.json 2>/dev/null; cp $r/best.json $L/best-$n.json 2>/dev/null; done
snap
G4="--problem gemm --dtype bf16 --shape 4096x4096x4096"
ev ab.log 50 $V/d0.cu $V/all.cu --ab --pairs 20 $G4
ev ab.log 50 $V/all.cu $V/d0.cu --ab --pairs 20 $G4
ev ab.log 50 $V/d0.cu $V/ll.cu --ab --pairs 20 $G4
grep -h "^###\|confirm\|pairs:\|^rc \|skip" $L/ab.log | sed "s|$V/||g" | cut -c1-200 >> $S
snap; tail -c 5000 $S
