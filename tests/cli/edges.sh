# Sharp edges from issue 10 (items 4, 7-15): each case states the input
# and what kevo must do with it. Runs with the test evaluator, no GPU.
. tests/cli/lib.inc
K="$KEVO"
R="--evaluator test --runs-dir $SCRATCH --quiet"
# a command that must not hang or grow without bound: 20 s, 2 GB
# a memory cap (where the sanitizers, which reserve terabytes of address
# space, are not in the build) and a time limit: a reader that grows
# without bound or blocks fails instead of hanging the suite
if ldd "$KEVO" 2>/dev/null | grep -q libasan; then
    bounded() { timeout 20 "$@"; }
else
    bounded() { (ulimit -v 2000000; timeout 20 "$@"); }
fi

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
# (how many generations fit in the time depends on the machine: the
# check is that the time budget, not a generation cap, ended the run)
$T run --evaluator test --runs-dir "$SCRATCH" --problem softmax --shape 256x256 \
    --islands 1 --population 4 --offspring 4 --time 3s --name t4 >"$SCRATCH/o4" 2>&1 \
    || fail "setup t4"
grep -q "^finished (time budget)" "$SCRATCH/o4" &&
    grep -q '"generations":[[:space:]]*0,' "$SCRATCH/t4/manifest.json" \
    && ok "--time without --generations runs until the time is up" \
    || { fail "--time run stopped by something else"; cat "$SCRATCH/o4"; }
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

# ---- item 7: an existing, empty run directory is used, not skipped
mkdir -p "$SCRATCH/e7"
$T run $R --problem gemm --shape 64x64x64 --generations 2 --name e7 || fail "run into e7"
[ -s "$SCRATCH/e7/journal.jsonl" ] && grep -q '"type":"gen"' "$SCRATCH/e7/journal.jsonl" \
    && ok "run into an existing empty directory runs the search" \
    || fail "run into an empty directory did nothing"
if [ -z "$NO_DRIVER" ] && [ ! -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ] &&
    ! ldconfig -p | grep -q libcuda.so.1; then
    mkdir -p "$SCRATCH/g7"
    $K run --problem gemm --shape 64x64x64 --runs-dir "$SCRATCH" --name g7 \
        >"$SCRATCH/out" 2>"$SCRATCH/err"; rc=$?
    [ $rc = 3 ] && grep -q "needs a GPU" "$SCRATCH/err" && [ -z "$(ls -A "$SCRATCH/g7")" ] \
        && ok "without a GPU, run into an empty directory says so and writes nothing" \
        || { fail "run into an empty directory without a GPU: exit $rc"; cat "$SCRATCH/err"; }
fi
touch "$SCRATCH/f7"
expect_fail "a run name that is a file is refused" "exists and is not a directory" \
    $T run $R --problem gemm --shape 64x64x64 --name f7

# ---- item 8: non-finite numbers are refused when parsed
for v in nan,inf 1e400,1 1,nan inf,3; do
    expect_fail "--llm-price $v is refused" "--llm-price: '$v'" \
        $T run $R --problem gemm --shape 64x64x64 --llm-price "$v" --name p8
done
expect_fail "--time 1e400 is refused" "--time: '1e400'" \
    $T run $R --problem gemm --shape 64x64x64 --time 1e400 --name p8
expect_fail "--time 1e306h (overflows) is refused" "--time: '1e306h'" \
    $T run $R --problem gemm --shape 64x64x64 --time 1e306h --name p8
printf '{"problem": "gemm", "time": 1e400}\n' >"$SCRATCH/t8.json"
expect_fail "a spec with an infinite time is refused" "t8.json:1: 'time'" \
    $T run $R --spec "$SCRATCH/t8.json" --shape 64x64x64 --name p8
[ ! -e "$SCRATCH/p8" ] && ok "no run directory is left by a refused number" || fail "p8 exists"

# ---- item 10: counting a space is bounded in work
mkdir -p "$SCRATCH/lib10/softmax"
python3 - "$SCRATCH/lib10/softmax/rare.cu" <<'PY'
import sys
names = ["P%c" % (65 + i) for i in range(24)]
l = ["// kevo: problem softmax", "// kevo: dtypes fp32"]
l += ["// kevo: param %s 0 1 2 3 default=%d" % (n, 2 if i < 2 else 3) for i, n in enumerate(names)]
l += ["// kevo: constraint " + " + ".join(names) + " == 70",
      "// kevo: launch k", "// kevo: grid ROWS", "// kevo: block 256",
      'extern "C" __global__ void k(const elem_t *x, elem_t *y, int ROWS, int COLS, void *ws) {}']
open(sys.argv[1], "w").write("\n".join(l) + "\n")
PY
if timeout 20 $K list --templates-dir "$SCRATCH/lib10" >"$SCRATCH/l10" 2>&1 &&
    grep -q "rare .*24 params, >=[0-9]* valid points of 281474976710656 (counting stopped" "$SCRATCH/l10"; then
    ok "list of a 24-parameter template with a rare constraint stops and says '>=N'"
else
    fail "list of a rare 24-parameter template"; cat "$SCRATCH/l10"
fi
timeout 20 $K list --templates-dir "$SCRATCH/lib10" --json >"$SCRATCH/l10j" 2>&1 &&
    grep -q '"valid_points_exact":[[:space:]]*false' "$SCRATCH/l10j" \
    && ok "list --json marks the count as a lower bound" || { fail "list --json bound"; cat "$SCRATCH/l10j"; }
$K list --json >"$SCRATCH/l10k" && grep -q '"valid_points_exact":[[:space:]]*true' "$SCRATCH/l10k" \
    && ok "the shipped templates are counted exactly" || fail "shipped templates not exact"

# ---- item 11: a lost journal stays an error and nothing is written
$T run $R --problem gemm --shape 64x64x64 --generations 2 --name j11 || fail "setup j11"
rm "$SCRATCH/j11/journal.jsonl"
before=$(cd "$SCRATCH/j11" && find . | sort)
expect_fail "resume with a lost journal fails" "journal.jsonl' is missing" \
    $T resume "$SCRATCH/j11"
after=$(cd "$SCRATCH/j11" && find . | sort)
[ "$before" = "$after" ] && ok "resume with a lost journal writes nothing" || fail "j11 changed"
expect_fail "status with a lost journal names it" "journal.jsonl' is missing" \
    $T status "$SCRATCH/j11"
mkdir "$SCRATCH/notrun"
$T resume "$SCRATCH/notrun" 2>/dev/null
[ -z "$(ls -A "$SCRATCH/notrun")" ] && ok "resume of a non-run directory writes no lock file" \
    || fail "resume wrote into a non-run directory"
# killed between manifest and journal: not started, resume starts it
mkdir -p "$SCRATCH/n11"; cp -r "$SCRATCH/j11/manifest.json" "$SCRATCH/j11/templates" "$SCRATCH/n11/"
mkdir "$SCRATCH/n11/sources"
$T status "$SCRATCH/n11" | grep -q "not started" && ok "status of a run killed before its journal: not started" \
    || fail "status of a not started run"
$T resume "$SCRATCH/n11" --quiet && grep -q '"type":"gen"' "$SCRATCH/n11/journal.jsonl" \
    && ok "resume starts a run killed before its journal" || fail "resume of a not started run"

# ---- item 13: a journal shorter than the checkpoint
$T run $R --problem gemm --shape 64x64x64 --generations 3 --name c13 || fail "setup c13"
head -5 "$SCRATCH/c13/journal.jsonl" >"$SCRATCH/cut"; cp "$SCRATCH/cut" "$SCRATCH/c13/journal.jsonl"
$T status "$SCRATCH/c13" >"$SCRATCH/s13" 2>&1
grep -q "damaged, cannot be resumed" "$SCRATCH/s13" && grep -q "has lost records: it holds 5" "$SCRATCH/s13" \
    && ok "status of a journal cut below its checkpoint says it lost records" \
    || { fail "status of a cut journal"; cat "$SCRATCH/s13"; }
expect_fail "resume of a journal cut below its checkpoint names the problem" "has lost records: it holds 5" \
    $T resume "$SCRATCH/c13"

# ---- item 12 (first half): a missing LLM key is found before anything
expect_fail "run with an LLM whose key is missing names the variable" "KEVO_NO_SUCH_KEY is not set" \
    env -u KEVO_NO_SUCH_KEY $T run $R --problem gemm --shape 64x64x64 --llm openai:m \
    --llm-key-env KEVO_NO_SUCH_KEY --name k12
[ ! -e "$SCRATCH/k12" ] && ok "and creates no run directory" || fail "k12 was created"
env -u KEVO_NO_SUCH_KEY $K run --problem gemm --shape 64x64x64 --llm openai:m \
    --llm-key-env KEVO_NO_SUCH_KEY --runs-dir "$SCRATCH" --name k12 2>"$SCRATCH/err"
grep -q "KEVO_NO_SUCH_KEY is not set" "$SCRATCH/err" && [ ! -e "$SCRATCH/k12" ] \
    && ok "the real kevo checks the key before the GPU and writes nothing" \
    || { fail "real kevo with a missing key"; cat "$SCRATCH/err"; }

# ---- item 14: a credential in the LLM URL is never written or printed
SERVER="$BUILD/tests/llm_server"
export KEVO_TEST_KEY=sk-kevo-test-5f2a9c1e
"$SERVER" --port 0 --key-env KEVO_TEST_KEY --answers tests/data/llm-answers/softmax \
    --log "$SCRATCH/server.log" --lifetime 60 >"$SCRATCH/port" &
SPID=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do
    PORT=$(head -1 "$SCRATCH/port" 2>/dev/null); [ -n "$PORT" ] && break; sleep 0.2
done
URL="http://alice:sk-SECRET9@127.0.0.1:$PORT/v1"
L14="--evaluator test --problem softmax --shape 512x1000 --islands 1 --population 4 \
     --offspring 4 --template softmax_block --llm-key-env KEVO_TEST_KEY --runs-dir $SCRATCH"
$T run $L14 --generations 2 --llm "openai:test-model@$URL" --name u14 >"$SCRATCH/o14" 2>&1 \
    || { fail "LLM run with a credential in the URL"; cat "$SCRATCH/o14"; }
if grep -rq "sk-SECRET9\|alice" "$SCRATCH/u14" "$SCRATCH/o14"; then
    fail "the URL's credential reached the run directory or the output"
    grep -rl "sk-SECRET9\|alice" "$SCRATCH/u14" "$SCRATCH/o14"
elif grep -q '"llm":.*http://\*\*\*@127.0.0.1' "$SCRATCH/u14/manifest.json" &&
    grep -q "http://\*\*\*@127.0.0.1" "$SCRATCH/o14"; then
    ok "the URL's credential is redacted in manifest.json, transcripts and messages"
else
    fail "redacted URL not found"; cat "$SCRATCH/o14"
fi
expect_fail "resume asks for the credential again" "give it again with --llm" \
    $T resume "$SCRATCH/u14" --generations 3
expect_fail "resume --llm must be the run's LLM" "is not the LLM this run uses" \
    $T resume "$SCRATCH/u14" --generations 3 --llm "openai:other@$URL"
$T resume "$SCRATCH/u14" --generations 3 --quiet --llm "openai:test-model@$URL" \
    && ! grep -rq "sk-SECRET9\|alice" "$SCRATCH/u14" \
    && ok "resume --llm with the credential continues and writes none of it" \
    || fail "resume with the credential"
kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null
$T run $R --problem gemm --shape 64x64x64 --llm "openai:m@ftp://u:sk-SECRET9@h/v1" \
    --name q14 2>"$SCRATCH/err"
grep -q "base URL 'ftp://\*\*\*@h/v1'" "$SCRATCH/err" && ! grep -q SECRET9 "$SCRATCH/err" \
    && ok "an error about the URL does not print its credential" \
    || { fail "credential in an error"; cat "$SCRATCH/err"; }

# ---- item 15: smaller edges of the command line
for n in . ..; do
    expect_fail "--name $n is refused" "--name: '$n' must be a plain name" \
        $T run $R --problem gemm --shape 64x64x64 --name "$n"
done
printf '{"problem": "gemm", "shape": "64x64x64", "name": ".."}\n' >"$SCRATCH/n15.json"
expect_fail "a spec named '..' is refused" "n15.json:1: 'name' must be a plain name" \
    $T run $R --spec "$SCRATCH/n15.json"
expect_fail "--shape without a value says it needs one" "option '--shape' needs a value" \
    $T run $R --problem gemm --shape
expect_fail "resume --time without a value says it needs one" "option '--time' needs a value" \
    $T resume "$SCRATCH/e7" --time
$K run -h >"$SCRATCH/h" 2>&1 && grep -q "usage: kevo run" "$SCRATCH/h" \
    && ok "kevo run -h prints run's usage" || { fail "kevo run -h"; cat "$SCRATCH/h"; }
$K resume -h >"$SCRATCH/h" 2>&1 && grep -q "usage: kevo resume" "$SCRATCH/h" \
    && ok "kevo resume -h prints resume's usage" || { fail "kevo resume -h"; cat "$SCRATCH/h"; }
for c in run status list eval; do
    $K help $c >"$SCRATCH/h" 2>&1 && grep -q "usage: kevo $c" "$SCRATCH/h" \
        && ok "kevo help $c prints $c's usage" || { fail "kevo help $c"; cat "$SCRATCH/h"; }
done
expect_fail "kevo help of an unknown command names it" "'frob' is not a kevo command" $K help frob
expect_fail "run --arch checks the arch when parsed" "--arch: 'sm_x' is not a real arch" \
    $T run $R --problem gemm --shape 64x64x64 --arch sm_x --name a15
# eval: usage errors come before the GPU check (exit 2, not 3)
F=templates/gemm/sgemm_tiled.cu
eval_usage() { # sentence, stderr substring, args...
    what=$1; want=$2; shift 2
    $K eval "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"; rc=$?
    [ $rc = 2 ] && grep -qF -- "$want" "$SCRATCH/err" && ok "$what" \
        || { fail "$what (exit $rc)"; cat "$SCRATCH/err"; }
}
# the error names what is wrong, not "input/output error"
touch "$SCRATCH/afile"
expect_fail "--runs-dir that is a file: not a directory" "'$SCRATCH/afile/x': not a directory" \
    $T run $R --problem softmax --shape 64x64 --runs-dir "$SCRATCH/afile" --name x
expect_fail "--templates-dir that is a file: not a directory" "'$SCRATCH/afile': not a directory" \
    $T run $R --problem softmax --shape 64x64 --templates-dir "$SCRATCH/afile" --name x
expect_fail "list --templates-dir that is a file: not a directory" "'$SCRATCH/afile': not a directory" \
    $K list --templates-dir "$SCRATCH/afile"
expect_fail "status of a file: not a directory" "manifest.json': not a directory" \
    $T status "$SCRATCH/afile"
eval_usage "eval of a directory says it is one" "cannot read 'templates': is a directory" \
    templates --shape 64x64x64
eval_usage "eval without --shape is a usage error" "--shape is required for gemm" $F
eval_usage "eval with an unknown --param is a usage error" "has no parameter 'NOPE'" \
    $F --shape 64x64x64 --param NOPE=1
eval_usage "eval with a bad --arch is a usage error" "--arch: 'sm_foo' is not a real arch" \
    $F --shape 64x64x64 --arch sm_foo
eval_usage "eval with a bad --dtype is a usage error" "unknown dtype 'fp8'" \
    $F --shape 64x64x64 --dtype fp8
eval_usage "eval --timeout-ms nan is a usage error" "--timeout-ms: 'nan'" \
    $F --shape 64x64x64 --timeout-ms nan
eval_usage "eval --pairs 65 is a usage error" "--pairs: '65' is not an integer in [3, 64]" \
    $F --shape 64x64x64 --pairs 65
finish
