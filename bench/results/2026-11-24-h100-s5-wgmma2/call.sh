#!/bin/bash
# hw2 device call: hgemm_wgmma CLUSTER=4 (2x2, both operands multicast),
# ORDER=1 (snake group order) vs the default, bf16/fp16 4096^3 and
# 8192^3, edge shapes, ncu clocks/DRAM/L2 of ours and cuBLAS, nvidia-smi
# clocks/power during the evals. Logs to $OUT/s6.
set -u
K=$PWD/build/hw2-bundle/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/s6; mkdir -p $L /tmp/v
CALL=${CALL:-1}
echo "$(date -u +%FT%TZ) call $CALL $(nvidia-smi --query-gpu=name,uuid,clocks.sm,power.draw,power.limit --format=csv,noheader)" > $L/summary.txt
build/hw2/clprobe >> $L/summary.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv,noheader -lms 50 > $L/smi.csv 2>&1 &
SMI=$!
var() { local name=$1; shift; local f=/tmp/v/$name.cu; cp templates/gemm/hgemm_wgmma.cu $f
  for p in "$@"; do k=${p%%=*}; v=${p#*=}
    grep -q "^// kevo: param $k " $f || echo "NO PARAM $k in $name" >> $L/summary.txt
    sed -i -E "s/^(\/\/ kevo: param $k .*default=)[0-9]+/\1$v/" $f; done; echo $f; }
snap() { tar czf $OUT/s6.tgz -C $OUT s6 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; [ $SECONDS -gt ${LIMIT:-270} ] && { echo "skip $* (time)" >> $L/$log; return; }
  echo "### $* ($SECONDS s, $(date +%T.%N | cut -c1-12))" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s, $(date +%T.%N | cut -c1-12))" >> $L/$log; snap; }
source build/hw2/call$CALL.inc
kill $SMI
grep -h "^###\|: ok\|: [a-z_]* \|baseline\|rc \|skip" $L/*.log | grep -v "^  " | cut -c1-170 >> $L/summary.txt
grep -h "Profiling\|hmma\|gpu__time\|per_second\|cycles_elapsed\|dram__\|lts__\|  [a-z_0-9]* (" $L/ncu-*.log >> $L/summary.txt 2>/dev/null
snap
cat $L/summary.txt
