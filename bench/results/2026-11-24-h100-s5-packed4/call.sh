#!/bin/bash
# hp4 device call: hgemm_packed SK=3 (tail thirds), check + time.
# Run as CALLN=cN bash build/hp4dev/call.sh with build/hp4-bundle and build/hp4dev
# carried (scripts/bundle.sh of build/hp4/kevo); sources build/hp4/cN-points.sh.
set -u
BD=$PWD/build/hp4-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
N=${CALLN:-c1}
L=$OUT/$N; mkdir -p $L /tmp/v
echo "$(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,clocks.sm --format=csv,noheader)" > $L/summary.txt
md5sum templates/gemm/hgemm_packed.cu >> $L/summary.txt
T=templates/gemm/hgemm_packed.cu
# var NAME [K=V ...] [PDL]: a copy of the template with other defaults
# (PDL: '// kevo: pdl' on launch 2)
var() { local name=$1; shift; local f=/tmp/v/$name.cu; cp $T $f
  for p in "$@"; do
    if [ "$p" = PDL ]; then sed -i 's|^// kevo: launch hgemm_packed$|&\n// kevo: pdl|' $f; continue; fi
    k=${p%%=*}; v=${p#*=}
    grep -q "^// kevo: param $k " $f || echo "NO PARAM $k in $name" >> $L/summary.txt
    sed -i -E "s/^(\/\/ kevo: param $k .*default=)[0-9]+/\1$v/" $f; done; echo $f; }
snap() { tar czf $OUT/$N.tgz -C $OUT $N 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1; echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
MG=gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,smsp__inst_executed.sum
# nc NAME FILE: ncu of both launches at bf16 4099x4097x4095, seed 3
nc() { command -v ncu >/dev/null || return; timeout 90 ncu --clock-control none --target-processes all --metrics $MG --kernel-name regex:hgemm_pack --launch-count 2 --launch-skip 0 \
      --log-file $L/ncu-$1.txt $K eval $2 --problem gemm --dtype bf16 --shape 4099x4097x4095 --seed 3 >> $L/ncu-eval.log 2>&1; snap; }
source build/hp4dev/$N-points.sh
snap
grep -h "^###\|confirm\|interleav\|verdict\|: ok\|: [a-z_]* \|wrong\|error\|fail\|baseline\|rc " $L/*.log | cut -c1-220 >> $L/summary.txt
for f in $L/ncu-*.txt; do [ -f $f ] && { echo "=== $f" >> $L/summary.txt; grep -v "^==PROF==\|^==WARNING==" $f >> $L/summary.txt; }; done
snap
cp $L/summary.txt $OUT/$N-summary.txt; rm -rf $L
cat $OUT/$N-summary.txt
