#!/bin/bash
# session 11 H100 call 6: TW=24 with the tail pieces' stores left out
# (t24n: wrong results, timing only) against t0 and t24, ncu base clocks.
set -u
NB=$PWD/build/lead-bundle; V=$PWD/build/v11
L=$OUT/c6; mkdir -p $L; S=$L/summary.txt
echo "bundle $(cat $NB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c6.tgz -C $OUT c6 2>/dev/null; }
MG=gpu__time_duration.sum,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg,sm__pipe_tensor_op_hmma_cycles_active.max,smsp__inst_executed.sum,lts__t_sectors_srcunit_tex.sum
nc() { local n=$1 sh=$2
  echo "### ncu $n $sh ($SECONDS s)" >> $L/ncu.log
  timeout 60 ncu --clock-control base --target-processes all --kernel-name regex:hgemm_wgmma --launch-count 1 --metrics $MG \
    $NB/kevo eval $V/$n.cu --problem gemm --dtype bf16 --shape $sh --seed 3 --timeout-ms 8000 >> $L/ncu.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ncu.log; snap; }
for r in 1 2; do nc t0 4096x4096x4096; nc t24 4096x4096x4096; nc t24n 4096x4096x4096; done
python3 - "$L/ncu.log" >> $S <<'PY'
import sys,re
for line in open(sys.argv[1]):
    if line.startswith('### '): print(line[4:].split(' (')[0])
    m=re.match(r'\s+(\S+)\s+(\S+)?\s+([\d,.]+)\s*$',line)
    if m and ('__' in m.group(1)): print('  %-60s %s %s'%(m.group(1),m.group(3),m.group(2) or ''))
PY
snap; cat $S
