#!/bin/bash
# session 12 H100 call 2: bf16 long K with few tiles (512x512x32768 and
# kin): where SK=3's time goes (ncu: with and without the partial sums,
# tile sizes, stages, clusters; cuBLAS's kernel), evals launch by launch
# against cuBLAS, and 40 s kevo runs on three such shapes.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo; V=$PWD/build/c2v
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c2; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c2.tgz -C $OUT c2 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; [ $SECONDS -gt ${LIMIT:-540} ] && { echo "skip $* (time)" >> $L/$log; return; }
  echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
MG=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_active.max,sm__cycles_active.avg,sm__cycles_active.min,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex.sum
nc() { local tag=$1 kn=$2 f=$3 sh=$4; shift 4
  echo "### ncu $tag $sh ($SECONDS s)" >> $L/ncu.log
  timeout 60 ncu --clock-control base --target-processes all --kernel-name regex:$kn --launch-count 1 --metrics $MG "$@" \
    $K eval $f --problem gemm --dtype bf16 --shape $sh --seed 3 >> $L/ncu.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ncu.log; snap; }
P=512x512x32768
nc nvjet nvjet $V/k3.cu $P
for n in k3 k3x k3n k3nx k3s k3sx k3b k3c1 k3nc1 k3n6; do nc $n hgemm_wgmma $V/$n.cu $P; done
nc nvjet1k nvjet $V/k3.cu 1024x1024x16384
for n in k3 k3x k3n k3nx; do nc $n-1k hgemm_wgmma $V/$n.cu 1024x1024x16384; done
awk '/^### ncu/{t=$3" "$4} /gpu__time|cycles_|dram__|lts__|hmma/{print t, $1, $NF}' $L/ncu.log > $L/ncu-short.txt
ev evals.log 120 $V/k3.cu $V/k3n.cu $V/k3s.cu $V/k3b.cu $V/k3c1.cu $V/k3nc1.cu $V/k3n6.cu --problem gemm --dtype bf16 --shape $P --pairs 10
ev evals.log 90 $V/k3.cu $V/k3n.cu $V/k3s.cu $V/k3n6.cu --problem gemm --dtype bf16 --shape 300x4000x20000 --pairs 10
# 40 s searches, own cache each
for sh in 512x512x32768 300x4000x20000 1024x1024x16384; do
  [ $SECONDS -gt 420 ] && break
  D=$(mktemp -d /tmp/kr.XXXX)
  echo "### run $sh ($SECONDS s)" >> $L/runs.log
  ( cd $BD && KEVO_CACHE_DIR=$D/cache timeout 75 $K run --problem gemm --dtype bf16 --shape $sh --time 40s --seed 11 --runs-dir $D --name r --quiet ) >> $L/runs.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/runs.log
  cp $D/r/best.json $L/best-$sh.json 2>/dev/null
  $K status $D/r >> $L/runs.log 2>&1; snap
done
grep -h "^###\|: ok\|: [a-z_]* \|baseline\|pairs:\|^rc \|skip\|best" $L/evals.log $L/runs.log | grep -v "^  " | cut -c1-220 >> $S
cat $L/ncu-short.txt >> $S
snap; tail -c 8000 $S
