#!/bin/bash
# call 1 (session 16, nvidia-h200, 16 CPUs): issue 30.
#  A. the torch helper's cost per candidate (scripts/torch-check-cost.py),
#     539aecb's helper against this commit's, same process order;
#  B. overhead: scale 8192x8192 with the same template as a .problem and as
#     a torch module (.dev-s16/ovr/scale.py), both on a warm compile cache
#     (a first .problem run fills it), same seed;
#  C. the KernelBench level-1 files that failed in session 15 (memory; the
#     fixed-shape 100_HingeLoss), kevo bench --torch-problem, unchanged;
#     meanwhile D. tests/gpu/torchprob.sh and tests/gpu/torch_timing.sh.
set -u
R=$PWD; K=$R/build/bundle/kevo; S=$R/.dev-s16; W=/tmp/w1; rm -rf $W; mkdir -p $W
export LD_LIBRARY_PATH=$R/build/bundle KEVO_TORCH_COMPILE_LIMIT_S=120
( sleep ${GUARD:-560}; tar czf $OUT/partial.tgz --exclude=runs --exclude=kbruns -C $W . ) & guard=$!
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; python3 -c 'import torch;print(torch.__version__)'; git -C $R log --oneline -1 2>/dev/null; } > $W/env.txt 2>&1
# A
for m in $S/ovr/scale.py $R/examples/torch/linear/linear.py $R/examples/torch/cumsum/cumsum.py $R/examples/torch/mean_max/mean_max.py $R/examples/torch/center4d/center4d.py; do
  for h in $S/helper-539aecb.py $R/fitness/torchprob_helper.py; do
    timeout 120 python3 $R/scripts/torch-check-cost.py $h $m 20 >> $W/A-cost.txt 2>&1
  done
done
# B
( cd $R/build/bundle
  run() { CUDA_VISIBLE_DEVICES=0 timeout 200 $K run "$@" --seed 15 --time 20s --runs-dir $W/runs > $W/B-$N.log 2>&1; echo "exit $?" >> $W/B-$N.log; $K status $W/runs/$N > $W/B-$N.status 2>&1; }
  N=problem-cold run --problem-file $R/examples/problems/scale/scale.problem --shape 8192x8192 --name problem-cold
  N=problem-warm run --problem-file $R/examples/problems/scale/scale.problem --shape 8192x8192 --name problem-warm
  N=torch-warm run --torch-problem $S/ovr/scale.py --name torch-warm
  N=problem-warm2 run --problem-file $R/examples/problems/scale/scale.problem --shape 8192x8192 --name problem-warm2
  N=torch-warm2 run --torch-problem $S/ovr/scale.py --name torch-warm2 )
# C + D
( KEVO=$K KB_DIR=$S/kb OUT=$W/kb1 JOBS=${KBJOBS:-2} TIMEOUT_S=200 MODE=bench KEVO_TORCH_COMPILE=off bash $R/scripts/gpu-kb1.sh > $W/C-kb1.log 2>&1 ) & pc=$!
( cd $R; KEVO=$K OUT=$W/D-torchprob sh tests/gpu/torchprob.sh > $W/D-torchprob.log 2>&1; echo "exit $?" >> $W/D-torchprob.log
  KEVO=$K OUT=$W/D-torch-timing sh tests/gpu/torch_timing.sh > $W/D-torch-timing.log 2>&1; echo "exit $?" >> $W/D-torch-timing.log ) & pd=$!
wait $pc $pd
for r in $W/runs/*/; do cp $r/manifest.json $W/B-$(basename $r).manifest.json 2>/dev/null; done
rm -rf $W/runs; find $W -name 'runs' -type d -prune -exec rm -rf {} + ; find $W -name '*.jsonl' -size +2M -delete
kill $guard 2>/dev/null; tar czf $OUT/call1.tgz -C $W . ; ls -la $OUT
