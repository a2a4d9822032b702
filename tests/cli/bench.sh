# kevo bench without a GPU: the real suite parses (25 named cases), bad
# suites are refused with the file and case named, --from-runs tabulates
# run directories made with the test evaluator (best kernel, throughput,
# ratio, unsupported dtypes, cases not run) into .json and .md results
# (and is an error when no case has a run there), and running the suite
# without a GPU stops at once with a clear message.
. tests/cli/lib.inc
K="$KEVO"

# the repository's suite: every case parses; with no run of any case in
# the --from-runs directory that is an error that says what was expected
mkdir -p "$SCRATCH/empty"
want=$(grep -c '"problem\(_file\)\{0,1\}"' bench/suite.json)
if $K bench --suite bench/suite.json --from-runs "$SCRATCH/empty" --out "$SCRATCH/r0" \
        >"$SCRATCH/out" 2>"$SCRATCH/err"; then
    fail "bench --from-runs with no run of any case exited 0"; cat "$SCRATCH/out"
elif grep -qF -- "--from-runs: no run in '$SCRATCH/empty' matches a case of 'bench/suite.json' ($want cases; a case's run is <dir>/<case>/" "$SCRATCH/err" \
        && [ ! -e "$SCRATCH/r0" ] && [ ! -s "$SCRATCH/out" ]; then
    ok "bench/suite.json parses ($want cases); --from-runs with no matching run exits 1 and says what it expected"
else
    fail "bench --from-runs with no matching run"; cat "$SCRATCH/err"
fi

# a small suite; gemm bf16 gets a template library without bf16 support
cat >"$SCRATCH/suite.json" <<'EOF'
{"suite": "t", "seed": 5, "time": "10s",
 "cases": [{"problem": "gemm", "dtype": "fp32", "shape": "300x200x100"},
           {"problem": "softmax", "dtype": "fp32", "shape": "64x1000"},
           {"problem": "gemm", "dtype": "bf16", "shape": "256x256x256"},
           {"problem": "softmax", "dtype": "fp32", "shape": "128x128"}]}
EOF
mkdir -p "$SCRATCH/tl/gemm" "$SCRATCH/tl/softmax"
for f in templates/gemm/*.cu; do
    grep -q '^// kevo: dtypes fp32$' "$f" && cp "$f" "$SCRATCH/tl/gemm/"
done
cp templates/softmax/*.cu "$SCRATCH/tl/softmax/"
R="$SCRATCH/runs"
for c in "gemm fp32 300x200x100" "softmax fp32 64x1000"; do
    set -- $c
    $T run --evaluator test --problem $1 --dtype $2 --shape $3 --seed 5 --generations 3 \
        --runs-dir "$R" --name "$1-$2-$3" --quiet || fail "setup run $1"
done
$K bench --suite "$SCRATCH/suite.json" --templates-dir "$SCRATCH/tl" --from-runs "$R" \
    --out "$SCRATCH/res" >"$SCRATCH/out" 2>"$SCRATCH/err" || { fail "bench --from-runs"; cat "$SCRATCH/err"; }
member() { sed -n "s/^[[:space:]]*\"$1\":[[:space:]]*\"*\([^\",]*\)\"*,*$/\1/p" "$2" | head -1; }
tpl=$(member template "$R/gemm-fp32-300x200x100/best.json")
grep -q "^| gemm-fp32-300x200x100 | ok | $tpl | [0-9.]* [TGM]FLOP/s |" "$SCRATCH/out" \
    && [ -n "$tpl" ] && grep -q '^| softmax-fp32-64x1000 | ok | ' "$SCRATCH/out" \
    && ok "bench --from-runs tabulates each run's best kernel ($tpl) and throughput" \
    || { fail "bench rows"; cat "$SCRATCH/out"; }
grep -q '^| gemm-bf16-256x256x256 | unsupported dtype |' "$SCRATCH/out" \
    && grep -q '^| softmax-fp32-128x128 | not run |' "$SCRATCH/out" \
    && ok "a dtype no template supports is reported, a missing run is 'not run'" \
    || { fail "unsupported / not run rows"; cat "$SCRATCH/out"; }
json=$(ls "$SCRATCH"/res/*.json 2>/dev/null | head -1)
md=$(ls "$SCRATCH"/res/*.md 2>/dev/null | head -1)
if [ -n "$json" ] && [ -n "$md" ] && cmp -s "$md" "$SCRATCH/out"; then
    # the gemm case's block of the results: from its "case" to the next
    awk '/"case":/ { on = /gemm-fp32-300x200x100/ } on' "$json" >"$SCRATCH/block"
    [ -n "$(member commit "$json")" ] && [ -n "$(member date "$json")" ] \
        && grep -q '"gpu":' "$json" && [ "$(grep -c '"case":' "$json")" = 4 ] \
        && [ "$(member template "$SCRATCH/block")" = "$tpl" ] \
        && [ "$(member ratio "$SCRATCH/block")" = "$(member ratio "$R/gemm-fp32-300x200x100/best.json")" ] \
        && [ "$(member status "$SCRATCH/block")" = ok ] \
        && ok "the .json results carry commit, GPU, date and each case's best and ratio" \
        || { fail "results json"; cat "$json"; }
else
    fail "results files (.json and an .md equal to the printed table)"; ls "$SCRATCH/res"
fi
$K bench --suite "$SCRATCH/suite.json" --from-runs "$R" --out "$SCRATCH/res2" \
    --case softmax --json >"$SCRATCH/j" 2>/dev/null
[ "$(sed -n 's/.*"case":[[:space:]]*"\([^"]*\)".*/\1/p' "$SCRATCH/j" | tr '\n' ' ')" = \
  "softmax-fp32-64x1000 softmax-fp32-128x128 " ] \
    && ok "--case filters the suite and --json prints the results object" || { fail "--case/--json"; cat "$SCRATCH/j"; }

# kevo verify's result (verify.json, as cmd_verify.c writes it) of a run's
# best shows as the interleaved ratio (the launch-by-launch one where there
# is one, else the per-round one); one of another best is left out
hash=$(member hash "$R/gemm-fp32-300x200x100/best.json")
vj() { cat <<EOF2
{"run": "x", "best_hash": "$1", "reps": 7, "same_gpu": true, "verified": true,
 "entries": [{"hash": "$1", "template": "t", "best": true, "outcome": "ok",
   "recorded_ns": 1000, "measured_ns": 1010, "drift": 0.01, "noise": 0.02,
   "within_noise": true, "recorded_ratio": 1.2, "measured_ratio": 1.19,
   "vs_baseline_interleaved": $2, $3 "rounds_ns": [1010]}]}
EOF2
}
vj "$hash" 1.2345 '"vs_baseline_paired": 1.0123, "vs_baseline_paired_noise": 0.002, "vs_baseline_pairs": 40,' \
    >"$R/gemm-fp32-300x200x100/verify.json"
vj 0123456789abcdef 1.5 >"$R/softmax-fp32-64x1000/verify.json"
$K bench --suite "$SCRATCH/suite.json" --templates-dir "$SCRATCH/tl" --from-runs "$R" \
    --out "$SCRATCH/resv" >"$SCRATCH/out" 2>"$SCRATCH/err" || { fail "bench --from-runs with verify.json"; cat "$SCRATCH/err"; }
json=$(ls "$SCRATCH"/resv/*.json 2>/dev/null | head -1)
awk '/"case":/ { on = /gemm-fp32-300x200x100/ } on' "$json" >"$SCRATCH/block"
awk '/"case":/ { on = /softmax-fp32-64x1000/ } on' "$json" >"$SCRATCH/block2"
[ -n "$hash" ] && grep -q "^| gemm-fp32-300x200x100 | ok | .* | 1.012x | [0-9]* |$" "$SCRATCH/out" \
    && grep -q "^| softmax-fp32-64x1000 | ok | .* | - | [0-9]* |$" "$SCRATCH/out" \
    && grep -q '^| case | status | best kernel | throughput | roofline | baseline | ratio | interleaved | evals |$' "$SCRATCH/out" \
    && [ "$(member interleaved_ratio "$SCRATCH/block")" = 1.2345 ] && [ "$(member reps "$SCRATCH/block")" = 7 ] \
    && [ "$(member paired_ratio "$SCRATCH/block")" = 1.0123 ] \
    && ! grep -q '"verify"' "$SCRATCH/block2" \
    && ok "the interleaved ratio of verify.json shows for the run's best; a verify.json of another kernel is left out" \
    || { fail "interleaved column"; cat "$SCRATCH/out"; cat "$SCRATCH/block"; }
rm -f "$R"/*/verify.json
expect_fail "--verify-reps out of range is refused" "--verify-reps: '51' is not an integer from 0 to 50" \
    $K bench --suite "$SCRATCH/suite.json" --from-runs "$R" --verify-reps 51

# bad suites name the file and the case
echo '{"cases": [{"problem": "gemm", "dtype": "fp32", "shape": "1x2"}]}' >"$SCRATCH/bad1.json"
expect_fail "a bad shape names the suite file and the case" "bad1.json: case 1: bad shape" \
    $K bench --suite "$SCRATCH/bad1.json" --from-runs "$R"
echo '{"cases": [{"problem": "gemm", "dtype": "fp32", "shape": "64x64x64"}, {"problem": "conv", "dtype": "fp32", "shape": "1x1"}]}' >"$SCRATCH/bad2.json"
expect_fail "an unknown problem names the case" "case 2: unknown problem 'conv'" \
    $K bench --suite "$SCRATCH/bad2.json" --from-runs "$R"
echo '{"seed": -1, "cases": [{"problem": "gemm", "dtype": "fp32", "shape": "64x64x64"}]}' >"$SCRATCH/bad4.json"
expect_fail "a negative suite seed is refused by the spec's rule" "bad4.json: 'seed' must be an integer in [0, 18446744073709551615]" \
    $K bench --suite "$SCRATCH/bad4.json" --from-runs "$R"
echo '{"cases": [{"problem": "gemm", "dtype": "fp32", "shape": "64x64x64", "seed": 2.5}]}' >"$SCRATCH/bad5.json"
expect_fail "a fractional case seed names the case" "bad5.json: case 1: 'seed' must be an integer" \
    $K bench --suite "$SCRATCH/bad5.json" --from-runs "$R"
# a seed past 2^63 (as a string, the spec's form past 2^53) is taken whole
echo '{"seed": "18446744073709551615", "cases": [{"problem": "gemm", "dtype": "fp32", "shape": "64x64x64"}]}' >"$SCRATCH/big.json"
$K bench --suite "$SCRATCH/big.json" --from-runs "$R" >/dev/null 2>"$SCRATCH/errbig"
grep -q "no run in .* matches a case" "$SCRATCH/errbig" && ! grep -q "seed" "$SCRATCH/errbig" &&
    ok "a suite seed of 2^64-1 (a string) is accepted" || { fail "suite seed 2^64-1"; cat "$SCRATCH/errbig"; }
echo '{"cases": [' >"$SCRATCH/bad3.json"
expect_fail "a suite that is not JSON is refused" "bad3.json: not valid JSON" \
    $K bench --suite "$SCRATCH/bad3.json" --from-runs "$R"
expect_fail "a missing suite is named" "cannot read suite" $K bench --suite "$SCRATCH/none.json"
expect_fail "--from-runs of a missing directory" "does not exist" \
    $K bench --suite "$SCRATCH/suite.json" --from-runs "$SCRATCH/none"

if [ ! -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ] && ! ldconfig -p | grep -q libcuda.so.1; then
    $K bench --suite "$SCRATCH/suite.json" --quick --runs-dir "$SCRATCH/gpuruns" --out "$SCRATCH/r3" \
        >"$SCRATCH/out" 2>"$SCRATCH/err"; rc=$?
    [ $rc = 3 ] && grep -q "kevo bench needs a GPU" "$SCRATCH/err" && [ ! -e "$SCRATCH/gpuruns" ] \
        && ok "kevo bench without a GPU says it needs one (exit 3) and runs nothing" \
        || { fail "bench without a GPU: exit $rc"; cat "$SCRATCH/err"; }
fi
$K bench --help | grep -q "usage: kevo bench" && ok "bench --help" || fail "bench --help"
finish
