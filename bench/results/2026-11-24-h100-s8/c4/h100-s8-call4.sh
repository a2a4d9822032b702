#!/bin/bash
# lead H100 call 4 (session 8): hgemm_wgmma PRO=1 (tensor maps prefetched
# before the barrier init and cluster sync) against the default at bf16/fp16
# 4096^3 (interleaved A/B, ncu cycles); a one-GPU fp32 GEMM 4096^3 run (40 s)
# to see launch-only compiles shared on the GPU; make gpu-test
# (tests/gpu/run.sh) and tests/gpu/gemm_families.sh at this commit.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c4; mkdir -p $L /tmp/v; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c4.tgz -C $OUT c4 2>/dev/null; }
var() { local name=$1; shift; local f=/tmp/v/$name.cu; cp $BD/templates/gemm/hgemm_wgmma.cu $f
  for p in "$@"; do k=${p%%=*}; v=${p#*=}
    grep -q "^// kevo: param $k " $f || echo "NO PARAM $k in $name" >> $S
    sed -i -E "s/^(\/\/ kevo: param $k .*default=)[0-9]+/\1$v/" $f; done; }
ev() { local log=$1 to=$2; shift 2
  echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
nc() { local log=$1 tag=$2 kn=$3 f=$4 dt=$5; shift 5
  echo "### ncu $tag $dt ($SECONDS s)" >> $L/$log
  timeout 45 ncu --clock-control none --target-processes all --kernel-name regex:$kn --launch-count 1 "$@" \
    $K eval $f --problem gemm --dtype $dt --shape 4096x4096x4096 --seed 3 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
var d0; var p1 PRO=1; var p1l PRO=1 L2P=128 LEAN=1
V=/tmp/v; G4="--problem gemm --shape 4096x4096x4096"
ev ab.log 30 $V/d0.cu $V/p1.cu --ab $G4 --dtype bf16
ev ab.log 30 $V/p1.cu $V/d0.cu --ab $G4 --dtype bf16
ev ab.log 30 $V/d0.cu $V/p1.cu --ab $G4 --dtype fp16
ev ab.log 30 $V/d0.cu $V/p1l.cu --ab $G4 --dtype bf16
ev ab.log 30 $V/d0.cu $V/p1l.cu --ab $G4 --dtype fp16
MG=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum
for r in 1 2; do for n in nvjet d0 p1 p1l; do
  kn=hgemm_wgmma; f=$V/$n.cu; [ $n = nvjet ] && { kn=nvjet; f=$V/d0.cu; }
  nc ncu.log $n $kn $f bf16 --metrics $MG; done; done
grep -h "^###\|: ok\|: [a-z_]* \|baseline\|confirm\|^rc " $L/ab.log | grep -v "^  " | cut -c1-170 >> $S
grep -h "^###\|gpu__time\|per_second\|cycles_elapsed\|inst_exec\|hmma" $L/ncu.log >> $S
D=$(mktemp -d /tmp/kevo-r.XXXXXX)
KEVO_CACHE_DIR=$D/cache $K run --problem gemm --dtype fp32 --shape 4096x4096x4096 --seed 11 --time 40s --runs-dir $D --quiet --name g32 > $L/run-g32.log 2>&1
echo "run g32 rc=$? ($SECONDS s)" >> $S
$K status $D/g32 > $L/g32.status 2>&1; grep -E "evaluations:|throughput:" $L/g32.status >> $S
gzip -c $D/g32/journal.jsonl > $L/g32.journal.jsonl.gz; ls $D/cache | wc -l | sed 's/^/cache entries: /' >> $S
snap
( cd $BD && OUT=/tmp/gt KEVO=$K timeout 330 tests/gpu/run.sh ) > $L/gpu-test.log 2>&1
echo "gpu-test rc=$? $(grep -c '^PASS' /tmp/gt/summary.txt) PASS $(grep -c '^FAIL' /tmp/gt/summary.txt) FAIL ($SECONDS s)" >> $S
grep '^FAIL' /tmp/gt/summary.txt >> $S; cp /tmp/gt/summary.txt $L/gpu-test-summary.txt 2>/dev/null
snap
( cd $BD && OUT=/tmp/gf KEVO=$K timeout 60 sh tests/gpu/gemm_families.sh ) > $L/gemm-families.log 2>&1
echo "gemm_families rc=$? ($SECONDS s)" >> $S; cp /tmp/gf/gemm_families.txt $L/ 2>/dev/null
grep -E "non-ok" $L/gemm-families.log >> $S
snap
cat $S
