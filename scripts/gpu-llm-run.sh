#!/bin/sh
# gpu-llm-run.sh - issue 5 on the GPU: a kevo run whose LLM answers come
# from a recorded transcript of realistic rewrites (replay provider, no
# API), the same run again (same sequence of proposals expected), and
# kevo replay of the first. Run from the repo root: KEVO=... OUT=... sh
# scripts/gpu-llm-run.sh [RUNS_DIR]
set -u
KEVO=${KEVO:?}
R=${1:-/tmp/kevo-runs}
REC=tests/data/llm-recorded/softmax
A="--problem softmax --dtype fp32 --shape 4096x65536 --template softmax_block \
   --generations 5 --islands 2 --population 8 --offspring 16 --seed 11 \
   --llm replay:$REC --runs-dir $R"
"$KEVO" run $A --name llm-a || echo "run a: exit $?"
"$KEVO" run $A --name llm-b --quiet || echo "run b: exit $?"
seq() { grep '"type":"llm"' "$1/journal.jsonl" |
    sed 's/.*"op":"\([a-z_]*\)".*"verdict":"\([a-z_]*\)".*/\1 \2/'; }
seq "$R/llm-a" >/tmp/llm-a.seq; seq "$R/llm-b" >/tmp/llm-b.seq
echo "== LLM answers of run a (op verdict):"; cat /tmp/llm-a.seq
cmp -s /tmp/llm-a.seq /tmp/llm-b.seq && echo "SAME sequence of proposals in run b" ||
    { echo "DIFFERENT sequence in run b:"; cat /tmp/llm-b.seq; }
echo "== LLM-made children (template outcome fitness):"
grep '"type":"eval"' "$R/llm-a/journal.jsonl" | grep '"template":"llm_' |
    sed 's/.*"template":"\([a-z0-9_]*\)".*"mutator":"\([a-z_]*\)".*"outcome":"\([a-z_]*\)","fitness":\([0-9.e+]*\).*/\1 \2 \3 \4/' | head -40
echo "== best"; cat "$R/llm-a/best.json"
"$KEVO" replay "$R/llm-a"
