# kevo leaderboard over a directory of runs where some cannot be ranked:
# a run with no winner, one with a garbage verify.json, one half made (a
# manifest and nothing else, as a run refused after creating its
# directory), one without its manifest and one with a corrupt journal line.
# Each is skipped with a warning naming it and why; the good runs are
# ranked and the exit status is 0. Only bad runs: exit 1, saying so.
. tests/cli/lib.inc
K="$KEVO"
R="$SCRATCH/runs"
for s in 3 4; do
    $T run --evaluator test --problem gemm --shape 300x200x100 --seed $s --generations 2 \
        --template gemm_naive --runs-dir "$R" --name good$s --quiet || fail "setup run $s"
done
$T run --evaluator test --problem gemm --shape 300x200x100 --seed 5 --generations 2 \
    --template gemm_naive --runs-dir "$SCRATCH" --name src --quiet || fail "setup run 5"
G="$SCRATCH/src"
mkdir -p "$R/nobest"; cp -r "$G/manifest.json" "$G/templates" "$R/nobest/"; : >"$R/nobest/journal.jsonl"
cp -r "$G" "$R/garbage"; echo 'garbage{' >"$R/garbage/verify.json"
mkdir -p "$R/half"; cp "$G/manifest.json" "$R/half/"
cp -r "$G" "$R/nomanifest"; rm "$R/nomanifest/manifest.json"
cp -r "$G" "$R/corrupt"; sed -i '3s/.*/{"type":"eval", broken/' "$R/corrupt/journal.jsonl"

$K leaderboard "$R" --out "$SCRATCH/lb" >"$SCRATCH/out" 2>"$SCRATCH/err"; rc=$?
[ $rc = 0 ] && grep -q "^| 1 | good[34] |" "$SCRATCH/out" && grep -q "^| 2 | good[34] |" "$SCRATCH/out" \
    && [ "$(grep -c '^| [0-9]* |' "$SCRATCH/out")" = 2 ] && grep -q "^2 runs\." "$SCRATCH/out" \
    && [ "$(tail -n +2 "$SCRATCH/lb.csv" | wc -l)" = 2 ] \
    && ok "leaderboard ranks the good runs of a directory that holds bad ones (exit 0)" \
    || { fail "leaderboard with bad runs: exit $rc"; cat "$SCRATCH/out" "$SCRATCH/err"; }
warn() { # sentence, run, reason
    grep -qF "warning: skipping '$R/$2': $3" "$SCRATCH/err" && ok "$1" ||
        { fail "$1 (no warning for $2)"; cat "$SCRATCH/err"; }
}
warn "a run without a winner is skipped with a warning" nobest "no winner: no evaluation passed the checks"
warn "a run with a garbage verify.json is skipped, the file named" garbage "$R/garbage/verify.json: malformed JSON"
warn "a half-made run (manifest only) is skipped, the missing journal named" half "cannot read '$R/half/journal.jsonl'"
warn "a run directory without its manifest is skipped" nomanifest "not a complete run (no manifest.json)"
warn "a run with a corrupt journal is skipped with the file and line" corrupt "$R/corrupt/journal.jsonl:3:"

expect_fail "only bad runs: exit 1, saying none could be ranked" "no run could be ranked (2 skipped" \
    $K leaderboard "$R/nobest" "$R/garbage"
finish
