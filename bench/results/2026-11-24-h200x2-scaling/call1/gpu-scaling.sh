#!/bin/bash
# gpu-scaling.sh - issue 14's scaling measurement on a 2-GPU machine
# (nvidia-h200-x2): evaluations/min with
# one GPU, two GPUs (--gpus 0,1) and mpirun -np 2 (one GPU per rank), same
# seed and budget, a fresh compile cache for every run
set -u
BD=${BD:-$PWD/build/lead-bundle}; K=$BD/kevo   # scripts/bundle.sh build/kevo ...
MB=${MB:-$PWD/build/lead-mpi-bundle}       # the same for make MPI=1 (build/mpi/kevo)
O=${OUT:?set OUT}/scaling; mkdir -p $O; S=$O/summary.txt
D=$(mktemp -d /tmp/kevo-l3.XXXXXX)
T=${T:-45s}
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) budget $T per run" > $S
nvidia-smi --query-gpu=index,name,driver_version,power.limit,clocks.max.sm --format=csv >> $S
nproc >> $S
R="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && R="$R --allow-run-as-root"
for prob in "gemm fp32 4096x4096x4096" "softmax fp32 4096x4096"; do
  set -- $prob; p=$1; dt=$2; sh=$3
  A="--problem $p --dtype $dt --shape $sh --seed 11 --time $T --runs-dir $D --quiet"
  KEVO_CACHE_DIR=$D/c1-$p $K run $A --gpus 0 --name $p-1 > $O/$p-1.log 2>&1
  KEVO_CACHE_DIR=$D/c2-$p $K run $A --gpus 0,1 --name $p-2 > $O/$p-2.log 2>&1
  KEVO_CACHE_DIR=$D/cm-$p timeout 150 mpirun $R -np 2 -x KEVO_CACHE_DIR $MB/kevo run $A --name $p-mpi > $O/$p-mpi.log 2>&1
  for v in 1 2 mpi; do
    $K status $D/$p-$v > $O/$p-$v.status 2>&1
    echo "$p $dt $sh [$v]: $(grep -E 'evaluations:|throughput:' $O/$p-$v.status | tr -s ' ' | tr '\n' ' ') per gpu: $(grep -o '"gpu":[0-9]*' $D/$p-$v/journal.jsonl | sort | uniq -c | tr -s ' ' | tr '\n' ';')" >> $S
  done
  for v in 1 2 mpi; do gzip -c $D/$p-$v/journal.jsonl > $O/$p-$v.journal.jsonl.gz 2>/dev/null
    cp $D/$p-$v/manifest.json $O/$p-$v.manifest.json 2>/dev/null; done
  $K replay $D/$p-2 | head -1 >> $S
  $K replay $D/$p-mpi | head -1 >> $S
done
tar czf $OUT/scaling.tgz -C $OUT scaling
