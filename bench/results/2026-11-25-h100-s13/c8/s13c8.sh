#!/bin/bash
# session 13 H100 call 8 (5b5d268): which of the new default switches
# makes SK=3 2 % slower at bf16 256x256x131072 (c7): A/Bs of SK=3 (nd3)
# against it with one switch back (L2P=256, KREV=0, MCK=0, EPW=0,
# LEAN=0); kevo bench on the two bf16 long-K cases (40 s) at the commit.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo; V=$PWD/build/c8v
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c8; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT)+variants $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c8.tgz -C $OUT c8 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
for n in p256 k0 m0 e0 l0; do ev ab.log 40 $V/nd3.cu $V/$n.cu --ab --pairs 10 --problem gemm --dtype bf16 --shape 256x256x131072; done
ev ab.log 40 $V/nd3.cu $V/p256.cu --ab --pairs 10 --problem gemm --dtype bf16 --shape 512x512x32768
grep -h "^###\|confirm\|pairs:\|^rc " $L/ab.log | sed "s|$V/||g" | cut -c1-200 >> $S; snap
D=$(mktemp -d /tmp/kevo-b.XXXXXX)
( cd $BD && timeout 200 $K bench --case gemm-bf16-512x512x32768 --case gemm-bf16-1024x1024x16384 --time 40s --runs-dir $D --out $L/bench ) > $L/bench.log 2>&1
echo "bench rc=$? ($SECONDS s)" >> $S; cat $L/bench/*.md 2>/dev/null | grep -E "^\|" >> $S
for r in $D/*/; do n=$(basename $r); cp $r/best.json $L/best-$n.json 2>/dev/null; done
snap; tail -c 5000 $S
