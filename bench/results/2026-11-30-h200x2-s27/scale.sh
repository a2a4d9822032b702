#!/bin/bash
# session 27, calls A and B (nvidia-h200-x2, 32 cores): softmax fp32 4096^2, 35 s,
# seed 11, a fresh compile cache per run, one run at a time on the host, all
# 32 cores: one GPU (--gpus 0), two (--gpus 0,1) and mpirun -np 2, for
# .dev-s27/base (c256414, session 26's last commit) and .dev-s27/bundle
# (this commit: softmax_block and softmax_cluster with the launch-only
# GRID), interleaved; call B: .dev-s27/bundle against .dev-s27/b2
# (fdf79b5: generation 0's fill at 8 a point), and b2 under MPI with the
# spec {"fill_spare": 4} (mode mpi-fs4). Then kevo replay of the newer
# build's runs, session 26's ttb.py on every run; the compact journals are
# packed into $OUT by the call.
# usage: scale.sh [build:mode ...] (call A: the default list; call B:
#   bundle:1g b2:1g bundle:2g b2:2g bundle:mpi b2:mpi b2:mpi-fs4)
set -u
R=$PWD; W=/tmp/ws; D=/tmp/ds; mkdir -p $W $D
B=$R/.dev-s27
export LD_LIBRARY_PATH=$B/bundle
MR="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && MR="$MR --allow-run-as-root"
{ date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version --format=csv; nproc;
  for b in bundle base b2; do [ -d $B/$b ] && $B/$b/kevo --version; done; } > $W/env.txt 2>&1
echo '{"fill_spare": 4}' > $W/fs4.json
one() { # build mode
  local b=$1 m=$2 n=softmax-$1-$2 k=$B/$1
  local A="--problem softmax --dtype fp32 --shape 4096x4096 --seed 11 --time 35s --templates-dir $k/templates --runs-dir $D --name $n --quiet"
  ( cd $W; t0=$(date +%s.%N)
    case $m in
      1g) KEVO_CACHE_DIR=$D/c-$n timeout 200 $k/kevo run $A --gpus 0 > $W/$n.log 2>&1 ;;
      2g) KEVO_CACHE_DIR=$D/c-$n timeout 200 $k/kevo run $A --gpus 0,1 > $W/$n.log 2>&1 ;;
      mpi-fs4) KEVO_CACHE_DIR=$D/c-$n timeout 200 mpirun $MR -np 2 -x KEVO_CACHE_DIR -x LD_LIBRARY_PATH $k/kevo-mpi run $A --spec $W/fs4.json > $W/$n.log 2>&1 ;;
      mpi) KEVO_CACHE_DIR=$D/c-$n timeout 200 mpirun $MR -np 2 -x KEVO_CACHE_DIR -x LD_LIBRARY_PATH $k/kevo-mpi run $A > $W/$n.log 2>&1 ;;
    esac
    echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.log
    rm -rf $D/c-$n; { echo "== $n"; $B/bundle/kevo status $D/$n; } >> $W/scale.status 2>&1
    python3 $R/bench/results/2026-11-29-h200-s26/ttb.py $D/$n > $W/$n.ttb.json 2>&1
    cp $D/$n/journal.min.jsonl $W/$n.min.jsonl
    [ $b = ${NEWEST:-bundle} ] && { echo "== replay $n"; $B/bundle/kevo replay $D/$n 2>&1 | tail -2; } >> $W/replay.txt )
}
for c in ${@:-base:1g bundle:1g base:2g bundle:2g base:mpi bundle:mpi}; do one ${c%%:*} ${c##*:}; done
grep -E "^==|evaluations:|throughput:|gpu:|best:" $W/scale.status
cat $W/replay.txt
