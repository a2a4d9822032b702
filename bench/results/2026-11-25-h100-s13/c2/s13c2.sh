#!/bin/bash
# session 13 H100 call 2: KREV (a persistent block's odd waves run their k
# slices backwards, so a wave starts on what the last one read last, still
# in L2): DRAM reads under ncu, interleaved A/Bs at bf16/fp16 4096^3 and
# 8192^3, correctness at edge shapes; hgemm_packed SK=1/2 without
# __threadfence (pn*) against 9810121's (po*).
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo; V=$PWD/build/c2v
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c2; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT)+variants $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c2.tgz -C $OUT c2 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; [ $SECONDS -gt ${LIMIT:-560} ] && { echo "skip $* (time)" >> $L/$log; return; }
  echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
G4="--problem gemm --dtype bf16 --shape 4096x4096x4096"; H4="--problem gemm --dtype fp16 --shape 4096x4096x4096"
G8="--problem gemm --dtype bf16 --shape 8192x8192x8192"
for sh in 4096x4096x4096 1000x776x328 3000x5000x4000 2048x6144x1024 64x64x64 777x1000x8 8192x8192x8192; do
  ev check.log 60 $V/kr.cu $V/kr16.cu $V/kra.cu $V/krs2.cu --problem gemm --dtype bf16 --shape $sh; done
ev check.log 60 $V/kr.cu $V/kra.cu --problem gemm --dtype fp16 --shape 4096x4096x4096
MG=gpu__time_duration.sum,sm__cycles_active.max,dram__bytes_read.sum,lts__t_sector_hit_rate.pct
for n in d0 kr kr16 kr4 g16 kra; do echo "### ncu $n" >> $L/ncu.log
  timeout 40 ncu --clock-control base --target-processes all --kernel-name regex:hgemm --launch-count 1 --metrics $MG \
    $K eval $V/$n.cu $G4 --seed 3 >> $L/ncu.log 2>&1; done
awk '/^### ncu/{t=$3} /gpu__time|cycles_|dram__|lts__/{print t, $1, $NF}' $L/ncu.log > $L/ncu-short.txt; snap
ev ab.log 40 $V/d0.cu $V/kr.cu --ab --pairs 30 $G4
ev ab.log 40 $V/d0.cu $V/kr16.cu --ab --pairs 30 $G4
ev ab.log 40 $V/d0.cu $V/kra.cu --ab --pairs 30 $G4
ev ab.log 40 $V/all.cu $V/kra.cu --ab --pairs 30 $G4
ev ab.log 40 $V/all.cu $V/kra16.cu --ab --pairs 30 $G4
ev ab.log 40 $V/kra.cu $V/d0.cu --ab --pairs 30 $G4
ev ab.log 40 $V/d0.cu $V/kra.cu --ab --pairs 30 $H4
ev ab.log 60 $V/d0.cu $V/kra.cu --ab --pairs 20 $G8
ev ab.log 60 $V/s2.cu $V/krs2.cu --ab --pairs 20 $G8
for sh in 4099x4097x4095 2000x2000x8191; do
  ev pk.log 60 $V/po2.cu $V/pn2.cu --ab --pairs 20 --problem gemm --dtype bf16 --shape $sh
  ev pk.log 60 $V/po1.cu $V/pn1.cu --ab --pairs 20 --problem gemm --dtype bf16 --shape $sh; done
for sh in 1000x776x328 777x1001x2001 64x64x64 3001x2999x4001; do ev check.log 60 $V/pn1.cu $V/pn2.cu --problem gemm --dtype bf16 --shape $sh; done
grep -h "^###\|confirm\|pairs:\|^rc \|skip" $L/ab.log $L/pk.log | sed "s|$V/||g" | cut -c1-200 >> $S
echo "checks: $(grep -c ': ok ' $L/check.log) ok, non-ok: $(grep -E '\.cu: [a-z_]+ ' $L/check.log | grep -vc ': ok ')" >> $S
grep -E '\.cu: [a-z_]+ ' $L/check.log | grep -v ': ok ' | cut -c1-200 >> $S
cat $L/ncu-short.txt >> $S; snap; tail -c 7000 $S
