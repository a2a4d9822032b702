#!/bin/bash
# lead H100 call 3 (session 7): compile order A/B (two in index order, then the longest left), NVRTC cache off (-no-cache in
# jit_default_options): one GPU, gemm fp32 4096^3 and softmax fp32 4096x4096, 40 s each,
# seed 11, fresh KEVO_CACHE_DIR per run, order cost/index/index/cost (ABBA)
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
O=$OUT/c3; mkdir -p $O; S=$O/summary.txt
D=$(mktemp -d /tmp/kevo-c3.XXXXXX)
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader | head -1) cpus $(nproc)" > $S
du -sh ~/.nv/ComputeCache 2>/dev/null >> $S
T=40s
one() { # name problem shape order rep
  local n=$1 p=$2 sh=$3 m=$4 r=$5
  KEVO_CACHE_DIR=$D/c-$n-$m-$r KEVO_COMPILE_ORDER=$m $K run --problem $p --dtype fp32 --shape $sh --seed 11 --time $T --runs-dir $D --quiet --name $n-$m-$r > $O/$n-$m-$r.log 2>&1
  $K status $D/$n-$m-$r > $O/$n-$m-$r.status 2>&1
  echo "$n $sh [$m $r]: $(grep -E 'evaluations:|throughput:' $O/$n-$m-$r.status | tr -s ' ' | tr '\n' ' ')" >> $S
  gzip -c $D/$n-$m-$r/journal.jsonl > $O/$n-$m-$r.journal.jsonl.gz 2>/dev/null
  $K replay $D/$n-$m-$r | head -1 | sed "s/^/$n-$m-$r replay: /" >> $S
  tar czf $OUT/c3.tgz -C $OUT c3
}
one gemm gemm 4096x4096x4096 cost 1
one gemm gemm 4096x4096x4096 index 1
one softmax softmax 4096x4096 index 1
one softmax softmax 4096x4096 cost 1
one gemm gemm 4096x4096x4096 index 2
one gemm gemm 4096x4096x4096 cost 2
one softmax softmax 4096x4096 cost 2
one softmax softmax 4096x4096 index 2
du -sh ~/.nv/ComputeCache 2>/dev/null >> $S
cat $S
tar czf $OUT/c3.tgz -C $OUT c3 && rm -rf $OUT/c3
