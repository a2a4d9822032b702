#!/bin/bash
# session 25, call 1 (nvidia-h200-x2: 2 GPUs, 32 cores), at the commit in
# env.txt: softmax fp32 4096^2 under mpirun -np 2 with the default rank
# depth (compile processes + 4 = 20 slots a rank) against KEVO_MPI_DEPTH=36,
# interleaved, twice each, and one GPU (--gpus 0, all 32 cores) in the same
# call; fp32 GEMM 4096^3 one GPU against mpirun -np 2 at depth 36. 35 s,
# seed 11, a fresh compile cache per run, one run at a time on the host.
# Also starts a detached process whose survival the next call checks.
set -u
R=$PWD; W=/tmp/w1; D=/tmp/d1; rm -rf $W $D; mkdir -p $W $D
H=$R/.dev-s25/bundle
export LD_LIBRARY_PATH=$H
MR="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && MR="$MR --allow-run-as-root"
{ date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; mpirun --version | head -1; } > $W/env.txt 2>&1
cp $W/env.txt $OUT/
setsid nohup bash -c 'sleep 20; date -u > /tmp/alive-marker' > /dev/null 2>&1 < /dev/null &
T=${T:-35}s
one() { # label depth problem dtype shape [flags]; depth 0 = one process
  local lab=$1 dep=$2 p=$3 dt=$4 sh=$5; shift 5; local n=$p-$dt-$lab
  local A="--problem $p --dtype $dt --shape $sh --seed 11 --time $T --templates-dir $H/templates --runs-dir $D --name $n --quiet"
  ( cd $H; t0=$(date +%s.%N)
    if [ $dep != 0 ]; then
      KEVO_MPI_DEPTH=$dep KEVO_CACHE_DIR=$D/c-$n timeout 200 mpirun $MR -np 2 -x KEVO_MPI_DEPTH -x KEVO_CACHE_DIR -x LD_LIBRARY_PATH ./kevo-mpi run $A "$@" > $W/$n.log 2>&1
    else
      KEVO_CACHE_DIR=$D/c-$n timeout 200 ./kevo run $A "$@" > $W/$n.log 2>&1
    fi
    echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.log
    rm -rf $D/c-$n; { echo "== $n"; ./kevo status $D/$n; } >> $OUT/status.txt 2>&1 )
}
G="gemm fp32 4096x4096x4096"; S="softmax fp32 4096x4096"
one 1g 0 $S --gpus 0
one mpi-d20a 20 $S; one mpi-d36a 36 $S; one mpi-d20b 20 $S; one mpi-d36b 36 $S
one 1g 0 $G --gpus 0; one mpi-d36 36 $G
tar czf /tmp/c1.tgz -C /tmp w1 d1 && split -b 7M /tmp/c1.tgz $OUT/c1.part. ; ls -la $OUT
