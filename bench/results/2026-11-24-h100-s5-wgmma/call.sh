#!/bin/bash
# hw device call: hgemm_wgmma EPO (deferred epilogue) and SK (stream-K tail)
# points vs the default, bf16/fp16 at 4096^3 and 8192^3, correctness at
# edge shapes, ncu tensor-pipe activity. Logs to $OUT/s5.
set -u
K=$PWD/build/hw-bundle/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/s5; mkdir -p $L /tmp/v
CALL=${CALL:-1}
echo "$(date -u +%FT%TZ) call $CALL $(nvidia-smi --query-gpu=name,uuid,clocks.sm,power.draw --format=csv,noheader)" > $L/summary.txt
var() { local name=$1; shift; local f=/tmp/v/$name.cu; cp templates/gemm/hgemm_wgmma.cu $f
  for p in "$@"; do k=${p%%=*}; v=${p#*=}
    grep -q "^// kevo: param $k " $f || echo "NO PARAM $k in $name" >> $L/summary.txt
    sed -i -E "s/^(\/\/ kevo: param $k .*default=)[0-9]+/\1$v/" $f; done; echo $f; }
snap() { tar czf $OUT/s5.tgz -C $OUT s5 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; [ $SECONDS -gt ${LIMIT:-270} ] && { echo "skip $* (time)" >> $L/$log; return; }
  echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1; echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
source build/hw/call$CALL.inc
grep -h "^###\|: ok\|: [a-z_]* \|baseline\|rc \|skip" $L/*.log | grep -v "^  " | cut -c1-160 >> $L/summary.txt
grep -h "Profiling\|hmma\|gpu__time\|issue_active\|stalled\|dram__\|lts__\|  [a-z_0-9]* (" $L/ncu*.log >> $L/summary.txt 2>/dev/null
snap
cat $L/summary.txt
