# The committed real run (examples/, made on the H100 by
# scripts/gpu-example.sh): kevo replay proves identical decisions from its
# journal, kevo report and kevo leaderboard work on it, and the leaderboard
# marks it verified (its verify.json was written by kevo verify there).
. tests/cli/lib.inc
EX=examples/h100-gemm-fp32-1024x768x512
cp -r "$EX" "$SCRATCH/ex"
"$KEVO" replay "$SCRATCH/ex" >"$SCRATCH/replay.out" 2>&1 &&
    grep -q '^identical: 69 evaluations, 4 generations' "$SCRATCH/replay.out" &&
    ok "replay of the H100 run: $(head -1 "$SCRATCH/replay.out")" ||
    { fail "replay of the H100 run"; cat "$SCRATCH/replay.out"; }
if command -v gnuplot >/dev/null 2>&1; then
    "$KEVO" report "$SCRATCH/ex" --out "$SCRATCH/rep" --quiet &&
        grep -q 'sgemm_splitk' "$SCRATCH/rep/report.md" &&
        [ "$(ls "$SCRATCH"/rep/plots/*.svg | wc -l)" -ge 3 ] &&
        grep -q '<svg' "$SCRATCH/rep/report.html" &&
        ok "report of the H100 run: report.md, report.html with $(ls "$SCRATCH"/rep/plots/*.svg | wc -l) SVG plots" ||
        fail "report of the H100 run"
else
    fail "gnuplot missing (scripts/install-deps.sh installs gnuplot-nox)"
fi
"$KEVO" leaderboard examples --out "$SCRATCH/lb" >"$SCRATCH/lb.out" 2>&1 &&
    grep -q 'H100.*' "$SCRATCH/lb.out" &&
    grep -q 'yes (drift' "$SCRATCH/lb.out" &&
    [ -s "$SCRATCH/lb.csv" ] && [ -s "$SCRATCH/lb.json" ] &&
    ok "leaderboard of examples/: one verified H100 entry, md/csv/json written" ||
    { fail "leaderboard of examples/"; cat "$SCRATCH/lb.out"; }
cmp -s "$EX/journal.jsonl" "$SCRATCH/ex/journal.jsonl" &&
    ok "the example run directory is untouched" || fail "example run changed"
finish
