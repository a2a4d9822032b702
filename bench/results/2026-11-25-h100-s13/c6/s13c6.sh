#!/bin/bash
# session 13 H100 call 6 (a04f6c1): C's TMA stores with an L2 evict_first
# policy (cef) against the default (k2, KREV=2): DRAM under ncu and
# interleaved A/Bs; then make gpu-test's script at the commit.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo; V=$PWD/build/c6v
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c6; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT)+variants $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c6.tgz -C $OUT c6 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
G4="--problem gemm --dtype bf16 --shape 4096x4096x4096"
for sh in 4096x4096x4096 1000x776x328 64x64x64; do ev check.log 60 $V/cef.cu --problem gemm --dtype bf16 --shape $sh; done
MG=gpu__time_duration.sum,sm__cycles_active.max,dram__bytes_read.sum,dram__bytes_write.sum
for n in k2 cef; do echo "### ncu $n" >> $L/ncu.log
  timeout 40 ncu --clock-control base --target-processes all --kernel-name regex:hgemm --launch-count 1 --metrics $MG \
    $K eval $V/$n.cu $G4 --seed 3 >> $L/ncu.log 2>&1; done
awk '/^### ncu/{t=$2" "$3} /gpu__time|cycles_|dram__/{print t, $1, $NF}' $L/ncu.log > $L/ncu-short.txt; snap
ev ab.log 40 $V/k2.cu $V/cef.cu --ab --pairs 30 $G4
ev ab.log 40 $V/cef.cu $V/k2.cu --ab --pairs 30 $G4
ev ab.log 40 $V/k2.cu $V/cef.cu --ab --pairs 30 --problem gemm --dtype fp16 --shape 4096x4096x4096
ev ab.log 60 $V/k2.cu $V/cef.cu --ab --pairs 20 --problem gemm --dtype bf16 --shape 8192x8192x8192
grep -h "^###\|confirm\|pairs:\|^rc " $L/ab.log | sed "s|$V/||g" | cut -c1-200 >> $S
echo "checks: $(grep -c ': ok ' $L/check.log) ok, non-ok: $(grep -E '\.cu: [a-z_]+ ' $L/check.log | grep -vc ': ok ')" >> $S
cat $L/ncu-short.txt >> $S; snap
( cd $BD && OUT=$L/gt KEVO=$K timeout 420 bash tests/gpu/run.sh > $L/gpu-test.log 2>&1; echo "gpu-test rc $? ($SECONDS s)" >> $S )
tail -4 $L/gpu-test.log >> $S; rm -rf $L/gt; snap; tail -c 5000 $S
