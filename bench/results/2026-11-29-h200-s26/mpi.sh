#!/bin/bash
# session 26: softmax fp32 4096^2 under mpirun -np 2 (nvidia-h200-x2, one
# rank a GPU) with the spec {"fill_spare": 4} against the default (2), and
# one GPU with all 32 cores, in the same call: 35 s, seed 11, a fresh
# compile cache per run, one run at a time on the host; this commit's
# bundle (.dev-s26/bundle, kevo-mpi its MPI build).
set -u
R=$PWD; W=/tmp/wm; D=/tmp/dm; rm -rf $W $D; mkdir -p $W $D
H=$R/.dev-s26/bundle
export LD_LIBRARY_PATH=$H
MR="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && MR="$MR --allow-run-as-root"
echo '{"fill_spare": 4}' > $W/fs4.json
one() { # label np [flags]
  local lab=$1 np=$2; shift 2; local n=softmax-fp32-$lab
  local A="--problem softmax --dtype fp32 --shape 4096x4096 --seed 11 --time 35s --templates-dir $H/templates --runs-dir $D --name $n --quiet"
  ( cd $H; t0=$(date +%s.%N)
    if [ $np != 1 ]; then
      KEVO_CACHE_DIR=$D/c-$n timeout 200 mpirun $MR -np $np -x KEVO_CACHE_DIR -x LD_LIBRARY_PATH ./kevo-mpi run $A "$@" > $W/$n.log 2>&1
    else
      KEVO_CACHE_DIR=$D/c-$n timeout 200 ./kevo run $A "$@" > $W/$n.log 2>&1
    fi
    echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.log
    rm -rf $D/c-$n; { echo "== $n"; ./kevo status $D/$n; } >> $W/mpi.status 2>&1 )
}
one 1g 1 --gpus 0
one mpi-fs4 2 --spec $W/fs4.json
one mpi-fs2 2
grep -E "^==|evaluations:|throughput:|gpu:|drift:" $W/mpi.status
