#!/bin/sh
# engine_ms per generation (run directories under $RUNS, /tmp by default), build A against build B, same run (softmax
# fp32 4096^2, seed 11, 14 generations, the test evaluator with the
# evidence a GPU run records), alternating, N rounds
A=$1; B=$2; N=${3:-3}
for r in $(seq $N); do
  for x in A B; do
    eval bin=\$$x
    d=$(mktemp -d -p "${RUNS:-/tmp}")
    KEVO_TEST_EVIDENCE=1 KEVO_TEST_DROP=1 KEVO_TEST_IDLE_MS=100 KEVO_TEST_PHASE_MS=40,2.5,1.3 \
      KEVO_TEST_COMPILERS=16 $bin run --evaluator test --problem softmax --dtype fp32 \
      --shape 4096x4096 --seed 11 --generations 14 --runs-dir $d --name a --quiet
    python3 - "$d/a/journal.jsonl" "$x" "$r" <<'PY'
import json, sys, statistics as st
g = [json.loads(l) for l in open(sys.argv[1])]
g = [r["engine_ms"] for r in g if r["type"] == "gen" and r["gen"] >= 1]
f = lambda k: st.median(x[k] for x in g)
print(f"{sys.argv[2]} round {sys.argv[3]}: generations 1-13 median ms: breed {f('breed'):.1f}  sources {f('sources'):.1f}  finish {f('finish_last'):.1f}  sum {f('breed')+f('sources')+f('finish_last'):.1f}")
PY
    rm -rf $d
  done
done
