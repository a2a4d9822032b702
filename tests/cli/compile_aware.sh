# The search is compile-aware (issue 32): a point that differs from a
# measured one only in launch-only params (tpl.h "arg"; sgemm_warptile's
# GROUP_M, SPLITK, RT) reuses its binary, so the surrogate ranks such
# points ahead of compiled ones predicted a little better. With the test
# evaluator, seed 1, 400 evaluations of sgemm_warptile: 288 distinct
# compiles before (1.39 evaluations a compile), 240 with it (1.67).
. tests/cli/lib.inc
$T run --evaluator test --problem gemm --dtype fp32 --shape 4096x4096x4096 \
    --template sgemm_warptile --seed 1 --evals 400 --runs-dir "$SCRATCH" \
    --name ca --quiet || fail "compile-aware run"
# compile key: the template and its params but the launch-only ones
keys=$(grep '"type":"eval"' "$SCRATCH/ca/journal.jsonl" |
    sed 's/.*"template":"\([^"]*\)","params":{\([^}]*\)}.*/\1 \2/' |
    sed 's/"GROUP_M":[0-9]*,\{0,1\}//; s/"SPLITK":[0-9]*,\{0,1\}//; s/"RT":[0-9]*,\{0,1\}//' |
    sort -u | wc -l)
n=$(grep -c '"type":"eval"' "$SCRATCH/ca/journal.jsonl")
# evaluations per compile >= 1.55 (integer arithmetic: 100 n >= 155 keys)
[ "$n" -eq 400 ] && [ "$keys" -gt 0 ] && [ $((100 * n)) -ge $((155 * keys)) ] &&
    ok "the search evaluates launch-only neighbours of measured points: $n evaluations, $keys compiles" ||
    fail "evaluations per compile: $n evaluations, $keys compiles (want >= 1.55 a compile)"
# generation 0 (Latin hypercube per template) spends its compiles on the
# compiled params: every launch-only one at its default (softmax's OCC 0,
# softmax_bulk's BPS 1 and DROP 1), also where a template's point list is
# a sample (softmax_unit: 878880 points)
$T run --evaluator test --problem softmax --shape 4096x4096 --seed 11 --generations 1 \
    --runs-dir "$SCRATCH" --name g0 --quiet || fail "softmax generation-0 run"
off=$(python3 -c 'import json,sys
n = off = 0
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("type") != "eval" or r["gen"] != 0:
        continue
    p = r["params"]; n += 1
    off += p.get("OCC", 0) != 0 or p.get("BPS", 1) != 1 or p.get("DROP", 1) != 1
print(off if n > 100 else "few")' "$SCRATCH/g0/journal.jsonl")
[ "$off" = 0 ] &&
    ok "generation 0 holds every launch-only param at its default (the fill measures the rest)" ||
    fail "generation 0: $off points with a launch-only param off its default"
finish
