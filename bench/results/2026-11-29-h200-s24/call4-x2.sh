#!/bin/bash
# session 24, call 4 (nvidia-h200-x2: 2 GPUs, 32 cores): at b39390b
# (kevo --version in env.txt): MPI ranks that hold as many compiles as
# they have compile processes take candidates that need none first
# (group_compiles), four slots past the compilers, the spare fill as large
# as the planned one. softmax fp32 4096^2 one GPU (--gpus 0, all 32
# cores) against --gpus 0,1 and mpirun -np 2 (twice), fp32 GEMM 4096^3
# one GPU against mpirun -np 2. 35 s, seed 11, a fresh compile cache per
# run, one run at a time on the whole host. Statuses go to
# $OUT/status.txt as runs end; everything comes back at the end in parts.
set -u
R=$PWD; W=/tmp/w4; D=/tmp/d4; rm -rf $W $D; mkdir -p $W $D
H=$R/.dev-s24/bundle
export LD_LIBRARY_PATH=$H
MR="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && MR="$MR --allow-run-as-root"
{ date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; mpirun --version | head -1; } > $W/env.txt 2>&1
cp $W/env.txt $OUT/
T=${T:-35}s
one() { # label problem dtype shape [flags]; label mpi2* = mpirun -np 2
  local lab=$1 p=$2 dt=$3 sh=$4; shift 4; local n=$p-$dt-$lab
  local A="--problem $p --dtype $dt --shape $sh --seed 11 --time $T --templates-dir $H/templates --runs-dir $D --name $n --quiet"
  ( cd $H; t0=$(date +%s.%N)
    if [ ${lab%-*} = mpi2 ]; then
      KEVO_CACHE_DIR=$D/c-$n timeout 200 mpirun $MR -np 2 -x KEVO_CACHE_DIR -x LD_LIBRARY_PATH ./kevo-mpi run $A "$@" > $W/$n.log 2>&1
    else
      KEVO_CACHE_DIR=$D/c-$n timeout 200 ./kevo run $A "$@" > $W/$n.log 2>&1
    fi
    echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.log
    rm -rf $D/c-$n; { echo "== $n"; ./kevo status $D/$n; } >> $OUT/status.txt 2>&1 )
}
G="gemm fp32 4096x4096x4096"; S="softmax fp32 4096x4096"
one 1g $S --gpus 0; one mpi2-1 $S; one 2g $S --gpus 0,1; one mpi2-2 $S
one 1g $G --gpus 0; one mpi2 $G
tar czf /tmp/c4.tgz -C /tmp w4 d4 && split -b 7M /tmp/c4.tgz $OUT/c4.part. ; ls -la $OUT
