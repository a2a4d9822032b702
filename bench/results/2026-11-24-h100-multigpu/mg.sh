#!/bin/sh
# kevo multi-GPU checks on one H100 (helper issue 14): fan-out over one GPU
# vs the plain evaluator, --gpus all, two workers on GPU 0, a GPU past the last
set -u
L=$OUT/logs; mkdir -p $L
cd build/mg-bundle
nvidia-smi -L > $L/gpus.txt 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv >> $L/gpus.txt 2>&1
P="--problem softmax --dtype fp32 --shape 4096x4096 --seed 1 --runs-dir /tmp/r"
one() { name=$1; shift; s=$(date +%s.%N); timeout 60 "$@" --name $name >$L/$name.log 2>&1; echo "rc=$? wall_s=$(awk -v a=$s -v b=$(date +%s.%N) "BEGIN{print b-a}")" >>$L/$name.log; }
KEVO_CACHE_DIR=/tmp/kcB one fan1 ./kevo run $P --time 35s --gpus 0
KEVO_CACHE_DIR=/tmp/kcA one plain ./kevo run $P --time 35s
KEVO_CACHE_DIR=/tmp/kcC one all ./kevo run $P --time 10s --gpus all
KEVO_WORKERS_PER_GPU=2 KEVO_CACHE_DIR=/tmp/kcD one two ./kevo run $P --time 15s --gpus 0
KEVO_CACHE_DIR=/tmp/kcE one bad ./kevo run $P --time 5s --gpus 0,1
for r in fan1 plain all two; do
  [ -d /tmp/r/$r ] || continue
  ./kevo status /tmp/r/$r >$L/$r.status 2>&1
  cp /tmp/r/$r/journal.jsonl $L/$r.journal.jsonl; cp /tmp/r/$r/manifest.json $L/$r.manifest.json
done
./kevo replay /tmp/r/two >$L/two.replay 2>&1; echo "rc=$?" >>$L/two.replay
./kevo replay /tmp/r/fan1 >$L/fan1.replay 2>&1; echo "rc=$?" >>$L/fan1.replay
tar czf $OUT/mg.tgz -C $L .
tail -n 3 $L/*.log
