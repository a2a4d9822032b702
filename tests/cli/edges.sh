# Sharp edges from issue 10 (items 4, 7-15): each case states the input
# and what kevo must do with it. Runs with the test evaluator, no GPU.
. tests/cli/lib.inc
K="$KEVO"
R="--evaluator test --runs-dir $SCRATCH --quiet"
# a command that must not hang or grow without bound: 20 s, 2 GB
bounded() { (ulimit -v 2000000; timeout 20 "$@"); }

# ---- item 9: every read is capped and refuses non-regular files
expect_fail "eval refuses /dev/zero as not a regular file" "not a regular file" \
    bounded $K eval /dev/zero --shape 64x64x64
mkfifo "$SCRATCH/fifo"
expect_fail "eval refuses a FIFO at once" "not a regular file" \
    bounded $K eval "$SCRATCH/fifo" --shape 64x64x64
expect_fail "--spec /dev/zero is refused" "cannot read spec '/dev/zero': not a regular file" \
    bounded $T run $R --spec /dev/zero --name z
expect_fail "--spec DIR says it is a directory" "is a directory" \
    bounded $T run $R --spec "$SCRATCH" --name z
truncate -s 65M "$SCRATCH/big.json"
expect_fail "a spec past the size cap is too large" "too large" \
    bounded $T run $R --spec "$SCRATCH/big.json" --name z
$T run $R --problem gemm --shape 64x64x64 --generations 1 --name m9 || fail "setup m9"
rm "$SCRATCH/m9/manifest.json"; ln -s /dev/zero "$SCRATCH/m9/manifest.json"
expect_fail "status: manifest.json -> /dev/zero is refused" "not a regular file" \
    bounded $T status "$SCRATCH/m9"
expect_fail "resume: manifest.json -> /dev/zero is refused" "not a regular file" \
    bounded $T resume "$SCRATCH/m9"
$T run $R --problem gemm --shape 64x64x64 --generations 1 --name j9 || fail "setup j9"
rm "$SCRATCH/j9/journal.jsonl"; mkfifo "$SCRATCH/j9/journal.jsonl"
expect_fail "status: a journal that is a FIFO is refused at once" "not a regular file" \
    bounded $T status "$SCRATCH/j9"

# ---- item 4: --time / --evals are not capped at 20 generations
S="--problem gemm --shape 300x200x100 --islands 1 --population 4 --offspring 4"
$T run $R $S --evals 200 --name b4 || fail "setup b4"
$T status "$SCRATCH/b4" >"$SCRATCH/s4"
gens=$(grep -c '"type":"gen"' "$SCRATCH/b4/journal.jsonl")
if [ "$gens" -gt 20 ] && grep -q "evaluations: 200 " "$SCRATCH/s4" &&
    grep -q "budget:.*evaluations 200/200.*(no generation cap)" "$SCRATCH/s4"; then
    ok "--evals without --generations runs past 20 generations ($gens)"
else
    fail "--evals capped ($gens generations)"; cat "$SCRATCH/s4"
fi
python3 - "$SCRATCH/b4/manifest.json" <<'PY' && ok "the manifest lists the budgets in force" || fail "manifest budgets"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["budgets"] == {"evals": 200}, m["budgets"]
assert m["spec"]["generations"] == 0
PY
$T run $R $S --time 2s --name t4 || fail "setup t4"
gens=$(grep -c '"type":"gen"' "$SCRATCH/t4/journal.jsonl")
[ "$gens" -gt 20 ] && ok "--time without --generations runs past 20 generations" \
    || fail "--time capped at $gens generations"
$T run $R $S --evals 200 --generations 5 --name g4 || fail "setup g4"
gens=$(grep -c '"type":"gen"' "$SCRATCH/g4/journal.jsonl")
$T status "$SCRATCH/g4" >"$SCRATCH/s4"
[ "$gens" = 5 ] && grep -q "generations 5/5  evaluations" "$SCRATCH/s4" \
    && ok "an explicit --generations still caps a run with --evals" \
    || { fail "--generations 5 with --evals: $gens generations"; cat "$SCRATCH/s4"; }
$T run $R $S --name d4 || fail "setup d4"
gens=$(grep -c '"type":"gen"' "$SCRATCH/d4/journal.jsonl")
[ "$gens" = 20 ] && grep -q '"generations":[[:space:]]*20' "$SCRATCH/d4/manifest.json" \
    && ok "with no budget at all a run stops after 20 generations" \
    || fail "default budget: $gens generations"
$T resume "$SCRATCH/d4" --evals 300 --quiet || fail "resume d4"
n=$(grep -c '"type":"eval"' "$SCRATCH/d4/journal.jsonl")
[ "$n" = 300 ] && ok "resume --evals lifts the default generation cap" \
    || fail "resume --evals: $n evaluations"
finish
