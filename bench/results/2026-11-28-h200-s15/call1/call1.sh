#!/bin/bash
# call 1 (session 15): capture kevo's real LLM proposal prompts for the ten
# examples/torch modules (llm_server in hang mode logs each request), then
# the counters with KEVO_PROF_REPLAY=user against ncu.
set -u
R=$PWD; K=$R/build/bundle/kevo; C=$R/.dev-cap
export LD_LIBRARY_PATH=$R/build/bundle KEVO_TEST_KEY=sk-kevo-capture-15
mkdir -p $OUT/cap; cd $OUT/cap
nvidia-smi --query-gpu=name,driver_version,uuid --format=csv > env.txt; python3 -c 'import torch;print(torch.__version__)' >> env.txt 2>&1
$C/llm_server --port 0 --key-env KEVO_TEST_KEY --mode hang --log $OUT/cap/requests.jsonl --lifetime 170 > port &
sleep 1; P=$(head -1 port)
for m in $C/mods/*/; do n=$(basename $m)
  ( cd $R/build/bundle && KEVO_TORCH_COMPILE=off timeout 160 $K run --spec $C/spec.json --torch-problem $m/$n.py \
     --llm "openai:test-model@http://127.0.0.1:$P/v1" --llm-key-env KEVO_TEST_KEY --llm-per-gen 0 \
     --time 120s --seed 15 --runs-dir $OUT/cap/runs --name $n > $OUT/cap/$n.log 2>&1; echo "exit $?" >> $OUT/cap/$n.log ) &
done
for i in $(seq 1 150); do n=$(wc -l < requests.jsonl 2>/dev/null || echo 0); [ "$n" -ge 30 ] && break; sleep 1; done
echo "requests after ${i}s: $(wc -l < requests.jsonl)"
sleep 3; pkill -INT -f "kevo run --spec" ; sleep 5; pkill -KILL -f "kevo run --spec"; kill %1 2>/dev/null
wait
rm -rf runs/*/cache 2>/dev/null
# counters with user replay (issue 31), with ncu on the same kernels
cd $R && ln -sfn build/bundle bundle
KEVO_PROF_REPLAY=user timeout 200 sh scripts/counters-bench.sh $OUT/cnt-user sgemm softmax layernorm splitk > $OUT/cnt-user.log 2>&1
python3 scripts/counters-compare.py $OUT/cnt-user > $OUT/cnt-user/compare.md 2>&1 || true
cd $OUT && tar czf /tmp/call1.tgz --exclude='cache*' . && rm -rf $OUT/* && mv /tmp/call1.tgz $OUT/ && ls -la $OUT
