#!/bin/bash
# session 23, call 3 (nvidia-h200, 1 GPU, 16 cores): MPI's time budget
# (each batch carries the time left) and deferral (rank 0 gives back a
# generation's last candidates still at the ranks) on real GPU evaluators:
# mpirun -np 2 of HEAD's MPI build, both ranks on the one GPU (local rank
# modulo the GPUs), so the rates say nothing about scaling. fp32 GEMM
# 4096^3 and softmax fp32 4096^2, T s each (default 35), seed 11, a fresh
# compile cache per run, one run at a time; run directories come back
# whole (status and replay run on a CPU).
set -u
R=$PWD; W=/tmp/w3; D=/tmp/d3; rm -rf $W $D; mkdir -p $W $D
N=$R/.dev-s23/bundle
export LD_LIBRARY_PATH=$N
MR="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && MR="$MR --allow-run-as-root"
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; mpirun --version | head -1; $N/kevo-mpi --version; } > $W/env.txt 2>&1
T=${T:-35}s
one() { # label problem dtype shape
  local lab=$1 p=$2 dt=$3 sh=$4; local n=$p-$dt-$lab
  ( cd $N; t0=$(date +%s.%N)
    KEVO_CACHE_DIR=$D/c-$n timeout 300 mpirun $MR -np 2 -x KEVO_CACHE_DIR -x LD_LIBRARY_PATH ./kevo-mpi run --problem $p --dtype $dt --shape $sh --seed 11 --time $T --templates-dir $N/templates --runs-dir $D --name $n --quiet > $W/$n.log 2>&1
    echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.log
    rm -rf $D/c-$n; tar czf $W/$n.run.tgz -C $D $n )
}
one mpi2 gemm fp32 4096x4096x4096
one mpi2 softmax fp32 4096x4096
tar czf $OUT/call3.tgz -C $W . ; ls -la $OUT
