#!/bin/sh
# run.sh - the compile-aware ranking on the test evaluator's landscape (no
# GPU): 6 seeded 700-evaluation runs of sgemm_warptile with each given
# kevo_test, then the best found within 100, 250 and 500 s of simulated cost
# (best_at_cost.py) and the evaluations a compile.
# usage: bench/results/2026-11-28-compile-aware/run.sh KEVO_TEST...
# (e.g. the kevo_test of 9c3cdc9^ ... of 48f6990^ and of 48f6990)
D=$(cd "$(dirname "$0")" && pwd)
for k in "$@"; do
    js=""
    for seed in 1 2 3 4 5 6; do
        S=$(mktemp -d)
        "$k" run --evaluator test --problem gemm --dtype fp32 \
            --shape 4096x4096x4096 --template sgemm_warptile --seed $seed \
            --evals 700 --runs-dir "$S" --name r --quiet
        js="$js $S/r/journal.jsonl"
    done
    echo "== $k"
    python3 "$D/best_at_cost.py" $js
    rm -rf $(dirname $(dirname $js))
done
