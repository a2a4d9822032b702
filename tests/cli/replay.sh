# kevo replay: a run made with the deterministic test evaluator replays
# identical, writes nothing into the run directory, and a journal with one
# record edited (a parent hash, a fitness) or deleted is reported as
# divergent at the right record with a non-zero exit.
. tests/cli/lib.inc
K="$KEVO"
ARGS="--evaluator test --problem gemm --shape 300x200x100 --seed 3 \
      --generations 8 --islands 2 --population 6 --offspring 8 --quiet"
$T run $ARGS --runs-dir "$SCRATCH" --name r || { fail "setup run"; finish; }
J="$SCRATCH/r/journal.jsonl"
n_eval=$(grep -c '"type":"eval"' "$J")
n_gen=$(grep -c '"type":"gen"' "$J")

snap() { (cd "$1" && find . -type f ! -name .lock | sort | xargs md5sum; ls -la . | grep -v " \.\.$") ; }
snap "$SCRATCH/r" >"$SCRATCH/before"
if $K replay "$SCRATCH/r" >"$SCRATCH/out" 2>&1 &&
   grep -q "^identical: $n_eval evaluations, $n_gen generations" "$SCRATCH/out"; then
    ok "a finished run replays identical ($n_eval evaluations, $n_gen generations)"
else
    fail "replay of a finished run"; cat "$SCRATCH/out"
fi
snap "$SCRATCH/r" >"$SCRATCH/after"
cmp -s "$SCRATCH/before" "$SCRATCH/after" && ok "replay writes nothing into the run directory" \
    || { fail "replay changed the run directory"; diff "$SCRATCH/before" "$SCRATCH/after" | head; }
$K replay "$SCRATCH/r" --json >"$SCRATCH/j" && grep -q '"identical":true' "$SCRATCH/j" \
    && grep -q "\"evaluations\":$n_eval" "$SCRATCH/j" \
    && ok "replay --json says identical with the same counts" || { fail "replay --json"; cat "$SCRATCH/j"; }

# a copy of the run with journal line $1 replaced by the text on stdin
# (empty: deleted)
tamper() {
    rm -rf "$SCRATCH/t"; cp -r "$SCRATCH/r" "$SCRATCH/t"
    awk -v L="$1" -v F="$SCRATCH/line" 'NR == L { if ((getline x < F) > 0) print x; next } 1' \
        "$J" >"$SCRATCH/t/journal.jsonl"
}
# expect_divergence "sentence" record
expect_divergence() {
    if $K replay "$SCRATCH/t" >"$SCRATCH/out" 2>&1; then
        fail "$1 (replay says identical)"; cat "$SCRATCH/out"
    elif grep -q "^divergent at record $2 " "$SCRATCH/out"; then
        ok "$1"
    else
        fail "$1 (expected record $2)"; cat "$SCRATCH/out"
    fi
}

# a parent hash changed in an evaluation of generation 2
L=$(grep -n '"type":"eval","gen":2,' "$J" | grep '"parents":\["' | sed -n 3p | cut -d: -f1)
sed -n "${L}p" "$J" | sed -E 's/"parents":\["[0-9a-f]{16}"/"parents":["0123456789abcdef"/' >"$SCRATCH/line"
tamper "$L"
cmp -s "$J" "$SCRATCH/t/journal.jsonl" && fail "parent edit changed nothing"
expect_divergence "an edited parent hash is divergent at its record ($L)" "$L"
grep -q "'parents' differs" "$SCRATCH/out" || { fail "the message names the parents"; cat "$SCRATCH/out"; }

# an evaluation of generation 1 deleted: the next one takes its place
L=$(grep -n '"type":"eval","gen":1,' "$J" | sed -n 4p | cut -d: -f1)
: >"$SCRATCH/line"
tamper "$L"
[ "$(wc -l <"$SCRATCH/t/journal.jsonl")" = "$(( $(wc -l <"$J") - 1 ))" ] || fail "delete did not delete"
expect_divergence "a deleted record is divergent at its place ($L)" "$L"

# the fitness of an ok evaluation of generation 3 (not a confirmed
# challenger) made huge: the engine decides differently at the end of
# that generation, the first record after the generation's evaluations
L=$(grep -n '"type":"eval","gen":3,' "$J" | grep '"outcome":"ok"' | while IFS=: read -r n rest; do
        h=$(printf '%s' "$rest" | sed -E 's/.*"hash":"([0-9a-f]{16})".*/\1/')
        grep -q "\"challenger\":\"$h\"" "$J" || { echo "$n"; break; }
    done)
E=$(awk -v L="$L" 'NR > L && !/"type":"eval"/ { print NR; exit }' "$J")
sed -n "${L}p" "$J" | sed -E 's/"fitness":[0-9.e+]+/"fitness":1e30/' >"$SCRATCH/line"
tamper "$L"
cmp -s "$J" "$SCRATCH/t/journal.jsonl" && fail "fitness edit changed nothing"
expect_divergence "a fitness made best is divergent where the engine decides on it ($E)" "$E"

# a journal cut inside a generation (a stopped run, whose checkpoint is
# the one of the generation before: issue 29.11) still replays identical
head -n $(( $(grep -n '"type":"gen","gen":4' "$J" | cut -d: -f1) - 3 )) "$J" >"$SCRATCH/cut"
rm -rf "$SCRATCH/t"; cp -r "$SCRATCH/r" "$SCRATCH/t"; cp "$SCRATCH/cut" "$SCRATCH/t/journal.jsonl"
g3=$(grep -n '"type":"gen","gen":3' "$J" | cut -d: -f1)
sed -i -E "s/\"journal_records\":[[:space:]]*[0-9]+/\"journal_records\": $g3/" "$SCRATCH/t/checkpoint.json"
$K replay "$SCRATCH/t" >"$SCRATCH/out" 2>&1 && grep -q "ends inside a generation" "$SCRATCH/out" \
    && ok "a journal that ends inside a generation replays identical up to its end" \
    || { fail "replay of a cut journal"; cat "$SCRATCH/out"; }

# an evaluation budget that cuts the last generation
$T run $ARGS --evals 37 --runs-dir "$SCRATCH" --name b || fail "budget run"
$K replay "$SCRATCH/b" >"$SCRATCH/out" 2>&1 && grep -q "^identical: 37 evaluations" "$SCRATCH/out" \
    && ok "a run cut by its evaluation budget replays identical" || { fail "replay of a budget run"; cat "$SCRATCH/out"; }

# an edited source file
# a pruned run directory: sources are re-instantiated, absent files counted
rm -rf "$SCRATCH/p"; cp -r "$SCRATCH/r" "$SCRATCH/p"
n_src=$(ls "$SCRATCH/p/sources" | wc -l)
rm "$SCRATCH/p/sources/"*
if $K replay "$SCRATCH/p" >"$SCRATCH/out" 2>&1 &&
   grep -q "^identical" "$SCRATCH/out" &&
   grep -q "^sources: $n_src absent" "$SCRATCH/out"; then
    ok "a run without its sources/ files still replays identical ($n_src absent, re-instantiated)"
else
    fail "replay of a pruned run"; cat "$SCRATCH/out"
fi
f=$(ls "$SCRATCH/r/sources" | head -1)
rm -rf "$SCRATCH/t"; cp -r "$SCRATCH/r" "$SCRATCH/t"; echo "// edited" >>"$SCRATCH/t/sources/$f"
expect_fail "an edited source fails the replay" "sources/$f does not hash to its name" \
    sh -c "$K replay '$SCRATCH/t' >&2"

expect_fail "replay of a missing run directory says so" "is not a kevo run directory" \
    $K replay "$SCRATCH/nope"
expect_fail "replay without a run directory is a usage error" "expected one run directory" $K replay
$K replay --help | grep -q "usage: kevo replay" && ok "replay --help" || fail "replay --help"
finish
