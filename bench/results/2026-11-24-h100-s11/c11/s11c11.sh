#!/bin/bash
# session 11 H100 call 11: what limits SK=3 on long-K shapes: ncu (base
# clocks) of SK=3 and cuBLAS's kernel at 512x512x32768 and 1024x1024x16384.
set -u
NB=$PWD/build/lead-bundle
L=$OUT/c11; mkdir -p $L; S=$L/summary.txt; V=$(mktemp -d /tmp/v.XXXX)
echo "bundle $(cat $NB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c11.tgz -C $OUT c11 2>/dev/null; }
T=$NB/templates/gemm/hgemm_wgmma.cu
sed "s/^\(\/\/ kevo: param SK .*default=\)[0-9]*/\13/" $T > $V/k3.cu
MG=gpu__time_duration.sum,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex.sum,sm__pipe_tensor_op_hmma_cycles_active.max,sm__pipe_tensor_op_hmma_cycles_active.avg,smsp__inst_executed.sum,launch__grid_size,launch__cluster_dim_x,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_sleeping_per_warp_active.pct
nc() { local kn=$1 sh=$2
  echo "### ncu $kn $sh ($SECONDS s)" >> $L/ncu.log
  timeout 60 ncu --clock-control base --target-processes all --kernel-name regex:$kn --launch-skip 1 --launch-count 1 --metrics $MG \
    $NB/kevo eval $V/k3.cu --problem gemm --dtype bf16 --shape $sh --seed 3 --timeout-ms 8000 >> $L/ncu.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ncu.log; snap; }
for sh in 512x512x32768 1024x1024x16384 768x1024x16384; do nc hgemm_wgmma $sh; nc nvjet $sh; done
python3 - "$L/ncu.log" >> $S <<'PY'
import sys,re
for line in open(sys.argv[1]):
    if line.startswith('### '): print(line[4:].split(' (')[0])
    if re.match(r'\s+\S+ \(\d+, \d+, \d+\)x', line): print('  '+line.strip()[:150])
    m=re.match(r'\s+(\S+)\s+(\S+)?\s+([\d,.]+)\s*$',line)
    if m and ('__' in m.group(1)): print('  %-66s %s %s'%(m.group(1),m.group(3),m.group(2) or ''))
PY
snap; cat $S
