# The CLI: every listed command has --help and works; status reports what
# the journal holds; list shows templates with their space sizes; the real
# kevo starts without a GPU driver and says clearly which commands need one.
. tests/cli/lib.inc
K="$KEVO"

for c in list run resume status eval doctor; do
    if $K $c --help >"$SCRATCH/h" 2>&1 && grep -q "usage: kevo $c" "$SCRATCH/h"; then
        ok "kevo $c --help prints its usage"
    else
        fail "kevo $c --help"; cat "$SCRATCH/h"
    fi
done
$K --help >"$SCRATCH/h" && for c in list run resume status eval doctor; do
    grep -q "^  $c " "$SCRATCH/h" || fail "kevo --help lacks $c"
done && ok "kevo --help lists every command"
expect_fail "an unknown command is named" "'frob' is not a kevo command" $K frob

$K list >"$SCRATCH/list" || fail "kevo list"
grep -q "sgemm_tiled .* valid points of" "$SCRATCH/list" && grep -q "tweak" "$SCRATCH/list" \
    && grep -q "crossover" "$SCRATCH/list" && grep -q "softmax" "$SCRATCH/list" \
    && ok "kevo list shows problems, templates with space sizes, mutators" \
    || { fail "kevo list output"; cat "$SCRATCH/list"; }
# the params no code names (GROUP_M is sgemm_warptile's int arg, RT its
# reduce's blockDim.x, SPLITK its grid): listed after the template
grep -A1 "sgemm_warptile " "$SCRATCH/list" | tail -1 \
    | grep -q "launch-only (one compile for all values): GROUP_M, SPLITK, RT$" \
    && ! grep -A1 "hgemm_packed " "$SCRATCH/list" | tail -1 | grep -q "launch-only" \
    && $K list --json | tr -d ' \n\t' | grep -q '"name":"sgemm_warptile","problem":"gemm","params":14,[^}]*"launch_only":\["GROUP_M","SPLITK","RT"\]' \
    && ok "kevo list names each template's launch-only params (text and --json)" \
    || { fail "kevo list launch-only"; grep -A1 sgemm_warptile "$SCRATCH/list"; }

# a machine without libcuda.so.1: run stops with a clear message, exit 3,
# and leaves no run directory behind
if [ ! -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ] && ! ldconfig -p | grep -q libcuda.so.1; then
    $K run --problem gemm --shape 256x256x256 --runs-dir "$SCRATCH/runs" --name g \
        >"$SCRATCH/out" 2>"$SCRATCH/err"; rc=$?
    if [ $rc = 3 ] && grep -qi "needs a GPU" "$SCRATCH/err" && [ ! -e "$SCRATCH/runs/g" ]; then
        ok "kevo run without a GPU says it needs one (exit 3) and writes nothing"
    else
        fail "kevo run without a GPU: exit $rc"; cat "$SCRATCH/err"
    fi
    $K doctor >"$SCRATCH/out" 2>&1; rc=$?
    [ $rc = 3 ] && grep -qi "no GPU" "$SCRATCH/out" && grep -qi "nvrtc" "$SCRATCH/out" \
        && ok "kevo doctor without a GPU reports NVRTC and says there is no GPU" \
        || { fail "kevo doctor without a GPU: exit $rc"; cat "$SCRATCH/out"; }
else
    echo "skip no-driver checks: this machine has a CUDA driver"
fi

# status reflects the journal
$T run --evaluator test --problem gemm --shape 300x200x100 --seed 2 --generations 3 \
    --evals 50 --runs-dir "$SCRATCH" --name st --quiet || fail "status setup run"
n=$(grep -c '"type":"eval"' "$SCRATCH/st/journal.jsonl")
$T status "$SCRATCH/st" >"$SCRATCH/s"
grep -q "evaluations: $n (" "$SCRATCH/s" && grep -q "best: " "$SCRATCH/s" \
    && grep -q "(finished (evaluation budget))" "$SCRATCH/s" \
    && ok "status shows the journal's evaluations, the best and the state" \
    || { fail "status text"; cat "$SCRATCH/s"; }
$T status "$SCRATCH/st" --json >"$SCRATCH/sj"
grep -q "\"evaluations\":[[:space:]]*$n" "$SCRATCH/sj" && grep -q '"state":[[:space:]]*"finished (evaluation budget)"' "$SCRATCH/sj" \
    && ok "status --json gives the same numbers" || { fail "status --json"; cat "$SCRATCH/sj"; }
grep -q '"git_commit"' "$SCRATCH/st/manifest.json" && grep -q '"seed":[[:space:]]*2' "$SCRATCH/st/manifest.json" \
    && [ -f "$SCRATCH/st/best.cu" ] && [ -f "$SCRATCH/st/checkpoint.json" ] \
    && [ -f "$SCRATCH/st/templates/gemm/sgemm_tiled.cu" ] \
    && [ "$(ls "$SCRATCH/st/sources" | wc -l)" -ge "$n" ] \
    && ok "the run directory holds manifest, checkpoint, templates, sources and best" \
    || fail "run directory contents"
# --json progress is one JSON object per line
$T run --evaluator test --problem gemm --shape 300x200x100 --generations 2 \
    --runs-dir "$SCRATCH" --name js --json >"$SCRATCH/j" || fail "json run"
if grep -v '^{.*}$' "$SCRATCH/j" | grep -q .; then fail "--json printed a non-JSON line"
else grep -q '"event":"gen"' "$SCRATCH/j" && ok "--json prints one JSON object per event"; fi
"$KEVO" doctor --json >"$SCRATCH/dj" 2>/dev/null
rc=$?
if [ "$rc" = 3 ] && [ "$(wc -l <"$SCRATCH/dj")" = 1 ] &&
    grep -q '^{.*"gpu":false.*"checks":\[{"check":"compile","pass":true' "$SCRATCH/dj"; then
    ok "doctor --json: one JSON object (compile passes, no GPU, exit 3)"
else
    fail "doctor --json (exit $rc)"; cat "$SCRATCH/dj"
fi
finish
