#!/bin/bash
# session 13 H100 call 9: KREV in hgemm_packed (odd shapes): DRAM under
# ncu, interleaved A/Bs against the default (p0), correctness.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo; V=$PWD/build/c9v
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c9; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT)+variants $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c9.tgz -C $OUT c9 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
G="--problem gemm --dtype bf16 --shape 4099x4097x4095"
for sh in 4099x4097x4095 1000x776x328 777x1001x2001 64x64x64 6001x5999x6007; do
  ev check.log 60 $V/p1.cu $V/p2.cu $V/p2g8.cu --problem gemm --dtype bf16 --shape $sh; done
ev check.log 60 $V/p1.cu $V/p2.cu --problem gemm --dtype fp16 --shape 4099x4097x4095
MG=gpu__time_duration.sum,dram__bytes_read.sum
for n in p0 p1 p2 p2g8 p0g8; do echo "### ncu $n" >> $L/ncu.log
  timeout 40 ncu --clock-control base --target-processes all --kernel-name hgemm_packed --launch-count 1 --metrics $MG \
    $K eval $V/$n.cu $G --seed 3 >> $L/ncu.log 2>&1; done
awk '/^### ncu/{t=$2" "$3} /gpu__time|dram__/{print t, $1, $(NF-1), $NF}' $L/ncu.log > $L/ncu-short.txt; snap
ev ab.log 40 $V/p0.cu $V/p1.cu --ab --pairs 20 $G
ev ab.log 40 $V/p0.cu $V/p2.cu --ab --pairs 20 $G
ev ab.log 40 $V/p2.cu $V/p0.cu --ab --pairs 20 $G
ev ab.log 40 $V/p0.cu $V/p2g8.cu --ab --pairs 20 $G
ev ab.log 40 $V/p0.cu $V/p2.cu --ab --pairs 20 --problem gemm --dtype fp16 --shape 4099x4097x4095
ev ab.log 60 $V/p0.cu $V/p2.cu --ab --pairs 20 --problem gemm --dtype bf16 --shape 6001x5999x6007
ev ab.log 60 $V/p0.cu $V/p2.cu --ab --pairs 10 --problem gemm --dtype bf16 --shape 8191x8193x8195
grep -h "^###\|confirm\|pairs:\|^rc " $L/ab.log | sed "s|$V/||g" | cut -c1-200 >> $S
echo "verdicts: $(grep -cE '\.cu: ok ' $L/check.log) ok, $(grep -E '^/.*\.cu: [a-z_]+ ' $L/check.log | grep -vc ': ok ') other" >> $S
grep -E '^/.*\.cu: [a-z_]+ ' $L/check.log | grep -v ': ok ' | cut -c1-200 >> $S
cat $L/ncu-short.txt >> $S; snap; tail -c 6000 $S
