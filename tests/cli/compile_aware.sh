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
finish
