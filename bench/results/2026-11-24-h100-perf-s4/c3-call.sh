#!/bin/bash
# perf helper call 3: softmax_bulk XCH (spare chunk slots) and CL=7, softmax_cluster CL=16 points;
# kevo bench with the best softmax_bulk point as its default; ncu evidence for the missed targets
set -u
BD=$PWD/build/perf-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c3; mkdir -p $L /tmp/v
echo "templates $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader)" > $L/summary.txt
var() { local t=$1 name=$2 kv=$3; local f=/tmp/v/$name.cu; cp $t $f
  for p in ${kv//,/ }; do k=${p%%=*}; v=${p#*=}
    sed -i -E "s/^(\/\/ kevo: param $k .*default=)[0-9]+/\1$v/" $f; done; echo $f; }
snap() { tar czf $OUT/c3.tgz -C $OUT c3 2>/dev/null; }
best() { grep ': ok ' $1 | grep "$2" | awk '{print $3, $1}' | sort -g | head -1 | cut -d' ' -f2 | tr -d ':'; }
SB=$BD/templates/softmax/softmax_bulk.cu; SC=$BD/templates/softmax/softmax_cluster.cu; SU=$BD/templates/softmax/softmax_unit.cu
F=""
for p in "a8x0:CL=8,DROP=1,XCH=0" "a8x1:CL=8,DROP=1,XCH=1" "b8x1d2:CL=8,DROP=2,XCH=1" "c8x1t512:CL=8,DROP=1,XCH=1,THREADS=512" \
         "d8x1s0:CL=8,DROP=1,XCH=1,STH=0" "e7d0:CL=7,DROP=0" "e7d1:CL=7,DROP=1" "e7d2:CL=7,DROP=2" "f8x1u2:CL=8,DROP=1,XCH=1,UNROLL=2"; do
  F="$F $(var $SB bulk_f32_${p%%:*} ${p#*:})"; done
for p in "g16t512:CL=16,THREADS=512,REG=8,VEC=4,UNROLL=2,MINB=2,LDH=1,STH=2" "g16t256:CL=16,THREADS=256,REG=16,VEC=4,UNROLL=2,MINB=2,LDH=1,STH=2"; do
  F="$F $(var $SC clu_f32_${p%%:*} ${p#*:})"; done
timeout 60 $K eval $F --problem softmax --dtype fp32 --shape 256x400000 > $L/fp32-256x400000.log 2>&1; snap
F="$(var $SU unit_bf_ref CL=8,THREADS=256,REG=6,SMK=64,UNROLL=2,LDH=2,STH=0,MINB=3,ASYNC=1)"
for p in "h16v8:CL=16,THREADS=512,REG=2,VEC=8,UNROLL=1,MINB=2,LDH=1,STH=2" "h8v8:CL=8,THREADS=512,REG=4,VEC=8,UNROLL=1,MINB=1,LDH=1,STH=2" \
         "h16v4:CL=16,THREADS=256,REG=8,VEC=4,UNROLL=2,MINB=2,LDH=2,STH=0"; do
  F="$F $(var $SC clu_bf_${p%%:*} ${p#*:})"; done
timeout 35 $K eval $F --problem softmax --dtype bf16 --shape 1024x262144 > $L/bf16-1024x262144.log 2>&1; snap
# fp32 odd shape: which of K % 8, N % 4 (16-byte B rows) costs
for s in 6001x5999x6008 6000x6000x6000; do [ $SECONDS -lt 120 ] && timeout 15 $K eval $BD/templates/gemm/sgemm_warptile.cu --problem gemm --dtype fp32 --shape $s > $L/sgemm-$s.log 2>&1; done; snap
T2=/tmp/t2; rm -rf $T2; cp -r $BD/templates $T2
B32=$(best $L/fp32-256x400000.log bulk_f32)
echo "best fp32 bulk variant: $B32" >> $L/summary.txt
[ -n "$B32" ] && cp $B32 $T2/softmax/softmax_bulk.cu && cp $B32 $L/bulk-default-used.cu
cd $BD
timeout 105 $K bench --suite $BD/suite.json --templates-dir $T2 --case softmax-fp32-256x400000 --case softmax-bf16-1024x262144 \
   --case gemm-fp32-6001x5999x6007 --time 25s --runs-dir /tmp/rb --out $L/bench > $L/bench.log 2>&1
echo "bench rc=$? at ${SECONDS}s" >> $L/summary.txt; snap
cd /tmp
if command -v ncu >/dev/null; then
  M=dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_elapsed
  [ -n "$B32" ] && [ $SECONDS -lt 245 ] && timeout 30 ncu --clock-control none --target-processes all --metrics $M --kernel-name softmax_bulk --launch-count 1 $K eval $B32 --problem softmax --dtype fp32 --shape 256x400000 --seed 3 > $L/ncu-bulk-fp32.log 2>&1
  [ $SECONDS -lt 260 ] && timeout 25 ncu --clock-control none --target-processes all --metrics $M --kernel-name softmax_unit --launch-count 1 $K eval /tmp/v/unit_bf_ref.cu --problem softmax --dtype bf16 --shape 1024x262144 --seed 3 > $L/ncu-unit-bf16.log 2>&1
  MG=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
  [ $SECONDS -lt 250 ] && timeout 25 ncu --clock-control none --target-processes all --metrics $MG --kernel-name regex:'hgemm_wgmma|sm90_xmma|nvjet' --launch-count 2 $K eval $BD/templates/gemm/hgemm_wgmma.cu --problem gemm --dtype bf16 --shape 4096x4096x4096 --seed 3 > $L/ncu-hgemm-bf16-4096.log 2>&1
else echo "no ncu" >> $L/summary.txt; fi
grep -h "ok \|wrong\|cheat\|error\|crash\|baseline copy\|baseline cublas" $L/fp32-256x400000.log $L/bf16-1024x262144.log | cut -c1-200 >> $L/summary.txt
tail -7 $L/bench.log >> $L/summary.txt
grep -h "Profiling\|dram__thr\|hmma\|gpu__time\|xu.avg\|issue_active\|  [a-z_0-9]* (" $L/ncu-*.log >> $L/summary.txt 2>/dev/null
for c in /tmp/rb/*/; do gzip -c $c/journal.jsonl > $L/$(basename $c)-journal.jsonl.gz 2>/dev/null; done
tar czf $OUT/c3.tgz -C $OUT c3
