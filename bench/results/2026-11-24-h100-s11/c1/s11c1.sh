#!/bin/bash
# session 11 H100 call 1: hgemm_wgmma SK=2 (tail stream-K). (1) correctness
# of SK=2 points at many shapes; (2) SK=0 (default) vs SK=2 interleaved and
# launch by launch against cuBLAS; (3) long-K / few-tile shapes.
set -u
NB=$PWD/build/lead-bundle
L=$OUT/c1; mkdir -p $L; S=$L/summary.txt; V=$(mktemp -d /tmp/v.XXXX)
echo "bundle $(cat $NB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1) $(nproc) CPUs" > $S
snap() { tar czf $OUT/c1.tgz -C $OUT c1 2>/dev/null; }
T=$NB/templates/gemm/hgemm_wgmma.cu
sed "s/^\(\/\/ kevo: param SK .*default=\)[0-9]*/\10/" $T > $V/wg0.cu
sed "s/^\(\/\/ kevo: param SK .*default=\)[0-9]*/\12/" $T > $V/wg2.cu
ev() { local dt=$1 sh=$2; shift 2
  echo "### $dt $sh $* ($SECONDS s)" >> $L/check.log
  timeout 60 $NB/kevo eval $V/wg2.cu --problem gemm --dtype $dt --shape $sh --seed 7 --timeout-ms 8000 "$@" >> $L/check.log 2>&1
  echo "rc $?" >> $L/check.log; }
for sh in 4096x4096x4096 8192x8192x8192 1000x1000x1000 1024x1024x16384 2048x6144x1024 3000x5000x4000 4096x4096x64 64x64x64 1000x776x328 777x1000x8 4096x4096x4160; do ev bf16 $sh; done
for sh in 4096x4096x4096 1000x776x328 1024x1024x16384; do ev fp16 $sh; done
for p in "CLUSTER=1" "CLN=1" "BK=32 STAGES=6" "EPO=0" "EPO=0 EPI=0" "CONSUMERS=1 BM=64 SETREG=0" "BM=256 BN=128" "BN=128"; do
  set -- $(for x in $p; do echo --param $x; done)
  ev bf16 3000x5000x4000 "$@"; ev bf16 1000x776x328 "$@"; done
snap
grep -E "^(###|rc)|ok|wrong|crash|timeout|error" $L/check.log | grep -v "^\s*$" | cut -c1-200 > $L/check-short.txt
echo "checks: $(grep -c '^rc 0' $L/check.log) rc=0 of $(grep -c '^rc' $L/check.log)" >> $S
ab() { local dt=$1 sh=$2
  echo "### $dt $sh ($SECONDS s)" >> $L/ab.log
  timeout 120 $NB/kevo eval $V/wg0.cu $V/wg2.cu --ab --pairs 20 \
    --problem gemm --dtype $dt --shape $sh --seed 5 --timeout-ms 8000 >> $L/ab.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ab.log; snap; }
ab bf16 4096x4096x4096
ab fp16 4096x4096x4096
ab bf16 8192x8192x8192
ab bf16 1024x1024x16384
ab bf16 2048x2048x8192
ab bf16 3000x5000x4000
ab bf16 4096x4096x4096
grep -v "^  " $L/ab.log | cut -c1-220 >> $S
snap; cat $S
