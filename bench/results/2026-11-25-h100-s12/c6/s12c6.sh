#!/bin/bash
# session 12 H100 call 6: SK=3 with the reduction shared by the S ranges,
# third version (four groups at a time, eight slots' loads in flight; the
# loop ends after the SK=3 item so no deferred-store registers are live);
# v2 = call 5's version; (sk3_reduce: every range writes its whole tile, per-reader
# flags, each range adds up its 1/S of all S slots; p3 = call 3 version).
# Correctness at many shapes, launch by launch
# against cuBLAS, A/B against the old SK=3 (o3*: owner adds S-1 slots),
# ncu, and 40 s kevo runs on the long-K shapes.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo; V=$PWD/build/c6v
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c6; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT)+sk3_reduce $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c6.tgz -C $OUT c6 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; [ $SECONDS -gt ${LIMIT:-540} ] && { echo "skip $* (time)" >> $L/$log; return; }
  echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
# 1. correctness (and speed) of the new SK=3 points
for sh in 512x512x32768 1024x1024x16384 768x1024x16384 1000x776x8192 300x4000x20000 1024x1024x1024 100x200x64 64x64x64 2048x2048x8192 4096x4096x4096 777x1000x8 128x256x65536 256x256x131072; do
  ev check.log 60 $V/n3.cu $V/n3n.cu $V/n3s.cu $V/n3c1.cu $V/n3l.cu --problem gemm --dtype bf16 --shape $sh; done
for sh in 1024x1024x16384 512x512x32768 1000x776x8192; do
  ev check.log 60 $V/n3.cu $V/n3n.cu $V/n3m2.cu $V/n3e0.cu $V/n3b.cu $V/n3n6.cu --problem gemm --dtype fp16 --shape $sh; done
# 2. launch by launch against cuBLAS, and new vs old
for sh in 512x512x32768 1024x1024x16384 768x1024x16384 256x256x131072; do
  ev pairs.log 90 $V/n3.cu $V/n3n.cu $V/n3s.cu $V/n3n6.cu $V/n3c1.cu $V/n3m2.cu $V/n3k7.cu --problem gemm --dtype bf16 --shape $sh --pairs 10; done
for sh in 512x512x32768 1024x1024x16384 768x1024x16384 256x256x131072; do
  ev ab.log 40 $V/p3.cu $V/n3.cu --ab --pairs 10 --problem gemm --dtype bf16 --shape $sh
  ev ab.log 40 $V/v2.cu $V/n3.cu --ab --pairs 10 --problem gemm --dtype bf16 --shape $sh
  ev ab.log 40 $V/o3.cu $V/n3.cu --ab --pairs 10 --problem gemm --dtype bf16 --shape $sh; done
# 3. ncu
MG=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_active.max,sm__cycles_active.avg,dram__bytes_read.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed
for sh in 512x512x32768 1024x1024x16384; do for n in n3 n3n k3x; do
  echo "### ncu $n $sh ($SECONDS s)" >> $L/ncu.log
  timeout 60 ncu --clock-control base --target-processes all --kernel-name regex:hgemm --launch-count 1 --metrics $MG \
    $K eval $V/$n.cu --problem gemm --dtype bf16 --shape $sh --seed 3 >> $L/ncu.log 2>&1; echo "rc $?" >> $L/ncu.log; done; done
awk '/^### ncu/{t=$3" "$4} /gpu__time|cycles_|dram__|hmma/{print t, $1, $NF}' $L/ncu.log > $L/ncu-short.txt
snap
# 4. 40 s searches
for sh in 512x512x32768 1024x1024x16384; do
  [ $SECONDS -gt 460 ] && break
  D=$(mktemp -d /tmp/kr.XXXX)
  echo "### run $sh ($SECONDS s)" >> $L/runs.log
  ( cd $BD && KEVO_CACHE_DIR=$D/cache timeout 75 $K run --problem gemm --dtype bf16 --shape $sh --time 40s --seed 11 --runs-dir $D --name r --quiet --templates-dir $V/tpl ) >> $L/runs.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/runs.log
  cp $D/r/best.json $L/best-$sh.json 2>/dev/null
  $K status $D/r >> $L/runs.log 2>&1; snap
done
grep -h "^###\|: ok\|: [a-z_]* \|baseline\|confirm\|pairs:\|^rc \|skip\|best" $L/check.log $L/pairs.log $L/ab.log $L/runs.log | grep -v "^  " | cut -c1-200 > $L/short.txt
echo "checks: $(grep -c ': ok ' $L/check.log) ok, non-ok: $(grep -E '\.cu: [a-z_]+ ' $L/check.log | grep -vc ': ok ')" >> $S
snap; tail -c 6000 $L/short.txt
