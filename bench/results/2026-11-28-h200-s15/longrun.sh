#!/bin/bash
# issue 31: profiling's share of a long run (kevo status), and the rewrite
# prompts it sends (llm_server log): softmax fp32 8192x8192, two templates,
# LLM answers served back from tests/data/llm-answers/softmax.
# usage: GPU=1 CPUS=16-31 T=9m W=DIR .dev-s15/longrun.sh
set -u
R=$PWD; K=$R/build/bundle/kevo; S=$R/.dev-s15; W=${W:?}; mkdir -p $W
export LD_LIBRARY_PATH=$R/build/bundle KEVO_TEST_KEY=sk-kevo-long-15
$S/llm_server --port 0 --key-env KEVO_TEST_KEY --answers $R/tests/data/llm-answers/softmax \
    --log $W/long.requests.jsonl --lifetime 900 > $W/long.port &
sp=$!; sleep 1; P=$(head -1 $W/long.port)
( cd $R/build/bundle && CUDA_VISIBLE_DEVICES=${GPU:-0} timeout 650 taskset -c ${CPUS:-0-15} $K run --problem softmax \
    --shape 8192x8192 --dtype fp32 --seed 5 --time ${T:-9m} --template softmax_block --template softmax_online \
    --llm "openai:test-model@http://127.0.0.1:$P/v1" --llm-key-env KEVO_TEST_KEY \
    --runs-dir $W/runs --name long > $W/long.log 2>&1; echo "exit $?" >> $W/long.log )
kill $sp 2>/dev/null
$K status $W/runs/long > $W/long.status 2>&1
grep '"type":"profile"' $W/runs/long/journal.jsonl > $W/long.profiles.jsonl
gzip -c $W/runs/long/journal.jsonl > $W/long.journal.jsonl.gz
cp $W/runs/long/manifest.json $W/long.manifest.json
python3 - $W <<'PY'
import json, sys, os
w = sys.argv[1]; n = 0
for l in open(f"{w}/long.requests.jsonl"):
    d = json.loads(l); m = d["body"]["messages"]; u = m[-1]["content"]
    head = u[:300]
    kind = ("rewrite" if "that kevo measured. Write a faster one" in head else
            "crossover" if "two kernel templates" in head else
            "repair" if "failed in kevo" in head else
            "propose" if head.startswith("Write a new kernel") else "other")
    prof = "Hardware profile" in u and "DRAM" in u
    n += 1
    with open(f"{w}/prompt-{n:02d}-{kind}{'-profiled' if prof else ''}.txt", "w") as f:
        f.write(u)
print(n, "prompts")
PY
