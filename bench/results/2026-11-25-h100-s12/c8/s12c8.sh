#!/bin/bash
# session 12 H100 call 8: the flag protocol's fences. nf = no __threadfence
# (bar.sync + st.release.gpu by one thread / ld.acquire.gpu + bar.sync, as
# CUTLASS's generic barrier), fa = fence.acq_rel.gpu instead of fence.sc.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo; V=$PWD/build/c8v
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c8; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT)+variants $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c8.tgz -C $OUT c8 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
G4="--problem gemm --dtype bf16 --shape 4096x4096x4096"
ev ab.log 60 $V/s2.cu $V/s2nf.cu --ab --pairs 20 $G4
ev ab.log 60 $V/s2.cu $V/s2fa.cu --ab --pairs 20 $G4
ev ab.log 60 $V/d0.cu $V/s2nf.cu --ab --pairs 20 $G4
ev ab.log 60 $V/d0.cu $V/s2nf.cu --ab --pairs 20 --problem gemm --dtype bf16 --shape 8192x8192x8192
for sh in 512x512x32768 1024x1024x16384 256x256x131072; do
  ev ab.log 40 $V/n3.cu $V/n3nf.cu --ab --pairs 10 --problem gemm --dtype bf16 --shape $sh
  ev ab.log 40 $V/n3.cu $V/n3fa.cu --ab --pairs 10 --problem gemm --dtype bf16 --shape $sh; done
for sh in 1000x776x328 3000x5000x4000 777x1000x8 64x64x64; do ev check.log 40 $V/s2nf.cu $V/n3nf.cu $V/s2fa.cu $V/n3fa.cu --problem gemm --dtype bf16 --shape $sh; done
MG=gpu__time_duration.sum,sm__cycles_active.max,sm__cycles_active.avg
for n in d0 s2 s2nf s2fa; do echo "### ncu $n" >> $L/ncu.log
  timeout 60 ncu --clock-control base --target-processes all --kernel-name regex:hgemm --launch-count 1 --metrics $MG \
    $K eval $V/$n.cu $G4 --seed 3 >> $L/ncu.log 2>&1; done
awk '/^### ncu/{t=$3} /gpu__time|cycles_/{print t, $1, $NF}' $L/ncu.log > $L/ncu-short.txt
grep -h "^###\|confirm\|pairs:\|^rc " $L/ab.log | sed "s|$V/||g" | cut -c1-170 >> $S
echo "checks: $(grep -c ': ok ' $L/check.log) ok, non-ok: $(grep -E '\.cu: [a-z_]+ ' $L/check.log | grep -vc ': ok ')" >> $S
cat $L/ncu-short.txt >> $S; snap; tail -c 6000 $S
