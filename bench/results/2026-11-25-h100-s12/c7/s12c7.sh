#!/bin/bash
# session 12 H100 call 7: (1) SK=3's shared reduction on the H100: A/B
# against the session-start SK=3 (o3) and launch by launch against cuBLAS;
# (2) tests/gpu/wgmma.sh; (3) where SK=2's partial sums cost at bf16 4096^3
# (ncu, timing-only variants: s2ns no partial stores, s2nl no loads, s2nw
# no flag wait, s2nx no partial sums at all; d0 = SK=0).
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo; V=$PWD/build/c7v
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c7; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c7.tgz -C $OUT c7 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; [ $SECONDS -gt ${LIMIT:-540} ] && { echo "skip $* (time)" >> $L/$log; return; }
  echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
for sh in 512x512x32768 1024x1024x16384 768x1024x16384 256x256x131072; do
  ev ab.log 40 $V/o3.cu $V/n3.cu --ab --pairs 10 --problem gemm --dtype bf16 --shape $sh; done
ev ab.log 40 $V/o3.cu $V/n3.cu --ab --pairs 10 --problem gemm --dtype fp16 --shape 1024x1024x16384
ev ab.log 40 $V/o3.cu $V/n3.cu --ab --pairs 10 --problem gemm --dtype fp16 --shape 512x512x32768
echo "### wgmma.sh ($SECONDS s)" >> $S
( cd $BD && OUT=$L/wgmma KEVO=$K timeout 200 sh tests/gpu/wgmma.sh > $L/wgmma.log 2>&1; echo "wgmma.sh rc $?" >> $S )
tail -5 $L/wgmma.log >> $S; snap
MG=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_active.max,sm__cycles_active.avg,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
for n in d0 s2 s2ns s2nl s2nw s2nx; do
  echo "### ncu $n ($SECONDS s)" >> $L/ncu.log
  timeout 60 ncu --clock-control base --target-processes all --kernel-name regex:hgemm --launch-count 1 --metrics $MG \
    $K eval $V/$n.cu --problem gemm --dtype bf16 --shape 4096x4096x4096 --seed 3 >> $L/ncu.log 2>&1; echo "rc $?" >> $L/ncu.log; done
awk '/^### ncu/{t=$3} /gpu__time|cycles_|dram__|lts__/{print t, $1, $NF}' $L/ncu.log > $L/ncu-short.txt
ev ab.log 60 $V/d0.cu $V/s2.cu --ab --pairs 20 --problem gemm --dtype bf16 --shape 4096x4096x4096
grep -h "^###\|: ok\|: [a-z_]* \|baseline\|confirm\|pairs:\|^rc \|skip" $L/ab.log | grep -v "^  " | cut -c1-200 >> $S
cat $L/ncu-short.txt >> $S
snap; tail -c 5000 $S
