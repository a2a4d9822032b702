# Issue 13 search tools: run --strategy sweep (every valid point once, in
# a seeded order, resumable), kevo table, run --simulate (deterministic,
# restricted to the table's points, no GPU), bench-search.
. tests/cli/lib.inc
SW="--evaluator test --problem softmax --shape 4096x4096 --template softmax_warp
    --strategy sweep --runs-dir $SCRATCH"
# softmax_warp has 21067 valid points (kevo list), all supported at 4096x4096
$T run $SW --name full --seed 3 --evals 100000 >/dev/null 2>&1 &&
    $T run $SW --name full2 --seed 3 --evals 100000 2>&1 | grep -q 'finished (search space exhausted): 21067 evaluations' ||
    fail "sweep run"
n=$(grep -c '"type":"eval"' "$SCRATCH/full/journal.jsonl")
u=$(grep -o '"hash":"[0-9a-f]*"' "$SCRATCH/full/journal.jsonl" | sort -u | wc -l)
[ "$n" = 21067 ] && [ "$u" = 21067 ] &&
    ok "sweep evaluates each of the 21067 valid points once, then stops" ||
    fail "sweep: $n evaluations, $u distinct (want 21067)"
$T run $SW --name s3 --seed 3 --evals 300 --quiet &&
    $T run $SW --name s4 --seed 4 --evals 300 --quiet || fail "sweep runs"
first() { grep -o '"hash":"[0-9a-f]*"' "$1" | head -300; }
first "$SCRATCH/full/journal.jsonl" >"$SCRATCH/f.h"
first "$SCRATCH/s3/journal.jsonl" >"$SCRATCH/s3.h"
first "$SCRATCH/s4/journal.jsonl" >"$SCRATCH/s4.h"
cmp -s "$SCRATCH/f.h" "$SCRATCH/s3.h" && ! cmp -s "$SCRATCH/s3.h" "$SCRATCH/s4.h" &&
    ok "the sweep order is fixed by the seed (same seed same order, another seed another)" ||
    fail "sweep order and seed"
# kill -9 in the middle of a sweep, resume: the uninterrupted journal
KEVO_TEST_EVAL_US=1000 $T run $SW --name k --seed 3 --evals 600 --quiet &
pid=$!
sleep 0.4
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
$T resume "$SCRATCH/k" --quiet && $T run $SW --name r --seed 3 --evals 600 --quiet &&
    $CANON "$SCRATCH/k/journal.jsonl" >"$SCRATCH/k.c" &&
    $CANON "$SCRATCH/r/journal.jsonl" >"$SCRATCH/r.c" &&
    cmp -s "$SCRATCH/k.c" "$SCRATCH/r.c" &&
    ok "a sweep killed with -9 and resumed writes the uninterrupted journal" ||
    fail "sweep kill/resume"

# a table of 300 points of softmax_warp (a sample of its space)
"$KEVO" table "$SCRATCH/s3" --out "$SCRATCH/t.jsonl" 2>"$SCRATCH/err" &&
    [ "$(grep -c '"o":' "$SCRATCH/t.jsonl")" = 300 ] &&
    "$KEVO" table "$SCRATCH/t.jsonl" 2>/dev/null | cmp -s - "$SCRATCH/t.jsonl" &&
    ok "kevo table: 300 points from a run directory; a table reads back as itself" ||
    { fail "kevo table"; cat "$SCRATCH/err"; }
SIM="--simulate $SCRATCH/t.jsonl --evals 200 --runs-dir $SCRATCH --quiet"
"$KEVO" run $SIM --name sim1 --seed 9 && "$KEVO" run $SIM --name sim2 --seed 9 &&
    "$KEVO" run $SIM --name sim3 --seed 10 || fail "simulated runs"
$CANON "$SCRATCH/sim1/journal.jsonl" >"$SCRATCH/sim1.c"
$CANON "$SCRATCH/sim2/journal.jsonl" >"$SCRATCH/sim2.c"
$CANON "$SCRATCH/sim3/journal.jsonl" >"$SCRATCH/sim3.c"
cmp -s "$SCRATCH/sim1.c" "$SCRATCH/sim2.c" && ! cmp -s "$SCRATCH/sim1.c" "$SCRATCH/sim3.c" &&
    [ "$(grep -c '"type":"eval"' "$SCRATCH/sim1/journal.jsonl")" = 200 ] &&
    ok "run --simulate: same seed same journal, another seed another (200 evaluations, no GPU)" ||
    fail "simulate determinism"
# every simulated evaluation is a point of the table, with its recorded result
python3 - "$SCRATCH/t.jsonl" "$SCRATCH/sim1/journal.jsonl" <<'PY' &&
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
names = [l["name"] for l in lines if l.get("type") == "template"]
tab = {}
for l in lines:
    if "v" in l:
        tab[(names[l["t"]], tuple(l["v"]))] = (l["o"], l.get("f", 0))
n = 0
for l in open(sys.argv[2]):
    r = json.loads(l)
    if r["type"] != "eval":
        continue
    key = (r["template"], tuple(r["params"].values()))
    assert key in tab, key
    assert tab[key][0] == r["outcome"] and abs(tab[key][1] - r["fitness"]) <= 1e-9 * tab[key][1], key
    n += 1
assert n == 200
PY
    ok "every simulated evaluation is a point of the table with its recorded outcome and fitness" ||
    fail "simulated evaluations outside the table"
grep -q '"evaluator":"simulate"\|"evaluator":	"simulate"' "$SCRATCH/sim1/manifest.json" &&
    "$KEVO" run --simulate "$SCRATCH/t.jsonl" --evals 5 --runs-dir "$SCRATCH" --name sim5 2>&1 |
    grep -q "SIMULATED: no GPU.*restricted to the table's points" &&
    ok "a simulated run says so (output and manifest)" || fail "simulated run not marked"
"$KEVO" resume "$SCRATCH/sim1" --evals 260 --quiet &&
    [ "$(grep -c '"type":"eval"' "$SCRATCH/sim1/journal.jsonl")" = 260 ] &&
    ok "a simulated run resumes from its table" || fail "simulated resume"
ANTHROPIC_API_KEY=sk-kevo-test-unused "$KEVO" run --simulate "$SCRATCH/t.jsonl" --evals 5 \
    --runs-dir "$SCRATCH" --name sim6 --quiet &&
    grep -q '"llm":[[:space:]]*"off"' "$SCRATCH/sim6/manifest.json" &&
    ok "a simulated run uses no LLM API even with a key set" || fail "simulate and LLM"
expect_fail "simulate: missing table" "cannot read table" \
    "$KEVO" run --simulate "$SCRATCH/nope.jsonl" --runs-dir "$SCRATCH" --name x1
expect_fail "simulate: table of another problem" "recorded for softmax, not gemm" \
    "$KEVO" run --simulate "$SCRATCH/t.jsonl" --problem gemm --runs-dir "$SCRATCH" --name x2
head -3 "$SCRATCH/t.jsonl" >"$SCRATCH/bad.jsonl"
echo '{"t":0,"v":[1,2],"o":"ok","f":1}' >>"$SCRATCH/bad.jsonl"
expect_fail "simulate: malformed point names its line" "bad.jsonl:4: 'v' must hold 7 values" \
    "$KEVO" run --simulate "$SCRATCH/bad.jsonl" --runs-dir "$SCRATCH" --name x3
# bench-search on the 300-point table: the budget is the table, so random
# search (a sweep of it) always gets there; same output for the same input
"$KEVO" bench-search "$SCRATCH/t.jsonl" --seeds 10 --out "$SCRATCH/b.md" >"$SCRATCH/b.out" 2>&1 &&
    "$KEVO" bench-search "$SCRATCH/t.jsonl" --seeds 10 >"$SCRATCH/b2.out" 2>&1 &&
    grep -q '^| kevo default (evolve) | [0-9.]* ([0-9]*-[0-9]*) | [0-9]*/10 |' "$SCRATCH/b.out" &&
    grep -q '^| random search (sweep) | [0-9.]* ([0-9]*-[0-9]*) | 10/10 | .* | 10/10 |$' "$SCRATCH/b.out" &&
    grep -q '300 points of 1 template' "$SCRATCH/b.out" &&
    cmp -s "$SCRATCH/b.out" "$SCRATCH/b2.out" && cmp -s "$SCRATCH/b.out" "$SCRATCH/b.md" &&
    ok "bench-search: 10 seeds of kevo and random search on a table, deterministic, Markdown out" ||
    { fail "bench-search"; cat "$SCRATCH/b.out"; }
# bench-search's kevo is kevo run --simulate: seed 1 reaches 1 % at the same evaluation
"$KEVO" run --simulate "$SCRATCH/t.jsonl" --seed 1 --evals 300 --runs-dir "$SCRATCH" --name s1 --quiet
first=$(python3 - "$SCRATCH/t.jsonl" "$SCRATCH/s1/journal.jsonl" <<'PY'
import json, sys
best = max(json.loads(l).get("f", 0) for l in open(sys.argv[1]) if '"o":"ok"' in l)
ev = [json.loads(l) for l in open(sys.argv[2])]
ev = [r for r in ev if r["type"] == "eval"]
print(next((i + 1 for i, r in enumerate(ev) if r["outcome"] == "ok" and r["fitness"] >= 0.99 * best), 0))
PY
)
bench1=$(grep '^- kevo default' "$SCRATCH/b.out" | awk '{print $5}' | cut -d/ -f1)
[ -n "$first" ] && [ "$first" = "$bench1" ] &&
    ok "bench-search's kevo row is what kevo run --simulate does (seed 1: $first evaluations to 1 %)" ||
    fail "bench-search ($bench1) and run --simulate ($first) differ"
"$KEVO" replay "$SCRATCH/sim2" 2>&1 | grep -q '^identical: 200 evaluations' &&
    "$KEVO" replay "$SCRATCH/s1" 2>&1 |
        grep -q "^identical: $(grep -c '"type":"eval"' "$SCRATCH/s1/journal.jsonl") evaluations" &&
    ok "kevo replay proves simulated runs identical" || fail "replay of a simulated run"
expect_fail "bench-search: unknown template" "no template 'nope' in table" \
    "$KEVO" bench-search "$SCRATCH/t.jsonl" --template nope
expect_fail "sweep: bad strategy" "--strategy: 'greedy' is not evolve or sweep" \
    $T run $SW --strategy greedy --name x4 --quiet
finish
