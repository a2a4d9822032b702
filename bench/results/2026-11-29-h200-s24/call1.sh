#!/bin/bash
# session 24, call 1 (nvidia-h200, 1 GPU, 16 cores): the spare fill
# (fill_spare, 2c2de0f) and the MPI hand-out order (holdorder, c9ff8cc) on
# real GPU evaluators, against 5c57363 (session 23's last commit) in the
# same call. softmax fp32 4096^2 on one GPU (twice each, interleaved),
# through the fan-out with two workers on the one GPU (w2, a test aid:
# the several-GPU code path, its rate says nothing about scaling), and
# mpirun -np 2 (both ranks on the one GPU) of softmax and fp32 GEMM
# 4096^3. 35 s, seed 11, a fresh compile cache per run, one run at a time;
# run directories come back whole (status and replay on a CPU).
set -u
R=$PWD; W=/tmp/w1; D=/tmp/d1; rm -rf $W $D; mkdir -p $W $D
N=$R/.dev-s24/bundle
export LD_LIBRARY_PATH=$N
MR="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && MR="$MR --allow-run-as-root"
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; mpirun --version | head -1; $N/kevo --version; $N/kevo-old --version; } > $W/env.txt 2>&1
T=${T:-35}s
one() { # label binary problem dtype shape [extra env/args via MODE]
  local lab=$1 bin=$2 p=$3 dt=$4 sh=$5; local n=$p-$dt-$lab
  ( cd $N; t0=$(date +%s.%N)
    case $lab in
    mpi*) KEVO_CACHE_DIR=$D/c-$n timeout 300 mpirun $MR -np 2 -x KEVO_CACHE_DIR -x LD_LIBRARY_PATH ./$bin run --problem $p --dtype $dt --shape $sh --seed 11 --time $T --templates-dir $N/templates --runs-dir $D --name $n --quiet > $W/$n.log 2>&1 ;;
    w2*) KEVO_WORKERS_PER_GPU=2 KEVO_CACHE_DIR=$D/c-$n timeout 300 ./$bin run --gpus 0 --problem $p --dtype $dt --shape $sh --seed 11 --time $T --templates-dir $N/templates --runs-dir $D --name $n --quiet > $W/$n.log 2>&1 ;;
    *) KEVO_CACHE_DIR=$D/c-$n timeout 300 ./$bin run --problem $p --dtype $dt --shape $sh --seed 11 --time $T --templates-dir $N/templates --runs-dir $D --name $n --quiet > $W/$n.log 2>&1 ;;
    esac
    echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.log
    rm -rf $D/c-$n; tar czf $W/$n.run.tgz -C $D $n )
}
one 1g-new-1 kevo softmax fp32 4096x4096
one 1g-old-1 kevo-old softmax fp32 4096x4096
one mpi2-new kevo-mpi softmax fp32 4096x4096
one mpi2-old kevo-mpi-old softmax fp32 4096x4096
one mpi2-new kevo-mpi gemm fp32 4096x4096x4096
one mpi2-old kevo-mpi-old gemm fp32 4096x4096x4096
one w2-new kevo softmax fp32 4096x4096
one 1g-old-2 kevo-old softmax fp32 4096x4096
one 1g-new-2 kevo softmax fp32 4096x4096
tar czf $OUT/call1.tgz -C $W . ; ls -la $OUT
