#!/bin/bash
# session 11 H100 call 2: why hgemm_wgmma's SK=2 tail pieces do not pay at
# bf16 4096^3: ncu counters of SK=0 (d), SK=2 (s2) and SK=2 without the
# partial sums (s2n: writers skip the partials, owners do not wait or add;
# wrong results, timing only), unlocked and base clocks.
set -u
NB=$PWD/build/lead-bundle; V=$PWD/build/v11
L=$OUT/c2; mkdir -p $L; S=$L/summary.txt
echo "bundle $(cat $NB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c2.tgz -C $OUT c2 2>/dev/null; }
MG=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.max,sm__pipe_tensor_op_hmma_cycles_active.min,smsp__inst_executed.sum
nc() { local cc=$1 n=$2 sh=$3
  echo "### ncu $cc $n $sh ($SECONDS s)" >> $L/ncu.log
  timeout 60 ncu --clock-control $cc --target-processes all --kernel-name regex:hgemm_wgmma --launch-skip 2 --launch-count 2 --metrics $MG \
    $NB/kevo eval $V/$n.cu --problem gemm --dtype bf16 --shape $sh --seed 3 --timeout-ms 8000 >> $L/ncu.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ncu.log; snap; }
for cc in none base; do for n in d s2 s2n; do nc $cc $n 4096x4096x4096; done; done
for n in d s2 s2n; do nc none $n 2048x2048x8192; done
echo "### eval ($SECONDS s)" >> $L/eval.log
timeout 60 $NB/kevo eval $V/d.cu $V/s2.cu $V/s2n.cu $V/d.cu $V/s2.cu $V/s2n.cu --problem gemm --dtype bf16 --shape 4096x4096x4096 --seed 5 >> $L/eval.log 2>&1
python3 - "$L/ncu.log" >> $S <<'PY'
import sys,re
cur=None
for line in open(sys.argv[1]):
    if line.startswith('### '): cur=line[4:].split(' (')[0]; print('\n'+cur)
    m=re.match(r'\s+(\S+)\s+(\S+)?\s+([\d,.]+)\s*$',line)
    if m and ('__' in m.group(1)): print('  %-70s %s %s'%(m.group(1),m.group(3),m.group(2) or ''))
    if line.startswith('  hgemm_wgmma'): print('  --')
PY
cat $L/eval.log | grep -v "^  " >> $S
snap; cat $S | head -150
