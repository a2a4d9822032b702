#!/bin/bash
# session 11 H100 call 9: the owner's partials through the stages (bulk
# copy): correctness for SK=1/2/3, and old (493ad25, register loads) vs
# new, SK=3 and SK=2, interleaved and launch by launch.
set -u
NB=$PWD/build/lead-bundle; V0=$PWD/build/v11
L=$OUT/c9; mkdir -p $L; S=$L/summary.txt; V=$(mktemp -d /tmp/v.XXXX)
echo "bundle $(cat $NB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c9.tgz -C $OUT c9 2>/dev/null; }
T=$NB/templates/gemm/hgemm_wgmma.cu
for sk in 0 1 2 3; do sed "s/^\(\/\/ kevo: param SK .*default=\)[0-9]*/\1$sk/" $T > $V/k$sk.cu; done
cp $V0/old3.cu $V/old3.cu; sed "s/^\(\/\/ kevo: param SK .*default=\)[0-9]*/\12/" $V0/old3.cu > $V/old2.cu
ev() { local f=$1 dt=$2 sh=$3; shift 3
  echo "### $f $dt $sh $* ($SECONDS s)" >> $L/check.log
  timeout 60 $NB/kevo eval $V/$f.cu --problem gemm --dtype $dt --shape $sh --seed 7 --timeout-ms 8000 "$@" >> $L/check.log 2>&1
  echo "rc $?" >> $L/check.log; }
for sh in 1024x1024x16384 1000x776x8192 512x512x32768 768x1024x16384 300x4000x20000 100x200x64; do ev k3 bf16 $sh; done
for sh in 4096x4096x4096 8192x8192x8192 1024x1024x16384 1000x776x328 3000x5000x4000; do ev k2 bf16 $sh; done
for sh in 4096x4096x4096 3000x5000x4000 8192x8192x8192; do ev k1 bf16 $sh; done
ev k3 fp16 1024x1024x16384; ev k2 fp16 4096x4096x4096
for p in "CLUSTER=1" "EPO=0 EPI=0" "BK=32 STAGES=6" "BK=32 STAGES=3" "CONSUMERS=1 BM=64 SETREG=0" "BN=128" "CLN=1" "STAGES=2" "BM=256 BN=128"; do
  set -- $(for x in $p; do echo --param $x; done); ev k3 bf16 1000x776x8192 "$@"; ev k2 bf16 3000x5000x4000 "$@"; done
snap
echo "checks: $(grep -c '^rc 0' $L/check.log) rc=0 of $(grep -c '^rc' $L/check.log)" >> $S
grep -E "^###|k[0-9]+.cu:" $L/check.log | paste - - | sed "s|$V/||g" | cut -c1-200 >> $S
ab() { local a=$1 b=$2 dt=$3 sh=$4
  echo "### $a $b $dt $sh ($SECONDS s)" >> $L/ab.log
  timeout 120 $NB/kevo eval $V/$a.cu $V/$b.cu --ab --pairs 20 \
    --problem gemm --dtype $dt --shape $sh --seed 5 --timeout-ms 8000 >> $L/ab.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ab.log; snap; }
ab old3 k3 bf16 1024x1024x16384
ab old3 k3 bf16 512x512x32768
ab old3 k3 bf16 768x1024x16384
ab old2 k2 bf16 8192x8192x8192
ab old2 k2 bf16 4096x4096x4096
ab k0 k2 bf16 4096x4096x4096
grep -v "^  " $L/ab.log | sed "s|$V/||g" | cut -c1-220 >> $S
snap; cat $S
