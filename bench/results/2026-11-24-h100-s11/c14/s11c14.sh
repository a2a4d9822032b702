#!/bin/bash
# session 11 H100 call 14: SK=3 with the reduction shared over the S
# ranges, loads of all ranges at once: correctness; old (493ad25: the last range adds all) vs new.
set -u
NB=$PWD/build/lead-bundle; V0=$PWD/build/v11
L=$OUT/c14; mkdir -p $L; S=$L/summary.txt; V=$(mktemp -d /tmp/v.XXXX)
echo "bundle $(cat $NB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c14.tgz -C $OUT c14 2>/dev/null; }
T=$NB/templates/gemm/hgemm_wgmma.cu
sed "s/^\(\/\/ kevo: param SK .*default=\)[0-9]*/\13/" $T > $V/k3.cu; cp $V0/old3.cu $V/old3.cu
sm() { local f=$1; shift; for kv in BM=64 BN=128 CONSUMERS=1 STAGES=6 GROUP_M=16 PERSIST=1 SETREG=0 CLUSTER=2 EPO=0 LEAN=1 MCK=1 EPW=1 L2P=64 "$@"; do
  n=${kv%%=*}; v=${kv##*=}; sed -i "s/^\(\/\/ kevo: param $n .*default=\)[0-9]*/\1$v/" $f; done; }
cp $V/k3.cu $V/s3.cu; sm $V/s3.cu; cp $V/old3.cu $V/olds3.cu; sm $V/olds3.cu
ev() { local f=$1 dt=$2 sh=$3; shift 3
  echo "### $f $dt $sh $* ($SECONDS s)" >> $L/check.log
  timeout 60 $NB/kevo eval $V/$f.cu --problem gemm --dtype $dt --shape $sh --seed 7 --timeout-ms 8000 "$@" >> $L/check.log 2>&1
  echo "rc $?" >> $L/check.log; }
for sh in 1024x1024x16384 1000x776x8192 512x512x32768 768x1024x16384 300x4000x20000 100x200x64 64x64x2048 200x3000x100000 2048x2048x8192; do ev k3 bf16 $sh; done
ev k3 fp16 1024x1024x16384; ev k3 fp16 512x512x32768
for p in "CLUSTER=1" "EPO=0 EPI=0" "BK=32 STAGES=6" "CONSUMERS=1 BM=64 SETREG=0" "BN=128" "CLN=1" "BM=256 BN=128" "BN=128 BM=64 CONSUMERS=1 SETREG=0 CLUSTER=1"; do
  set -- $(for x in $p; do echo --param $x; done); ev k3 bf16 1000x776x8192 "$@"; ev k3 bf16 512x512x32768 "$@"; done
ev s3 bf16 512x1024x16384; ev s3 bf16 256x256x65536
snap
echo "checks: $(grep -c '^rc 0' $L/check.log) rc=0 of $(grep -c '^rc' $L/check.log)" >> $S
grep -E "^###|[a-z0-9]+.cu:" $L/check.log | paste - - | sed "s|$V/||g" | cut -c1-200 >> $S
ab() { local a=$1 b=$2 dt=$3 sh=$4
  echo "### $a $b $dt $sh ($SECONDS s)" >> $L/ab.log
  timeout 120 $NB/kevo eval $V/$a.cu $V/$b.cu --ab --pairs 20 \
    --problem gemm --dtype $dt --shape $sh --seed 5 --timeout-ms 8000 >> $L/ab.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ab.log; snap; }
ab old3 k3 bf16 1024x1024x16384
ab old3 k3 bf16 512x512x32768
ab old3 k3 bf16 768x1024x16384
ab olds3 s3 bf16 512x1024x16384
ab old3 k3 fp16 1024x1024x16384
grep -v "^  " $L/ab.log | sed "s|$V/||g" | cut -c1-220 >> $S
snap; cat $S
