#!/bin/bash
# session 11 H100 call 4: hgemm_wgmma TW (tail pieces BN - TW wide).
# (1) correctness at many shapes and points; (2) TW=0 vs TW>0 interleaved
# and launch by launch against cuBLAS.
set -u
NB=$PWD/build/lead-bundle
L=$OUT/c4; mkdir -p $L; S=$L/summary.txt; V=$(mktemp -d /tmp/v.XXXX)
echo "bundle $(cat $NB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c4.tgz -C $OUT c4 2>/dev/null; }
T=$NB/templates/gemm/hgemm_wgmma.cu
for tw in 0 16 24 64 128; do sed "s/^\(\/\/ kevo: param TW .*default=\)[0-9]*/\1$tw/" $T > $V/t$tw.cu; done
ev() { local f=$1 dt=$2 sh=$3; shift 3
  echo "### $f $dt $sh $* ($SECONDS s)" >> $L/check.log
  timeout 60 $NB/kevo eval $V/$f.cu --problem gemm --dtype $dt --shape $sh --seed 7 --timeout-ms 8000 "$@" >> $L/check.log 2>&1
  echo "rc $?" >> $L/check.log; }
for sh in 4096x4096x4096 4000x4096x4096 4096x4000x4096 4096x4096x4160 1000x776x328 2048x2048x8192 777x1000x8 64x64x64; do ev t24 bf16 $sh; done
ev t24 fp16 4096x4096x4096
for sh in 8192x8192x8192 3000x5000x4000 6000x5000x3000 4096x4000x4096; do ev t64 bf16 $sh; ev t128 bf16 $sh; done
for p in "CLUSTER=1" "EPO=0" "EPO=0 EPI=0" "BK=32 STAGES=6" "MCK=1" "CONSUMERS=1 BM=64 SETREG=0" "GROUP_M=1" "GROUP_M=16" "LEAN=1"; do
  set -- $(for x in $p; do echo --param $x; done)
  ev t24 bf16 4096x4096x4096 "$@"; ev t64 bf16 3000x5000x4000 "$@"; done
snap
echo "checks: $(grep -c '^rc 0' $L/check.log) rc=0 of $(grep -c '^rc' $L/check.log)" >> $S
grep -E "^###|t[0-9]+.cu:" $L/check.log | paste - - | grep -v ": ok " | cut -c1-250 >> $S
ab() { local a=$1 b=$2 dt=$3 sh=$4
  echo "### $a $b $dt $sh ($SECONDS s)" >> $L/ab.log
  timeout 120 $NB/kevo eval $V/$a.cu $V/$b.cu --ab --pairs 20 \
    --problem gemm --dtype $dt --shape $sh --seed 5 --timeout-ms 8000 >> $L/ab.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ab.log; snap; }
ab t0 t24 bf16 4096x4096x4096
ab t0 t24 fp16 4096x4096x4096
ab t0 t16 bf16 4096x4096x4096
ab t0 t64 bf16 3000x5000x4000
ab t0 t128 bf16 3000x5000x4000
ab t0 t64 bf16 8192x8192x8192
ab t0 t24 bf16 4096x4096x4096
ab t0 t24 fp16 4096x4096x4096
grep -v "^  " $L/ab.log | sed "s|$V/||g" | cut -c1-220 >> $S
snap; cat $S
