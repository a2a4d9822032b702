#!/bin/bash
# call 3 (session 15, nvidia-h200-x2): issue 30's LLM targets, overhead and
# KernelBench level-1 trial.
# GPU 0 (CPUs 0-15) and GPU 1 (CPUs 16-31) each run five of the ten
# examples/torch modules as `kevo run --torch-problem` whose only templates
# are the LLM's one-shot proposals (3 per module, served back over loopback
# by llm_server from .dev-s15/answers/<module>/, no rewrites: --llm-per-gen
# 0), 30 s of search each, torch eager and torch.compile
# (max-autotune-no-cudagraphs) measured in the same worker; then GPU 0 runs
# the overhead pair (scale as a .problem and as a torch module, same
# template, seed and budget) and GPU 1 the KernelBench level-1 trial.
set -u
R=$PWD; K=$R/build/bundle/kevo; S=$R/.dev-s15; W=/tmp/w; mkdir -p $W
export LD_LIBRARY_PATH=$R/build/bundle KEVO_TEST_KEY=sk-kevo-serve-15 KEVO_TORCH_COMPILE_LIMIT_S=${CLIM:-120}
( sleep ${GUARD:-565}; tar czf $OUT/partial.tgz --exclude=runs -C $W . ) & guard=$!
{ date -u; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; python3 -c 'import torch;print(torch.__version__)'; } > $W/env.txt 2>&1
serve() { # gpu cpus module...
  local g=$1 c=$2; shift 2
  for m in "$@"; do
    local t0=$(date +%s)
    $S/llm_server --port 0 --key-env KEVO_TEST_KEY --answers $S/answers/$m --log $W/$m.requests.jsonl --lifetime 400 > $W/$m.port &
    local sp=$!; sleep 1; local P=$(head -1 $W/$m.port)
    ( cd $R/build/bundle && CUDA_VISIBLE_DEVICES=$g timeout 300 taskset -c $c $K run --spec $S/spec.json \
        --torch-problem $S/mods/$m/$m.py --llm "openai:test-model@http://127.0.0.1:$P/v1" --llm-key-env KEVO_TEST_KEY \
        --llm-per-gen 0 --time ${T:-20s} --seed 15 --runs-dir $W/runs --name $m > $W/$m.log 2>&1; echo "exit $? wall $(( $(date +%s) - t0 ))s" >> $W/$m.log )
    kill $sp 2>/dev/null
    CUDA_VISIBLE_DEVICES=$g $K status $W/runs/$m > $W/$m.status 2>&1
    cp $W/runs/$m/best.cu $W/$m.best.cu 2>/dev/null
  done
}
serve 0 0-15 ${MODS0:-linear cumsum argmax center4d masked_fill} & p0=$!
serve 1 16-31 ${MODS1:-tril_matmul cross_entropy gelu mean_max sum_dim} & p1=$!
wait $p0 $p1
# overhead: the same template on scale as a .problem and as a torch module
( cd $R/build/bundle && for v in problem torch; do
    if [ $v = problem ]; then A="--problem-file $R/examples/problems/scale/scale.problem --shape 8192x8192"
    else A="--torch-problem $S/overhead/scale.py"; fi
    CUDA_VISIBLE_DEVICES=0 timeout 200 taskset -c 0-15 $K run $A --seed 15 --time ${TO:-20s} --runs-dir $W/runs --name ovr-$v > $W/ovr-$v.log 2>&1
    echo "exit $?" >> $W/ovr-$v.log; $K status $W/runs/ovr-$v > $W/ovr-$v.status 2>&1
  done ) & p0=$!
( cd $R && CUDA_VISIBLE_DEVICES=1 KEVO=$K KB_DIR=$R/.dev-kb/level1 OUT=$W/kb1 JOBS=${KBJOBS:-3} TIMEOUT_S=240 MODE=bench \
    KEVO_TORCH_COMPILE=off taskset -c 16-31 bash $R/scripts/gpu-kb1.sh > $W/kb1.log 2>&1 ) & p1=$!
wait $p0 $p1
for r in $W/runs/*/; do gzip -c $r/journal.jsonl > $W/$(basename $r).journal.jsonl.gz 2>/dev/null; cp $r/manifest.json $W/$(basename $r).manifest.json 2>/dev/null; done
rm -rf $W/runs
kill $guard 2>/dev/null; tar czf $OUT/call3.tgz -C $W . ; ls -la $OUT
