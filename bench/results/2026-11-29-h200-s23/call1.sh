#!/bin/bash
# session 23, call 1 (nvidia-h200, 1 GPU, 16 cores): HEAD on one GPU
# worker ("head"); HEAD with two GPU workers on that GPU through the
# fan-out (KEVO_WORKERS_PER_GPU=2 --gpus 0, "w2": the several-GPU code
# path, its time budget and generation 0's drop, on real GPU evaluators;
# two workers share one GPU, so its rate says nothing about scaling);
# 8146c91 ("s22", session 22's call-5 build: generation 0's fill, before
# 51c7af4 asked for drops in generation 0 only). Softmax fp32 4096^2 and
# fp32 GEMM 4096^3, T s each (default 35), seed 11, a fresh compile cache
# per run, one run at a time. The run directories come back whole (replay
# and status run on a CPU); each run's --json progress is stamped with the
# seconds since its process started (*.events).
set -u
R=$PWD; W=/tmp/w1; D=/tmp/d1; rm -rf $W $D; mkdir -p $W $D
N=$R/.dev-s23/bundle; P=/tmp/s22; mkdir -p $P && cp -a $N/. $P/ && cp $R/.dev-s23/kevo-8146c91 $P/kevo
export LD_LIBRARY_PATH=$N
{ date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $N/kevo --version; $P/kevo --version; } > $W/env.txt 2>&1
stamp() { python3 -u -c 'import sys,time
t0=float(sys.argv[1])
for l in sys.stdin: sys.stdout.write("%.3f %s" % (time.time()-t0, l))' "$1"; }
T=${T:-35}s
one() { # label bundle problem dtype shape [flags]
  local lab=$1 bd=$2 p=$3 dt=$4 sh=$5; shift 5; local n=$p-$dt-$lab
  ( cd $bd; t0=$(date +%s.%N)
    KEVO_CACHE_DIR=$D/c-$n timeout 300 ./kevo run --problem $p --dtype $dt --shape $sh --seed 11 --time $T --templates-dir $bd/templates --runs-dir $D --name $n --json "$@" 2>&1 | stamp $t0 > $W/$n.events
    echo "exit ${PIPESTATUS[0]} wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.events )
}
S="softmax fp32 4096x4096"; G="gemm fp32 4096x4096x4096"
one head $N $S; export KEVO_WORKERS_PER_GPU=2; one w2 $N $S --gpus 0; unset KEVO_WORKERS_PER_GPU; one s22 $P $S
one head $N $G; export KEVO_WORKERS_PER_GPU=2; one w2 $N $G --gpus 0; unset KEVO_WORKERS_PER_GPU; one s22 $P $G
for n in {softmax,gemm}-fp32-{head,w2,s22}; do [ -d $D/$n ] && tar czf $W/$n.run.tgz -C $D $n; done
tar czf $OUT/call1.tgz -C $W . ; ls -la $OUT
