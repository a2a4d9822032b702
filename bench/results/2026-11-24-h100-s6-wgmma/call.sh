#!/bin/bash
# hw3 device call (session 6): hgemm_wgmma candidates vs the default and
# cuBLAS's nvjet kernel at bf16/fp16 4096^3: ncu SASS with per-instruction
# execution counts (SourceCounters) of both kernels, ncu clock / cycles /
# L2 sectors / instructions, interleaved A/B (--ab), correctness. Template
# points are copies of templates/gemm/hgemm_wgmma.cu with other defaults
# (var). CALL=N sources callN.inc from this folder; logs to $OUT/s6.
set -u
R=bench/results/2026-11-24-h100-s6-wgmma
K=$PWD/build/hw3-bundle/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/s6; mkdir -p $L /tmp/v
CALL=${CALL:-1}
echo "$(date -u +%FT%TZ) call $CALL $(nvidia-smi --query-gpu=name,uuid,clocks.sm,power.draw,power.limit --format=csv,noheader)" > $L/summary.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 100 > $L/smi.csv 2>&1 &
SMI=$!
var() { local name=$1; shift; local f=/tmp/v/$name.cu; cp templates/gemm/hgemm_wgmma.cu $f
  for p in "$@"; do k=${p%%=*}; v=${p#*=}
    grep -q "^// kevo: param $k " $f || echo "NO PARAM $k in $name" >> $L/summary.txt
    sed -i -E "s/^(\/\/ kevo: param $k .*default=)[0-9]+/\1$v/" $f; done; echo $f; }
snap() { tar czf $OUT/s6.tgz -C $OUT s6 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; [ $SECONDS -gt ${LIMIT:-270} ] && { echo "skip $* (time)" >> $L/$log; return; }
  echo "### $* ($SECONDS s, $(date +%T.%N | cut -c1-12))" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
# ncu of one kernel (regex) in an eval of FILE at bf16 4096^3: nc LOG TAG REGEX FILE ncu-args...
nc() { local log=$1 tag=$2 kn=$3 f=$4; shift 4; [ $SECONDS -gt ${NLIMIT:-260} ] && { echo "skip ncu $tag (time)" >> $L/$log; return; }
  echo "### ncu $tag ($SECONDS s)" >> $L/$log
  timeout 45 ncu --clock-control none --target-processes all --kernel-name regex:$kn --launch-count 1 "$@" \
    $K eval $f --problem gemm --dtype bf16 --shape 4096x4096x4096 --seed 3 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
source $R/call$CALL.inc
kill $SMI; gzip -f $L/smi.csv
grep -h "^###\|: ok\|: [a-z_]* \|baseline\|confirm\|^rc \|skip" $L/*.log | grep -v "^  " | cut -c1-170 >> $L/summary.txt
grep -h "Profiling\|  hgemm\|  nvjet\|per_second\|cycles_elapsed\|lts__\|inst_executed\|hmma\|gpu__time" $L/ncu-*.log >> $L/summary.txt 2>/dev/null
rm -f $L/*.ncu-rep
snap
tail -c 6000 $L/summary.txt
