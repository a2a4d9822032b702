#!/bin/bash
# session 13 H100 call 4: KREV=2 (odd GROUP_M groups also sweep the N
# tiles backwards, so every wave shares A or B with the one before it)
# against KREV=1 (k1, the new default): DRAM under ncu, interleaved A/Bs,
# correctness.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo; V=$PWD/build/c4v
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c4; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT)+variants $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c4.tgz -C $OUT c4 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; [ $SECONDS -gt ${LIMIT:-540} ] && { echo "skip $* (time)" >> $L/$log; return; }
  echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
G4="--problem gemm --dtype bf16 --shape 4096x4096x4096"
for sh in 4096x4096x4096 1000x776x328 3000x5000x4000 64x64x64 8192x8192x8192; do
  ev check.log 60 $V/k2.cu $V/k2g4.cu $V/k2g16.cu --problem gemm --dtype bf16 --shape $sh; done
MG=gpu__time_duration.sum,sm__cycles_active.max,dram__bytes_read.sum
for n in k1 k2 k2g4 k2g16 k1g4; do echo "### ncu $n" >> $L/ncu.log
  timeout 40 ncu --clock-control base --target-processes all --kernel-name regex:hgemm --launch-count 1 --metrics $MG \
    $K eval $V/$n.cu $G4 --seed 3 >> $L/ncu.log 2>&1; done
for n in k1 k2; do echo "### ncu8 $n" >> $L/ncu.log
  timeout 40 ncu --clock-control base --target-processes all --kernel-name regex:hgemm --launch-count 1 --metrics $MG \
    $K eval $V/$n.cu --problem gemm --dtype bf16 --shape 8192x8192x8192 --seed 3 >> $L/ncu.log 2>&1; done
awk '/^### ncu/{t=$2" "$3} /gpu__time|cycles_|dram__/{print t, $1, $NF}' $L/ncu.log > $L/ncu-short.txt; snap
ev ab.log 40 $V/k1.cu $V/k2.cu --ab --pairs 30 $G4
ev ab.log 40 $V/k2.cu $V/k1.cu --ab --pairs 30 $G4
ev ab.log 40 $V/k1.cu $V/k2g4.cu --ab --pairs 30 $G4
ev ab.log 40 $V/k1.cu $V/k2g16.cu --ab --pairs 30 $G4
ev ab.log 40 $V/k1.cu $V/k2.cu --ab --pairs 30 --problem gemm --dtype fp16 --shape 4096x4096x4096
ev ab.log 60 $V/k1.cu $V/k2.cu --ab --pairs 20 --problem gemm --dtype bf16 --shape 8192x8192x8192
ev ab.log 40 $V/k1.cu $V/k2.cu --ab --pairs 20 --problem gemm --dtype bf16 --shape 3000x5000x4000
grep -h "^###\|confirm\|pairs:\|^rc \|skip" $L/ab.log | sed "s|$V/||g" | cut -c1-200 >> $S
echo "checks: $(grep -c ': ok ' $L/check.log) ok, non-ok: $(grep -E '\.cu: [a-z_]+ ' $L/check.log | grep -vc ': ok ')" >> $S
grep -E '\.cu: [a-z_]+ ' $L/check.log | grep -v ': ok ' | cut -c1-200 >> $S
cat $L/ncu-short.txt >> $S; snap; tail -c 7000 $S
