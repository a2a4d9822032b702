#!/bin/bash
# session 13 H100 call 7 (e2cad60): SK=3 (long K) with the new default
# switches: checks, A/B against SK=3 with the former ones (od3); wgmma.sh
# with its long-K shape; kevo bench bf16 8192^3 for 150 s (does the search
# find SK=2, 1.05x launch by launch in c2?).
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo; V=$PWD/build/c7v
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c7; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT)+variants $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c7.tgz -C $OUT c7 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
for sh in 512x512x32768 1024x1024x16384 768x1024x16384 256x256x131072; do
  ev ab.log 40 $V/od3.cu $V/nd3.cu --ab --pairs 10 --problem gemm --dtype bf16 --shape $sh; done
for sh in 512x512x32768 1024x1024x16384; do ev ab.log 40 $V/od3.cu $V/nd3.cu --ab --pairs 10 --problem gemm --dtype fp16 --shape $sh; done
grep -h "^###\|: ok\|confirm\|pairs:\|^rc " $L/ab.log | grep -v "^  " | sed "s|$V/||g" | cut -c1-200 >> $S
echo "non-ok: $(grep -E '\.cu: [a-z_]+ ' $L/ab.log | grep -vc ': ok ')" >> $S; snap
( cd $BD && OUT=$L/wgmma KEVO=$K timeout 200 sh tests/gpu/wgmma.sh > $L/wgmma.log 2>&1; echo "wgmma.sh rc $? ($SECONDS s)" >> $S )
tail -1 $L/wgmma.log >> $S; cp $L/wgmma/wgmma-summary.txt $L/ 2>/dev/null; rm -rf $L/wgmma; snap
D=$(mktemp -d /tmp/kevo-b.XXXXXX)
( cd $BD && timeout 280 $K bench --case gemm-bf16-8192x8192x8192 --time 150s --runs-dir $D --out $L/bench8 ) > $L/bench8.log 2>&1
echo "bench8 rc=$? ($SECONDS s)" >> $S; cat $L/bench8/*.md 2>/dev/null | grep -E "^\|" >> $S
for r in $D/*/; do n=$(basename $r); cp $r/best.json $L/best-$n.json 2>/dev/null; $K status $r > $L/status-$n.txt 2>&1; zcat -f $r/journal.jsonl* 2>/dev/null | grep -o "\"SK\":[0-9]" | sort | uniq -c > $L/sk-$n.txt; done
snap; tail -c 5000 $S
