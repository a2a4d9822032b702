#!/bin/bash
# lead H100 call 1 (session 8): hgemm_wgmma's TMA L2 promotion (L2P) and tile
# order (GROUP_M) at bf16/fp16 4096^3: evals and interleaved A/B against the
# default (L2P=256), ncu clock / L2 / fabric / DRAM counters with cuBLAS's
# nvjet kernel; then kevo bench (now with kevo verify of each best) on
# bf16/fp16 4096^3 and 8192^3, 60 s a case.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c1; mkdir -p $L /tmp/v; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 100 > $L/smi.csv 2>&1 &
SMI=$!
var() { local name=$1; shift; local f=/tmp/v/$name.cu; cp $BD/templates/gemm/hgemm_wgmma.cu $f
  for p in "$@"; do k=${p%%=*}; v=${p#*=}
    grep -q "^// kevo: param $k " $f || echo "NO PARAM $k in $name" >> $S
    sed -i -E "s/^(\/\/ kevo: param $k .*default=)[0-9]+/\1$v/" $f; done; }
snap() { tar czf $OUT/c1.tgz -C $OUT c1 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; [ $SECONDS -gt ${LIMIT:-200} ] && { echo "skip $* (time)" >> $L/$log; return; }
  echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
nc() { local log=$1 tag=$2 kn=$3 f=$4 dt=$5; shift 5; [ $SECONDS -gt 230 ] && { echo "skip ncu $tag (time)" >> $L/$log; return; }
  echo "### ncu $tag $dt ($SECONDS s)" >> $L/$log
  timeout 45 ncu --clock-control none --target-processes all --kernel-name regex:$kn --launch-count 1 "$@" \
    $K eval $f --problem gemm --dtype $dt --shape 4096x4096x4096 --seed 3 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
var d256; var d128 L2P=128; var d64 L2P=64; var d0 L2P=0
var g1 GROUP_M=1; var g4 GROUP_M=4; var g16 GROUP_M=16
V=/tmp/v; G4="--problem gemm --shape 4096x4096x4096"
ev evals.log 60 $V/d256.cu $V/d128.cu $V/d64.cu $V/d0.cu $V/d256.cu $V/d128.cu $V/d64.cu $V/d0.cu $G4 --dtype bf16
ev evals.log 40 $V/d256.cu $V/d128.cu $V/d0.cu $V/d256.cu $V/d128.cu $V/d0.cu $G4 --dtype fp16
ev ab.log 30 $V/d256.cu $V/d128.cu --ab $G4 --dtype bf16
ev ab.log 30 $V/d256.cu $V/d0.cu --ab $G4 --dtype bf16
ev ab.log 30 $V/d256.cu $V/d64.cu --ab $G4 --dtype bf16
ev ab.log 30 $V/d256.cu $V/d128.cu --ab $G4 --dtype fp16
ev ab.log 30 $V/d256.cu $V/d0.cu --ab $G4 --dtype fp16
ev evals8k.log 60 $V/d256.cu $V/d128.cu $V/d0.cu --problem gemm --shape 8192x8192x8192 --dtype bf16
MG=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_requests_srcunit_tex.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed
for n in nvjet d256 d128 d0 g1 g4 g16; do
  kn=hgemm_wgmma; f=$V/$n.cu; [ $n = nvjet ] && { kn=nvjet; f=$V/d256.cu; }
  nc ncu.log $n $kn $f bf16 --metrics $MG; done
grep -h "^###\|: ok\|: [a-z_]* \|baseline\|confirm\|^rc \|skip" $L/evals*.log $L/ab.log | grep -v "^  " | cut -c1-170 >> $S
grep -h "^###\|gpu__time\|per_second\|cycles_elapsed\|lts__\|dram__\|inst_exec\|hmma" $L/ncu.log >> $S
snap
D=$(mktemp -d /tmp/kevo-b.XXXXXX)
( cd $BD && timeout 380 $K bench --case gemm-bf16-4096x4096x4096 --case gemm-fp16-4096x4096x4096 \
   --case gemm-bf16-8192x8192x8192 --case gemm-fp16-8192x8192x8192 --time 60s --runs-dir $D --out $L/bench ) > $L/bench.log 2>&1
echo "bench rc=$? ($SECONDS s)" >> $S; cat $L/bench/*.md 2>/dev/null | grep -E "^\|" >> $S
for r in $D/*/; do n=$(basename $r); cp $r/verify.json $L/verify-$n.json 2>/dev/null; cp $r/best.json $L/best-$n.json 2>/dev/null; done
kill $SMI; gzip -f $L/smi.csv
rm -f $L/*.ncu-rep; snap
tail -c 7000 $S
