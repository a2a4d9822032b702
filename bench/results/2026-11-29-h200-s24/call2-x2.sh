#!/bin/bash
# session 24, call 2 (nvidia-h200-x2: 2 GPUs, 32 cores): issue 32's
# scaling at 14e7c0a (the spare fill in every generation; MPI: the batch
# handed out with the candidates that need no compile spread among the
# others, and optional candidates dropped under MPI too): one GPU
# (--gpus 0, all 32 cores) against --gpus 0,1 and mpirun -np 2 on softmax
# fp32 4096^2 (two rounds) and fp32 GEMM 4096^3; 35 s, seed 11, a fresh
# compile cache per run, one run at a time on the whole host. kevo status
# of each run goes to $OUT as it ends; the run directories come back at
# the end (replay on a CPU).
set -u
R=$PWD; W=/tmp/w2; D=/tmp/d2; rm -rf $W $D; mkdir -p $W $D
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
    rm -rf $D/c-$n; ./kevo status $D/$n > $OUT/$n.status 2>&1 )
}
G="gemm fp32 4096x4096x4096"; S="softmax fp32 4096x4096"
one 1g-1 $S --gpus 0; one 2g-1 $S --gpus 0,1; one mpi2-1 $S
one 1g $G --gpus 0; one 2g $G --gpus 0,1; one mpi2 $G
one 2g-2 $S --gpus 0,1; one mpi2-2 $S; one 1g-2 $S --gpus 0
for d in $D/*/; do n=$(basename $d); tar czf $OUT/$n.run.tgz -C $D $n; done
cp $W/*.log $OUT/ 2>/dev/null; ls -la $OUT
