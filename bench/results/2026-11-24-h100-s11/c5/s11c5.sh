#!/bin/bash
# session 11 H100 call 5: why TW's tail pieces are slow: ncu (base clocks,
# 3rd and 4th launch) of TW=0 and TW=24 at bf16 4096^3, TW=0 and TW=128
# at 3000x5000x4000.
set -u
NB=$PWD/build/lead-bundle
L=$OUT/c5; mkdir -p $L; S=$L/summary.txt; V=$(mktemp -d /tmp/v.XXXX)
echo "bundle $(cat $NB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c5.tgz -C $OUT c5 2>/dev/null; }
T=$NB/templates/gemm/hgemm_wgmma.cu
for tw in 0 24 128; do sed "s/^\(\/\/ kevo: param TW .*default=\)[0-9]*/\1$tw/" $T > $V/t$tw.cu; done
MG=gpu__time_duration.sum,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex.sum,sm__pipe_tensor_op_hmma_cycles_active.max,sm__pipe_tensor_op_hmma_cycles_active.min,sm__pipe_tensor_op_hmma_cycles_active.avg,smsp__inst_executed.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,lts__t_sectors_op_write.sum
nc() { local n=$1 sh=$2
  echo "### ncu $n $sh ($SECONDS s)" >> $L/ncu.log
  timeout 60 ncu --clock-control base --target-processes all --kernel-name regex:hgemm_wgmma --launch-skip 2 --launch-count 1 --metrics $MG \
    $NB/kevo eval $V/$n.cu --problem gemm --dtype bf16 --shape $sh --seed 3 --timeout-ms 8000 >> $L/ncu.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ncu.log; snap; }
nc t0 4096x4096x4096; nc t24 4096x4096x4096; nc t0 3000x5000x4000; nc t128 3000x5000x4000
python3 - "$L/ncu.log" >> $S <<'PY'
import sys,re
for line in open(sys.argv[1]):
    if line.startswith('### '): print(line[4:].split(' (')[0])
    m=re.match(r'\s+(\S+)\s+(\S+)?\s+([\d,.]+)\s*$',line)
    if m and ('__' in m.group(1)): print('  %-60s %s %s'%(m.group(1),m.group(3),m.group(2) or ''))
PY
snap; cat $S
