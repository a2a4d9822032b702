# User-defined problems (README "User-defined problems") end to end with
# the test evaluator: kevo list finds the example; kevo run --problem-file
# runs it and the run keeps the file's exact text; with the original gone,
# status, replay, report, leaderboard, export and bench --from-runs read
# the run's copy; a run killed with kill -9 and resumed journals what an
# uninterrupted one does; the spec key problem_file works; a problem with
# no template is optimized from LLM proposals alone, whose prompt carries
# the problem's ABI, description and reference; bad files stop with
# file:line.
. tests/cli/lib.inc
. tests/cli/llm.inc
K="$KEVO"

# a private copy of the example, removed once the runs exist
P="$SCRATCH/probs/scale"
mkdir -p "$P"
cp examples/problems/scale/scale.problem examples/problems/scale/scale_vec.cu "$P/"

# 1. kevo list
$K list --problems-dir "$SCRATCH/probs" >"$SCRATCH/list" 2>&1 &&
    grep -q "^  scale      per-column scale of a ROWS x COLS matrix" "$SCRATCH/list" &&
    grep -q "(user problem: $P/scale.problem)" "$SCRATCH/list" &&
    grep -q "^  scale    scale_vec  *4 params, 192 valid points of 192" "$SCRATCH/list" &&
    ok "kevo list shows a user problem and its templates" ||
    { fail "kevo list"; cat "$SCRATCH/list"; }
$K list --json --problems-dir "$SCRATCH/probs" | grep -q '"file":.*scale.problem' &&
    ok "kevo list --json names the problem's file" || fail "list --json"

# 2. a run; the run directory keeps the file
ARGS="--evaluator test --problem-file $P/scale.problem --dtype bf16 --shape 300x200 \
      --seed 5 --generations 8 --islands 2 --population 6 --offspring 8 --quiet"
$T run $ARGS --runs-dir "$SCRATCH/runs" --name r 2>"$SCRATCH/err" ||
    { fail "run of a user problem"; cat "$SCRATCH/err"; finish; }
R="$SCRATCH/runs/r"
cmp -s "$R/problem.problem" "$P/scale.problem" && [ -f "$R/templates/scale/scale_vec.cu" ] &&
    ok "the run directory keeps the problem file and its template" ||
    fail "problem.problem / templates in the run directory"
grep -q '"problem":[[:space:]]*"scale"' "$R/manifest.json" &&
    ! grep -q "problem_file" "$R/manifest.json" &&
    ok "the manifest's spec names the problem, not the original path" ||
    fail "manifest spec"

# 3. the uninterrupted reference and a killed + resumed run
export KEVO_TEST_EVAL_US=10000 # ~1 s a run: the kills land inside it
$T run $ARGS --runs-dir "$SCRATCH/runs" --name ref || fail "reference run"
$CANON "$SCRATCH/runs/ref/journal.jsonl" >"$SCRATCH/ref.canon"
bad=0 killed=0
for at in 0.15 0.45; do
    rm -rf "$SCRATCH/runs/k"
    $T run $ARGS --runs-dir "$SCRATCH/runs" --name k &
    pid=$!
    sleep $at
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    # killed mid-run: fewer generations journaled than the reference's
    [ "$(grep -c '"type":"gen"' "$SCRATCH/runs/k/journal.jsonl" 2>/dev/null)" -lt \
      "$(grep -c '"type":"gen"' "$SCRATCH/runs/ref/journal.jsonl")" ] && killed=$((killed + 1))
    if [ -d "$SCRATCH/runs/k" ]; then
        $T resume "$SCRATCH/runs/k" --quiet 2>"$SCRATCH/err" || { bad=1; cat "$SCRATCH/err"; }
    else
        $T run $ARGS --runs-dir "$SCRATCH/runs" --name k || bad=1
    fi
    $CANON "$SCRATCH/runs/k/journal.jsonl" >"$SCRATCH/k.canon"
    cmp -s "$SCRATCH/ref.canon" "$SCRATCH/k.canon" || { bad=1; echo "killed at ${at}s: differs"; }
done
unset KEVO_TEST_EVAL_US
[ $bad = 0 ] && [ $killed -ge 1 ] &&
    ok "a user-problem run killed with kill -9 ($killed of 2 mid-run) and resumed journals what an uninterrupted one does" ||
    fail "kill/resume of a user-problem run"

# 4. the original file gone: every command reads the run's copy
rm -rf "$SCRATCH/probs"
$K status "$R" >"$SCRATCH/out" 2>&1 && grep -q "^problem: *scale bf16 300x200" "$SCRATCH/out" &&
    ok "status reads the run's problem file" || { fail "status"; cat "$SCRATCH/out"; }
n_eval=$(grep -c '"type":"eval"' "$R/journal.jsonl")
$K replay "$R" >"$SCRATCH/out" 2>&1 && grep -q "^identical: $n_eval evaluations" "$SCRATCH/out" &&
    ok "replay of a user-problem run is identical with the original file gone" ||
    { fail "replay"; cat "$SCRATCH/out"; }
$K report "$R" >/dev/null 2>"$SCRATCH/err" && grep -q "scale" "$R/report/report.md" &&
    ok "report of a user-problem run" || { fail "report"; cat "$SCRATCH/err"; }
$K leaderboard "$SCRATCH/runs" >"$SCRATCH/out" 2>&1 && grep -q "^## scale bf16 300x200" "$SCRATCH/out" &&
    ok "leaderboard ranks user-problem runs" || { fail "leaderboard"; cat "$SCRATCH/out"; }
$K export "$R" --format cu >/dev/null 2>"$SCRATCH/err" &&
    grep -qF 'KERNEL(const elem_t *__restrict__ x, const elem_t *__restrict__ g, elem_t *__restrict__ y, int ROWS, int COLS, void *ws)' "$R"/export/kevo_scale.cu &&
    grep -q "typedef __nv_bfloat16 elem_t" "$R"/export/kevo_scale.cu &&
    ok "export --format cu writes the winner with the problem's ABI" ||
    { fail "export"; cat "$SCRATCH/err"; }
# bench --from-runs: a suite case names the problem by its file
mkdir -p "$SCRATCH/probs2/scale" "$SCRATCH/bruns"
cp examples/problems/scale/scale.problem "$SCRATCH/probs2/scale/"
cp -r "$R" "$SCRATCH/bruns/scale-bf16-300x200"
cat >"$SCRATCH/suite.json" <<EOF
{"suite": "t", "seed": 5, "time": "10s",
 "cases": [{"problem_file": "$SCRATCH/probs2/scale/scale.problem", "dtype": "bf16", "shape": "300x200"}]}
EOF
$K bench --suite "$SCRATCH/suite.json" --from-runs "$SCRATCH/bruns" --out "$SCRATCH/bres" \
    >"$SCRATCH/out" 2>"$SCRATCH/err" &&
    grep -q "^| scale-bf16-300x200 | ok | scale_vec | [0-9.]* [TGMk]*B/s |" "$SCRATCH/out" &&
    ok "bench takes a case by problem_file and tabulates its run" ||
    { fail "bench problem_file case"; cat "$SCRATCH/out" "$SCRATCH/err"; }

# 5. the spec key problem_file
mkdir -p "$SCRATCH/probs/scale"
cp examples/problems/scale/scale.problem examples/problems/scale/scale_vec.cu "$SCRATCH/probs/scale/"
cat >"$SCRATCH/spec.json" <<EOF
{"problem_file": "$SCRATCH/probs/scale/scale.problem", "dtype": "fp32", "shape": "64x48"}
EOF
$T run --evaluator test --spec "$SCRATCH/spec.json" --generations 2 --quiet \
    --runs-dir "$SCRATCH/runs" --name s 2>"$SCRATCH/err" &&
    cmp -s "$SCRATCH/runs/s/problem.problem" examples/problems/scale/scale.problem &&
    ok "the spec key problem_file selects the problem" || { fail "spec problem_file"; cat "$SCRATCH/err"; }
cat >"$SCRATCH/spec2.json" <<EOF
{"problem_file": "$SCRATCH/probs/scale/scale.problem",
 "problem": "softmax", "shape": "64x48"}
EOF
expect_fail "a spec whose problem is not its problem_file's is refused with its line" \
    "spec2.json:2: 'problem' names another problem than 'problem_file' (scale)" \
    $T run --evaluator test --spec "$SCRATCH/spec2.json" --runs-dir "$SCRATCH/runs" --name s2

# 6. bad files: file:line, nothing created
sed 's/^buffer g in elem COLS fill=uniform(0.5,1.5)$/buffer g in elem COLS fill=uniform(1.5,0.5)/' \
    examples/problems/scale/scale.problem >"$SCRATCH/probs/scale/bad.problem"
expect_fail "a bad problem file stops the run with file:line" \
    "$SCRATCH/probs/scale/bad.problem:14: buffer 'g': uniform needs LO < HI" \
    $T run --evaluator test --problem-file "$SCRATCH/probs/scale/bad.problem" --shape 8x8 \
        --runs-dir "$SCRATCH/runs" --name bad
[ ! -e "$SCRATCH/runs/bad" ] && ok "no run directory for a bad problem file" || fail "bad run dir made"
expect_fail "a missing problem file is named" "cannot read problem file '$SCRATCH/nope.problem'" \
    $T run --evaluator test --problem-file "$SCRATCH/nope.problem" --shape 8x8 --runs-dir "$SCRATCH/runs"
expect_fail "a shape failing the file's checks names the file" \
    "bad shape" \
    $T run --evaluator test --problem-file "$SCRATCH/probs/scale/scale.problem" --shape 8x8x8 \
        --runs-dir "$SCRATCH/runs" --name sh
expect_fail "kevo list reports a bad file in the problems directory" \
    "bad.problem:14: buffer 'g': uniform needs LO < HI" $K list --problems-dir "$SCRATCH/probs"

# 8. --problem NAME finds NAME/NAME.problem in ./problems (the problems
# directory kevo list searches)
mkdir -p "$SCRATCH/cwd/problems/scale"
cp examples/problems/scale/scale.problem examples/problems/scale/scale_vec.cu "$SCRATCH/cwd/problems/scale/"
(cd "$SCRATCH/cwd" && $T run --evaluator test --problem scale --shape 64x48 --generations 1 --quiet \
    --runs-dir "$SCRATCH/runs" --name byname) 2>"$SCRATCH/err" &&
    cmp -s "$SCRATCH/runs/byname/problem.problem" examples/problems/scale/scale.problem &&
    [ -f "$SCRATCH/runs/byname/templates/scale/scale_vec.cu" ] &&
    ok "--problem NAME loads a user problem from the problems directory" ||
    { fail "--problem NAME"; cat "$SCRATCH/err"; }
sed -i 's/^sizes ROWS COLS$/sizes ROWS cols/' "$SCRATCH/cwd/problems/scale/scale.problem"
expect_fail "--problem NAME with a bad file there names its line" \
    "problems/scale/scale.problem:11: size name 'cols' must be upper case" \
    env -C "$SCRATCH/cwd" $T run --evaluator test --problem scale --shape 64x48 \
        --runs-dir "$SCRATCH/runs" --name bn2

# 7. no template at all: LLM proposals only; the prompt describes the problem
mkdir -p "$SCRATCH/lone"
cp examples/problems/scale/scale.problem "$SCRATCH/lone/"
start_server tests/data/llm-answers/scale
$T run --evaluator test --problem-file "$SCRATCH/lone/scale.problem" --shape 300x200 --seed 3 \
    --islands 2 --population 6 --offspring 8 --quiet --generations 3 \
    --llm "openai:test-model@http://127.0.0.1:$PORT/v1" --llm-key-env KEVO_TEST_KEY \
    --runs-dir "$SCRATCH/runs" --name p 2>"$SCRATCH/p.err" || { fail "proposals-only run"; cat "$SCRATCH/p.err"; }
stop_server
grep -q '"template":[[:space:]]*"llm_' "$SCRATCH/runs/p/best.json" 2>/dev/null &&
    ok "a user problem with no template is optimized from LLM proposals alone" ||
    { fail "proposals-only run found no best"; cat "$SCRATCH/p.err"; }
# the first request's user and system text (JSON-escaped in the log)
head -1 "$SCRATCH/server.log" >"$SCRATCH/req"
grep -qF 'const elem_t *__restrict__ x, const elem_t *__restrict__ g, elem_t *__restrict__ y, int ROWS, int COLS, void *ws)' "$SCRATCH/req" &&
    grep -qF 'y[r * COLS + c] = x[r * COLS + c] * g[c]' "$SCRATCH/req" &&
    grep -qF 'kevo_reference(const double *x, const double *g' "$SCRATCH/req" &&
    grep -qF 'ROWS=300, COLS=200' "$SCRATCH/req" &&
    ok "the LLM prompt carries the user problem's ABI, description, reference and sizes" ||
    { fail "prompt of a user problem"; head -c 3000 "$SCRATCH/req"; }
# kevo promote of the LLM-born winner (verify.json as kevo verify writes it,
# trimmed from the committed H100 example's): a user problem's template goes
# next to its file in the problems directory, not into templates/
python3 - "$SCRATCH/runs/p" <<'PY2' || fail "verify.json fixture"
import json, sys
run = sys.argv[1]
v = json.load(open("examples/h100-gemm-fp32-1024x768x512/verify.json"))
b = json.load(open(run + "/best.json"))
e = dict(v["entries"][0])
e.update(hash=b["hash"], template=b["template"], params=b["params"], best=True,
         recorded_ns=b["median_ns"], measured_ns=b["median_ns"] * 1.004, drift=0.004,
         noise=0.01, within_noise=True, outcome="ok", recorded_ratio=b["ratio"],
         measured_ratio=b["ratio"] / 1.004, measured_fitness=b["fitness"] / 1.004,
         unit="B/s", rounds_ns=[b["median_ns"] * 1.004] * 3)
v.update(run=run, best_hash=b["hash"], drift=0.004, noise=0.01, entries=[e], reps=3,
         baselines=[], same_gpu=True, same_software=True, verified=True, differences="")
json.dump(v, open(run + "/verify.json", "w"), indent="\t")
# and sanitize.json as kevo verify --sanitize writes it (cmd_sanitize.c): clean
json.dump(dict(kernel=b["hash"], template=b["template"], verdict="clean",
               tools=[dict(tool=t, result="clean", errors=0, exit=0, first="")
                      for t in ("memcheck", "racecheck", "synccheck", "initcheck")]),
          open(run + "/sanitize.json", "w"))
PY2
mkdir -p "$SCRATCH/cwd2/problems/scale" "$SCRATCH/cwd2/templates"
cp examples/problems/scale/scale.problem "$SCRATCH/cwd2/problems/scale/"
tpl=$(sed -n 's/.*"template":[[:space:]]*"\(llm_[0-9a-f]*\)".*/\1/p' "$SCRATCH/runs/p/best.json")
env -C "$SCRATCH/cwd2" $K promote "$SCRATCH/runs/p" >"$SCRATCH/out" 2>&1 &&
    grep -q "^// kevo: problem scale" "$SCRATCH/cwd2/problems/scale/scale_$tpl.cu" &&
    [ -z "$(ls "$SCRATCH/cwd2/templates")" ] &&
    $K list --problems-dir "$SCRATCH/cwd2/problems" | grep -q "^  scale    scale_$tpl " &&
    ok "kevo promote puts a user problem's LLM-born winner next to its file" ||
    { fail "promote of a user problem"; cat "$SCRATCH/out"; ls -R "$SCRATCH/cwd2"; }
finish
