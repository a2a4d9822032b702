# The tolerance of a PyTorch problem as the coordinator shows and keeps it
# (issue 30 item "printed at start, recorded in the manifest, overridable"):
# KEVO_TORCH_ATOL/RTOL given are recorded as given (run start line,
# manifest environment.tolerance, status, the LLM prompt's problem
# statement); a resumed run's prompts state the tolerance its manifest
# records (as a worker's calibration wrote it); `kevo bench
# --torch-problem` refuses bad input before the GPU and says it needs one.
# Needs a python with torch; skipped, saying so, without one.
. tests/cli/lib.inc
need_torch
. tests/cli/llm.inc
M="$SCRATCH/m"
mkdir -p "$M"

# 1. a given tolerance: at start, in the manifest, in status and the prompt
cp examples/torch/argmax/argmax.py "$M/"
start_server tests/data/llm-answers/argmax
KEVO_TORCH_ATOL=0.00125 KEVO_TORCH_RTOL=3e-06 \
    $T run --evaluator test --torch-problem "$M/argmax.py" --seed 3 --islands 1 \
    --population 4 --offspring 4 --generations 2 \
    --llm "openai:test-model@http://127.0.0.1:$PORT/v1" --llm-key-env KEVO_TEST_KEY \
    --runs-dir "$SCRATCH/runs" --name g >"$SCRATCH/g.out" 2>"$SCRATCH/g.err" ||
    { fail "run with a given tolerance"; cat "$SCRATCH/g.err"; }
stop_server
grep -qF "tolerance for out: atol 0.00125 rtol 3e-06 (given by the user)" "$SCRATCH/g.out" "$SCRATCH/g.err" &&
    ok "the run start prints the tolerance, marked as given" ||
    { fail "start line"; cat "$SCRATCH/g.out" "$SCRATCH/g.err"; }
"$PY" -c 'import json,sys
t = json.load(open(sys.argv[1]))["environment"]["tolerance"]
assert t == {"atol": 0.00125, "rtol": 3e-06, "source": "given"}, t' \
    "$SCRATCH/runs/g/manifest.json" &&
    ok "the manifest's environment records the given tolerance" ||
    fail "manifest tolerance"
$T status "$SCRATCH/runs/g" >"$SCRATCH/st" 2>&1 &&
    grep -qF "tolerance:   for out: atol 0.00125 rtol 3e-06 (given by the user)" "$SCRATCH/st" &&
    ok "status reads the tolerance back" || { fail "status"; cat "$SCRATCH/st"; }
head -1 "$SCRATCH/server.log" >"$SCRATCH/req"
grep -qF 'tolerance: every output element within atol 0.00125 + rtol 3e-06 * |ref| (given by the user)' "$SCRATCH/req" &&
    ok "the prompt's problem statement states the given tolerance" ||
    { fail "prompt tolerance"; grep -o 'tolerance[^"]\{0,200\}' "$SCRATCH/req" | head -3; }
expect_fail "one of KEVO_TORCH_ATOL/RTOL alone is refused" \
    "KEVO_TORCH_ATOL and KEVO_TORCH_RTOL go together" \
    env KEVO_TORCH_ATOL=1e-3 $T run --evaluator test --torch-problem "$M/argmax.py" \
    --runs-dir "$SCRATCH/runs" --name half
expect_fail "a tolerance that is no number is refused" \
    "KEVO_TORCH_ATOL: '1e-3x' is not a number >= 0" \
    env KEVO_TORCH_ATOL=1e-3x KEVO_TORCH_RTOL=0 $T run --evaluator test \
    --torch-problem "$M/argmax.py" --runs-dir "$SCRATCH/runs" --name nan
[ ! -e "$SCRATCH/runs/half" ] && [ ! -e "$SCRATCH/runs/nan" ] ||
    fail "a refused tolerance left a run directory"

# 2. resumed without the variables, the run's prompts state the tolerance
# its manifest records: the same requests, so the journal replays
rm -f "$SCRATCH/server.log"
start_server tests/data/llm-answers/argmax
$T resume "$SCRATCH/runs/g" --generations 4 >/dev/null 2>"$SCRATCH/g2.err" &&
    ok "a resumed run replays its journal with the recorded tolerance" ||
    { fail "resume g"; cat "$SCRATCH/g2.err"; }
stop_server
if [ -s "$SCRATCH/server.log" ]; then
    grep -qF 'within atol 0.00125 + rtol 3e-06 * |ref| (given by the user)' "$SCRATCH/server.log" &&
        ok "a resumed run's new prompts state the recorded tolerance" ||
        fail "resume prompt tolerance"
fi
# kevo replay rebuilds the prompts from the run: with the recorded
# tolerance they are the recorded requests, so it replays identical
"$KEVO" replay "$SCRATCH/runs/g" >"$SCRATCH/rp" 2>&1 &&
    grep -q "identical" "$SCRATCH/rp" &&
    ok "kevo replay of the run (no variables set) is identical" ||
    { fail "replay with the recorded tolerance"; tail -5 "$SCRATCH/rp"; }
"$PY" -c 'import json,sys
p = sys.argv[1]; m = json.load(open(p))
m["environment"]["tolerance"] = {"atol": 0.000271, "rtol": 1.9e-06,
    "used": 0.0625, "margin": 16, "source": "calibrated", "who": "torch"}
json.dump(m, open(p, "w"))' "$SCRATCH/runs/g/manifest.json"
$T status "$SCRATCH/runs/g" 2>&1 | grep -qF "atol 0.000271 rtol 1.9e-06 (calibrated: torch's own fp32 result uses 0.062 of it, margin 16x)" &&
    ok "status shows a calibrated tolerance with torch's share and the margin" ||
    fail "status calibrated"

# 3. kevo bench --torch-problem: bad input before the GPU, then "needs a GPU"
K="$BUILD/kevo"
expect_fail "bench --torch-problem with a bad dtype is a usage error" \
    "kevo bench: --dtype: 'fp99' is not a dtype of argmax" \
    $K bench --torch-problem "$M/argmax.py" --dtype fp99
expect_fail "bench --torch-problem with an unknown --set names the sizes" \
    "--set: 'nope' is not a size of argmax" \
    $K bench --torch-problem "$M/argmax.py" --set nope=3
printf 'import torch\nN = 8\ndef get_inputs(:\n    return []\n' >"$M/bad.py"
expect_fail "bench --torch-problem with a broken module names file and line" \
    "$M/bad.py:3: SyntaxError" $K bench --torch-problem "$M/bad.py"
if ! "$PY" -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' 2>/dev/null; then
    $K bench --torch-problem "$M/argmax.py" >"$SCRATCH/out" 2>"$SCRATCH/err"
    rc=$?
    [ $rc -eq 3 ] && grep -qF "kevo bench needs a GPU" "$SCRATCH/err" &&
        ok "bench --torch-problem without a GPU says it needs one (exit 3)" ||
        { fail "bench without a GPU (exit $rc)"; cat "$SCRATCH/err"; }
fi
finish
