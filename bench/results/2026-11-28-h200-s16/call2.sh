#!/bin/bash
# call 2 (session 16, nvidia-h200-x2, 32 CPUs): issue 32.
#  S. scaling: evaluations/min with one GPU (--gpus 0), two (--gpus 0,1)
#     and mpirun -np 2 (one GPU a rank), same seed 11 and 35 s budget, a
#     fresh compile cache each run, on gemm fp32 4096^3, softmax fp32
#     4096^2 and gemm bf16 8192^3; the 2-GPU and MPI runs replayed.
#  P. one GPU with 16 CPUs (taskset halves), --pipeline 0 against 1 now
#     that the compile pool counts the affinity mask's CPUs: GPU 0 / CPUs
#     0-15 without, GPU 1 / CPUs 16-31 with, at the same time.
set -u
R=$PWD; BD=$R/build/bundle; K=$BD/kevo; MB=$BD; W=/tmp/w2; rm -rf $W; mkdir -p $W/o
export LD_LIBRARY_PATH=$BD
( sleep ${GUARD:-570}; tar czf $OUT/partial.tgz -C $W o ) & guard=$!
S=$W/o/summary.txt; T=${T:-35s}
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $K --help 2>&1 | tail -1; } > $W/o/env.txt 2>&1
M="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && M="$M --allow-run-as-root"
st() { $K status $W/r/$1 > $W/o/$1.status 2>&1; echo "$1: $(grep -E 'evaluations:|throughput:|gpu:' $W/o/$1.status | tr -s ' ' | tr '\n' ' ')" >> $S; cp $W/r/$1/manifest.json $W/o/$1.manifest.json 2>/dev/null; }
for prob in "gemm fp32 4096x4096x4096" "softmax fp32 4096x4096" "gemm bf16 8192x8192x8192"; do
  set -- $prob; n=$1-$2
  A="--problem $1 --dtype $2 --shape $3 --seed 11 --time $T --runs-dir $W/r --quiet"
  KEVO_CACHE_DIR=$W/c/$n-1 $K run $A --gpus 0 --name $n-1 > $W/o/$n-1.log 2>&1; st $n-1
  KEVO_CACHE_DIR=$W/c/$n-2 $K run $A --gpus 0,1 --name $n-2 > $W/o/$n-2.log 2>&1; st $n-2
  KEVO_CACHE_DIR=$W/c/$n-mpi timeout 150 mpirun $M -np 2 -x KEVO_CACHE_DIR -x LD_LIBRARY_PATH=$MB $MB/kevo-mpi run $A --name $n-mpi > $W/o/$n-mpi.log 2>&1; st $n-mpi
  for v in 2 mpi; do echo "replay $n-$v: $($K replay $W/r/$n-$v 2>&1 | head -1)" >> $S; done
  rm -rf $W/c
done
# P
for v in 0 1; do
  ( g=$v; c=$([ $v = 0 ] && echo 0-15 || echo 16-31)
    for prob in "gemm fp32 4096x4096x4096" "softmax fp32 4096x4096"; do
      set -- $prob; n=p$v-$1-$2
      CUDA_VISIBLE_DEVICES=$g KEVO_CACHE_DIR=$W/c/$n taskset -c $c $K run --problem $1 --dtype $2 --shape $3 --seed 11 --time $T \
        --pipeline $v --runs-dir $W/r --quiet --name $n > $W/o/$n.log 2>&1
    done ) & pids="${pids:-} $!"
done
wait $pids
for n in p0-gemm-fp32 p0-softmax-fp32 p1-gemm-fp32 p1-softmax-fp32; do st $n; done
kill $guard 2>/dev/null; tar czf $OUT/call2.tgz -C $W o; ls -la $OUT
