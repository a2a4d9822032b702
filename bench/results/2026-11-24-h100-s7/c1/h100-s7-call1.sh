#!/bin/bash
# lead H100 call 1 (session 7): (1) hgemm_packed stream-K sweep at bf16 4099x4097x4095
# (3 s watchdog) with the BT flag-offset fix and without the two exclusion constraints;
# (2) compile order A/B: one GPU, gemm fp32 4096^3 and softmax fp32 4096x4096, 40 s each,
# KEVO_COMPILE_ORDER=index vs the cost model, seed 11, fresh caches
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
O=$OUT/c1; mkdir -p $O; S=$O/summary.txt
D=$(mktemp -d /tmp/kevo-c1.XXXXXX)
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader | head -1) cpus $(nproc)" > $S
cp build/pts/points.txt $O/
KEVO_CACHE_DIR=$D/kc-sweep timeout 300 $K eval build/pts/p*.cu --problem gemm --dtype bf16 --shape 4099x4097x4095 --timeout-ms 3000 > $O/sweep.log 2>&1
echo "sweep rc=$? ($SECONDS s)" >> $S
tar czf $OUT/c1.tgz -C $OUT c1
T=40s
one() { # name problem shape order
  local n=$1 p=$2 sh=$3 m=$4
  KEVO_CACHE_DIR=$D/c-$n-$m KEVO_COMPILE_ORDER=$m $K run --problem $p --dtype fp32 --shape $sh --seed 11 --time $T --runs-dir $D --quiet --name $n-$m > $O/$n-$m.log 2>&1
  $K status $D/$n-$m > $O/$n-$m.status 2>&1
  echo "$n $sh [$m]: $(grep -E 'evaluations:|throughput:' $O/$n-$m.status | tr -s ' ' | tr '\n' ' ')" >> $S
  gzip -c $D/$n-$m/journal.jsonl > $O/$n-$m.journal.jsonl.gz 2>/dev/null
  $K replay $D/$n-$m | head -1 | sed "s/^/$n-$m replay: /" >> $S
  tar czf $OUT/c1.tgz -C $OUT c1
}
one gemm gemm 4096x4096x4096 index
one gemm gemm 4096x4096x4096 cost
one softmax softmax 4096x4096 index
one softmax softmax 4096x4096 cost
cat $S
tar czf $OUT/c1.tgz -C $OUT c1 && rm -rf $OUT/c1
