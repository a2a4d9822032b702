#!/bin/bash
# call 3 (session 16, nvidia-h200, 16 CPUs): issues 30 and 32.
#  B. overhead again (as call 1 B) with draws and references on kevo's
#     stream;
#  P. gemm fp32 4096^3, 35 s, seed 11, --pipeline 0 then 1, with the
#     pool's cap on later prefetches (fresh caches);
#  then at once: T. tests/gpu/torchprob.sh (torch.compile off: every
#  example module's ok/wrong/cheat kernels, sum_max's per-output
#  tolerance, the bad modules), tests/gpu/torch_timing.sh,
#  tests/gpu/export_torch.sh, tests/gpu/run.sh (the harness suite: check
#  C's input fingerprint); K. 38_L1Norm_ and 100_HingeLoss through
#  gpu-kb1.sh.
set -u
R=$PWD; K=$R/build/bundle/kevo; S=$R/.dev-s16; W=/tmp/w3; rm -rf $W; mkdir -p $W/o
export LD_LIBRARY_PATH=$R/build/bundle KEVO_TORCH_COMPILE_LIMIT_S=120
( sleep ${GUARD:-575}; tar czf $OUT/partial.tgz -C $W o ) & guard=$!
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $K --help 2>&1 | tail -1; } > $W/o/env.txt 2>&1
st() { $K status $W/r/$1 > $W/o/$1.status 2>&1; echo "$1: $(grep -E 'evaluations:|throughput:|gpu:' $W/o/$1.status | tr -s ' ' | tr '\n' ' ')" >> $W/o/summary.txt; }
( cd $R/build/bundle
  run() { timeout 200 $K run "$@" --seed 15 --time 20s --runs-dir $W/r --quiet > $W/o/B-$N.log 2>&1; st $N; }
  N=problem-cold run --problem-file $R/examples/problems/scale/scale.problem --shape 8192x8192 --name problem-cold
  N=problem-warm run --problem-file $R/examples/problems/scale/scale.problem --shape 8192x8192 --name problem-warm
  N=torch-warm run --torch-problem $S/ovr/scale.py --name torch-warm
  N=problem-warm2 run --problem-file $R/examples/problems/scale/scale.problem --shape 8192x8192 --name problem-warm2
  N=torch-warm2 run --torch-problem $S/ovr/scale.py --name torch-warm2 )
for v in 0 1; do
  KEVO_CACHE_DIR=$W/c/p$v $K run --problem gemm --dtype fp32 --shape 4096x4096x4096 --seed 11 --time 25s --pipeline $v \
    --runs-dir $W/r --quiet --name p$v-gemm-fp32 > $W/o/p$v.log 2>&1; st p$v-gemm-fp32
done
rm -rf $W/c
( cd $R; KEVO=$K OUT=$W/o/T-torchprob KEVO_TORCH_COMPILE=off sh tests/gpu/torchprob.sh > $W/o/T-torchprob.log 2>&1; echo "exit $?" >> $W/o/T-torchprob.log ) &
( cd $R; KEVO=$K OUT=$W/o/T-timing sh tests/gpu/torch_timing.sh > $W/o/T-timing.log 2>&1; echo "exit $?" >> $W/o/T-timing.log ) &
( cd $R; KEVO=$K OUT=$W/o/T-export sh tests/gpu/export_torch.sh > $W/o/T-export.log 2>&1; echo "exit $?" >> $W/o/T-export.log ) &
( cd $R; KEVO=$K OUT=$W/o/T-run sh tests/gpu/run.sh > $W/o/T-run.log 2>&1; echo "exit $?" >> $W/o/T-run.log ) &
( cd $R; mkdir -p $W/kb; cp $S/kb/38_L1Norm_.py $S/kb/100_HingeLoss.py $W/kb/
  KEVO=$K KB_DIR=$W/kb OUT=$W/o/K JOBS=1 TIMEOUT_S=200 MODE=bench KEVO_TORCH_COMPILE=off bash scripts/gpu-kb1.sh > $W/o/K.log 2>&1 ) &
wait_all() { for j in $(jobs -p); do [ "$j" = "$guard" ] || wait $j; done; }
wait_all
find $W/o -name '*.jsonl' -size +1M -delete; find $W/o -type d -name runs -prune -exec rm -rf {} +
kill $guard 2>/dev/null; tar czf $OUT/call3.tgz -C $W o; ls -la $OUT
