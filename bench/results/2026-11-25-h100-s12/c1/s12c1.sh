#!/bin/bash
# session 12 H100 call 1: hgemm_wgmma L2 eviction hints (L2A, L2B, L2C) at
# bf16/fp16 4096^3: DRAM bytes under ncu, persistence across kevo's flush
# (ncu --cache-control none), evals and interleaved A/B against the default.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c1; mkdir -p $L /tmp/v; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c1.tgz -C $OUT c1 2>/dev/null; }
var() { local name=$1; shift; local f=/tmp/v/$name.cu; cp $BD/templates/gemm/hgemm_wgmma.cu $f
  for p in "$@"; do k=${p%%=*}; v=${p#*=}
    grep -q "^// kevo: param $k " $f || echo "NO PARAM $k in $name" >> $S
    sed -i -E "s/^(\/\/ kevo: param $k .*default=)[0-9]+/\1$v/" $f; done; }
ev() { local log=$1 to=$2; shift 2; [ $SECONDS -gt ${LIMIT:-480} ] && { echo "skip $* (time)" >> $L/$log; return; }
  echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
V=/tmp/v; G4="--problem gemm --shape 4096x4096x4096"
var d0; var a1 L2A=1; var a2 L2A=2; var b1 L2B=1; var b2 L2B=2; var c1 L2C=1; var c2 L2C=2
var a1c2 L2A=1 L2C=2; var b2c2 L2B=2 L2C=2; var a1b2 L2A=1 L2B=2; var a1b2c2 L2A=1 L2B=2 L2C=2; var a2b1 L2A=2 L2B=1
var mx L2A=1 L2B=2 L2C=2 MCK=1 EPW=1
ALL="d0 a1 a2 b1 b2 c1 c2 a1c2 b2c2 a1b2 a1b2c2 a2b1"
# 1. ncu: DRAM, L2 hit, time (ncu's own cache flush before the launch)
MG=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex.sum
nc() { local tag=$1 kn=$2 f=$3 dt=$4; shift 4
  echo "### ncu $tag $dt $* ($SECONDS s)" >> $L/ncu.log
  timeout 60 ncu --clock-control base --target-processes all --kernel-name regex:$kn "$@" \
    $K eval $f --problem gemm --dtype $dt --shape 4096x4096x4096 --seed 3 >> $L/ncu.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ncu.log; snap; }
nc nvjet nvjet $V/d0.cu bf16 --launch-count 1 --metrics $MG
for n in $ALL; do nc $n hgemm_wgmma $V/$n.cu bf16 --launch-count 1 --metrics $MG; done
# 2. persistence: no ncu flush, kevo's own (read 2x L2) between its launches
for n in d0 a1 b1 a1c2 nvjet; do kn=hgemm_wgmma; f=$V/$n.cu; [ $n = nvjet ] && { kn=nvjet; f=$V/d0.cu; }
  nc persist-$n $kn $f bf16 --cache-control none --launch-count 12 --metrics dram__bytes_read.sum,gpu__time_duration.sum; done
grep -h "^###\|gpu__time\|per_second\|cycles_elapsed\|lts__\|dram__" $L/ncu.log > $L/ncu-short.txt
# 3. evals (each against cuBLAS launch by launch) and A/B against d0
ev evals.log 120 $(for n in $ALL; do echo $V/$n.cu; done) $G4 --dtype bf16 --pairs 20
for n in a1 a2 b1 b2 c2 a1c2 b2c2 a1b2c2 a2b1 d0; do ev ab.log 40 $V/d0.cu $V/$n.cu --ab --pairs 20 $G4 --dtype bf16; done
for n in a1 c2 a1c2 b2c2; do ev ab.log 40 $V/d0.cu $V/$n.cu --ab --pairs 20 $G4 --dtype fp16; done
for n in a1 c2 a1c2; do ev ab.log 60 $V/d0.cu $V/$n.cu --ab --pairs 10 --problem gemm --shape 8192x8192x8192 --dtype bf16; done
# 4. correctness of the hinted paths at other shapes
for sh in 3000x5000x4000 1000x776x328 64x64x64 1024x1024x16384; do ev check.log 40 $V/a1b2c2.cu $V/mx.cu $V/a2b1.cu --problem gemm --shape $sh --dtype bf16; done
grep -h "^###\|: ok\|: [a-z_]* \|baseline\|confirm\|pairs:\|^rc \|skip" $L/evals.log $L/ab.log $L/check.log | grep -v "^  " | cut -c1-200 >> $S
cat $L/ncu-short.txt >> $S
rm -f $L/*.ncu-rep; snap
tail -c 9000 $S
