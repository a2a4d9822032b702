#!/bin/bash
# session 23, call 6 (nvidia-h200-x2): after the calling thread alone looks at the clock (idle sub threads had polled every 20 ms: dozens under MPI), softmax and fp32 GEMM, one GPU and mpirun -np 2; as call 4, one GPU against
# --gpus 0,1 and mpirun -np 2 at d71169d (the fan-out ends at the budget
# and drops generation 0's fill; MPI defers generation tails and ends at
# the budget) on fp32 GEMM 4096^3, softmax fp32 4096^2 and bf16 GEMM
# 8192^3, T s each (default 35), one run at a time on the whole host, seed
# 11, a fresh compile cache per run. Run directories come back whole
# (status, replay and phases run on a CPU).
set -u
R=$PWD; W=/tmp/w6; D=/tmp/d6; rm -rf $W $D; mkdir -p $W $D
H=$R/.dev-s23/bundle
export LD_LIBRARY_PATH=$H
MR="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && MR="$MR --allow-run-as-root"
{ date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $H/kevo --version; mpirun --version | head -1; } > $W/env.txt 2>&1
T=${T:-35}s
one() { # label problem dtype shape [flags]; label mpi2 = mpirun -np 2
  local lab=$1 p=$2 dt=$3 sh=$4; shift 4; local n=$p-$dt-$lab
  local A="--problem $p --dtype $dt --shape $sh --seed 11 --time $T --templates-dir $H/templates --runs-dir $D --name $n --quiet"
  ( cd $H; t0=$(date +%s.%N)
    if [ ${lab%-*} = mpi2 ]; then
      KEVO_CACHE_DIR=$D/c-$n timeout 200 mpirun $MR -np 2 -x KEVO_CACHE_DIR -x LD_LIBRARY_PATH ./kevo-mpi run $A "$@" > $W/$n.log 2>&1
    else
      KEVO_CACHE_DIR=$D/c-$n timeout 200 ./kevo run $A "$@" > $W/$n.log 2>&1
    fi
    echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.log
    rm -rf $D/c-$n; tar czf $W/$n.run.tgz -C $D $n )
}
G="gemm fp32 4096x4096x4096"; S="softmax fp32 4096x4096"; BF="gemm bf16 8192x8192x8192"
one 1g $S --gpus 0; one mpi2 $S
one 1g $G --gpus 0; one mpi2 $G
# (the whole comes back in parts under the size limit of a returned file)
tar czf /tmp/c6.tgz -C $W . && split -b 7M /tmp/c6.tgz $OUT/c6.part. ; ls -la $OUT
