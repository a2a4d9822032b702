#!/bin/bash
# call 2 on nvidia-h200-x2: the MPI queue fix (65ee52f) against one GPU, and a
# GPU-bound case (gemm fp32 8192^3): evaluations/min, same seed and budget
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo; MB=$PWD/build/lead-mpi-bundle
O=$OUT/scaling2; mkdir -p $O; S=$O/summary.txt
D=$(mktemp -d /tmp/kevo-s2.XXXXXX)
T=40s
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) budget $T per run" > $S
nvidia-smi --query-gpu=index,name,driver_version,power.limit,clocks.max.sm --format=csv >> $S
nproc >> $S
R="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && R="$R --allow-run-as-root"
one() { # name problem dtype shape variant
  local n=$1 p=$2 dt=$3 sh=$4 v=$5
  local A="--problem $p --dtype $dt --shape $sh --seed 11 --time $T --runs-dir $D --quiet"
  case $v in
    1) KEVO_CACHE_DIR=$D/c-$n-$v $K run $A --gpus 0 --name $n-$v > $O/$n-$v.log 2>&1 ;;
    2) KEVO_CACHE_DIR=$D/c-$n-$v $K run $A --gpus 0,1 --name $n-$v > $O/$n-$v.log 2>&1 ;;
    mpi) KEVO_CACHE_DIR=$D/c-$n-$v timeout 150 mpirun $R -np 2 -x KEVO_CACHE_DIR $MB/kevo run $A --name $n-$v > $O/$n-$v.log 2>&1 ;;
  esac
  $K status $D/$n-$v > $O/$n-$v.status 2>&1
  echo "$n $p $dt $sh [$v]: $(grep -E 'evaluations:|throughput:' $O/$n-$v.status | tr -s ' ' | tr '\n' ' ') per gpu: $(grep -o '"gpu":[0-9]*' $D/$n-$v/journal.jsonl | sort | uniq -c | tr -s ' ' | tr '\n' ';')" >> $S
  gzip -c $D/$n-$v/journal.jsonl > $O/$n-$v.journal.jsonl.gz 2>/dev/null
  cp $D/$n-$v/manifest.json $O/$n-$v.manifest.json 2>/dev/null
  [ $v != 1 ] && $K replay $D/$n-$v | head -1 | sed "s/^/$n-$v replay: /" >> $S
  tar czf $OUT/scaling2.tgz -C $OUT scaling2
}
one gemm gemm fp32 4096x4096x4096 1
one gemm gemm fp32 4096x4096x4096 mpi
one softmax softmax fp32 4096x4096 1
one softmax softmax fp32 4096x4096 mpi
one gemm8k gemm fp32 8192x8192x8192 1
one gemm8k gemm fp32 8192x8192x8192 2
one gemm8k gemm fp32 8192x8192x8192 mpi
cat $S
