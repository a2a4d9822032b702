# One tolerance per output of a PyTorch problem (issue 30 item 3): a
# module returning a long sum and a max (examples/torch/sum_max) gets each
# output's atol/rtol calibrated from torch's own error on that output
# (calibrate_outputs, on the CPU here; the worker runs it on the GPU, and
# tests/gpu/torchprob.sh judges sum_max's kernels there), integer outputs
# exact; the start line, manifest, status, report and LLM prompt show one
# pair per output; KEVO_TORCH_ATOL/RTOL override all outputs or some by
# name and refuse a bad list naming the variable and the bad part; a
# manifest with one pair (before per-output tolerances) still reads.
# Needs a python with torch; skipped, saying so, without one.
. tests/cli/lib.inc
need_torch
. tests/cli/llm.inc

# 1. calibration per output, on the CPU (fp64 reference vs torch's fp32)
cat >"$SCRATCH/t.py" <<'PYEOF'
import sys, types
sys.argv = ["helper"]  # not the describe entry point
exec(open("fitness/torchprob_helper.py").read())
import torch
mod = types.ModuleType("sum_max")
exec(open("examples/torch/sum_max/sum_max.py").read(), mod.__dict__)
mod.cols = 1 << 16  # a long axis, small enough for a CPU test
model = mod.Model()
inf = float("inf")

def pairs(k, s):
    torch.manual_seed(100 + s)
    x = mod.get_inputs()[0]
    return list(zip(model(x.double()), model(x)))

def check(name, good, detail):
    print("%s %s" % ("ok  " if good else "FAIL", name))
    if not good:
        print("     %s" % detail)

res = calibrate_outputs(pairs, 3, 16.0, EPS[0], [None, None])
(sa, sr, su, _), (ma, mr, mu, _) = res
check("each output gets its own tolerance: the max's atol is far below "
      "the sum's", len(res) == 2 and 0 < ma < sa / 100, res)
check("torch's own fp32 result passes each output's tolerance with the "
      "margin", su <= 1 / 8 and mu <= 1 / 8, res)
torch.manual_seed(999)
x = mod.get_inputs()[0]
(rs, rm), (gs, gm) = model(x.double()), model(x)
bad = gm + 1e-3  # a maximum 1e-3 too large
check("a max 1e-3 off is wrong under the max's own tolerance",
      _used(rm, bad, ma, mr) > 1, _used(rm, bad, ma, mr))
# before, one pair served all: the largest output's (margin x the worst
# error of any output + eps x the largest rms), wide enough for the sum
check("one pair wide enough for torch's own sum would let it pass",
      _used(rs, gs, sa, sr) <= 1 and _used(rm, bad, sa, sr) <= 1,
      (_used(rs, gs, sa, sr), _used(rm, bad, sa, sr)))
# a tolerance the user gave is checked per output: torch's own sum misses
# an exact one, its max (exact in fp32) does not
g = calibrate_outputs(pairs, 3, 16.0, EPS[0], [(0.0, 0.0), (0.0, 0.0)])
check("a given tolerance is checked per output", g[0][3] == inf and
      g[1][3] == 0, g)

# values and indices: the indices (int64) are exact, torch matches them
class VI(torch.nn.Module):
    def forward(self, x):
        return x.max(dim=1)
vi = VI()
def vpairs(k, s):
    torch.manual_seed(200 + s)
    x = torch.randn(64, 300)
    return list(zip(vi(x.double()), vi(x)))
v = calibrate_outputs(vpairs, 3, 16.0, EPS[0], [None, None])
check("an int64 output is exact and torch's own result matches it",
      v[1][:3] == [0.0, 0.0, 0.0] and v[0][0] > 0, v)
r = vi(torch.randn(8, 30).double())[1]
check("an index off by one misses an exact tolerance infinitely",
      _used(r, r + 1, 0.0, 0.0) == inf, _used(r, r + 1, 0.0, 0.0))
PYEOF
"$PY" "$SCRATCH/t.py" >"$SCRATCH/out" 2>&1
cat "$SCRATCH/out"
grep -q '^FAIL' "$SCRATCH/out" && FAILED=1
[ "$(grep -c '^ok' "$SCRATCH/out")" -eq 7 ] || fail "not every calibration case ran"

# 2. a given tolerance per output: start line, manifest, status, report,
# the LLM prompt
M="$SCRATCH/m"
mkdir -p "$M"
cp examples/torch/sum_max/sum_max.py examples/torch/sum_max/tests/ok_rows.cu "$M/"
start_server tests/data/llm-answers/argmax
KEVO_TORCH_ATOL=out0=0.5,out1=0 KEVO_TORCH_RTOL=out0=2e-06,out1=0 \
    $T run --evaluator test --torch-problem "$M/sum_max.py" --seed 3 \
    --islands 1 --population 4 --offspring 4 --generations 1 \
    --llm "openai:test-model@http://127.0.0.1:$PORT/v1" --llm-key-env KEVO_TEST_KEY \
    --runs-dir "$SCRATCH/runs" --name g >"$SCRATCH/g.out" 2>"$SCRATCH/g.err" ||
    { fail "run with a tolerance per output"; cat "$SCRATCH/g.err"; }
stop_server
EACH="out0 atol 0.5 rtol 2e-06 (given by the user); out1 atol 0 rtol 0 (given by the user)"
grep -qF "tolerance per output: $EACH" "$SCRATCH/g.out" "$SCRATCH/g.err" &&
    ok "the run start prints each output's tolerance" ||
    { fail "start line"; cat "$SCRATCH/g.out" "$SCRATCH/g.err"; }
"$PY" -c 'import json,sys
t = json.load(open(sys.argv[1]))["environment"]["tolerance"]
assert t == {"source": "given", "outputs": [
    {"name": "out0", "atol": 0.5, "rtol": 2e-06, "source": "given"},
    {"name": "out1", "atol": 0, "rtol": 0, "source": "given"}]}, t' \
    "$SCRATCH/runs/g/manifest.json" &&
    ok "the manifest records one tolerance per output, by name" ||
    fail "manifest tolerance per output"
$T status "$SCRATCH/runs/g" >"$SCRATCH/st" 2>&1 &&
    grep -qF "tolerance:   per output: $EACH" "$SCRATCH/st" &&
    ok "status reads each output's tolerance back" || { fail "status"; cat "$SCRATCH/st"; }
"$KEVO" report "$SCRATCH/runs/g" >/dev/null 2>&1
grep -rqF "out1 atol 0 rtol 0 (given by the user)" "$SCRATCH/runs/g"/report* &&
    ok "the report states each output's tolerance" || fail "report"
head -1 "$SCRATCH/server.log" >"$SCRATCH/req"
grep -qF 'tolerance, per output: out0 within atol 0.5 + rtol 2e-06 * |ref| (given by the user); out1 within atol 0 + rtol 0 * |ref| (given by the user)' "$SCRATCH/req" &&
    grep -qF 'the bound of its output, out0: |out - ref| <= 0.5 + 2e-06 * |ref|' "$SCRATCH/req" &&
    ok "the prompt states each output's tolerance" ||
    { fail "prompt tolerance"; grep -o 'tolerance[^"]\{0,300\}' "$SCRATCH/req" | head -3; }

# 3. one value for every output; some outputs only (the others as before
# calibration: by dtype here, without a worker)
KEVO_TORCH_ATOL=0.001 KEVO_TORCH_RTOL=0 $T run --evaluator test \
    --torch-problem "$M/sum_max.py" --seed 3 --generations 1 --quiet \
    --runs-dir "$SCRATCH/runs" --name all >/dev/null 2>&1 &&
    $T status "$SCRATCH/runs/all" 2>&1 | grep -qF "per output: out0 atol 0.001 rtol 0 (given by the user); out1 atol 0.001 rtol 0 (given by the user)" &&
    ok "a bare value gives every output that tolerance" || fail "a bare value"
KEVO_TORCH_ATOL=out1=0 KEVO_TORCH_RTOL=out1=0 $T run --evaluator test \
    --torch-problem "$M/sum_max.py" --seed 3 --generations 1 --quiet \
    --runs-dir "$SCRATCH/runs" --name some >/dev/null 2>&1 &&
    "$PY" -c 'import json,sys
t = json.load(open(sys.argv[1]))["environment"]["tolerance"]
o = t["outputs"]
assert t["source"] == "mixed" and o[0]["source"] == "dtype" and \
    o[1] == {"name": "out1", "atol": 0, "rtol": 0, "source": "given"}, t' \
    "$SCRATCH/runs/some/manifest.json" &&
    ok "an output named alone is given; the others are not" ||
    fail "some outputs given"

# an integer output is exact, also before any calibration (before: the
# float pair, which at bf16 let an index 12 % off pass)
mkdir -p "$SCRATCH/am"
cp examples/torch/argmax/argmax.py examples/torch/argmax/tests/ok_rows.cu "$SCRATCH/am/"
$T run --evaluator test --torch-problem "$SCRATCH/am/argmax.py" --seed 3 \
    --generations 1 --quiet --runs-dir "$SCRATCH/runs" --name am >/dev/null 2>&1 &&
    $T status "$SCRATCH/runs/am" 2>&1 | grep -qF "tolerance:   for out: atol 0 rtol 0 (exact: an integer output)" &&
    ok "an int64 output is compared exactly" ||
    { fail "int64 output exact"; $T status "$SCRATCH/runs/am"; }

# 4. bad lists: refused before anything, naming the variable and the part
bad() { # sentence, expected, ATOL, RTOL
    expect_fail "$1" "$2" env KEVO_TORCH_ATOL="$3" KEVO_TORCH_RTOL="$4" \
        $T run --evaluator test --torch-problem "$M/sum_max.py" \
        --runs-dir "$SCRATCH/runs" --name bad
    [ ! -e "$SCRATCH/runs/bad" ] || fail "$1: a refused tolerance left a run directory"
}
bad "an output that is not one is refused, listing the outputs" \
    "KEVO_TORCH_ATOL: 'mean' is not an output of sum_max (its outputs: out0, out1)" \
    "mean=1e-3" "0"
bad "a value that is no number is refused, quoted" \
    "KEVO_TORCH_RTOL: '1e-5x' is not a number >= 0" "out0=1" "out0=1e-5x,out1=0"
bad "a negative value is refused" \
    "KEVO_TORCH_ATOL: '-1' is not a number >= 0" "out0=-1" "0"
bad "an output given twice is refused" \
    "KEVO_TORCH_ATOL: output 'out1' is given twice" "out1=0,out1=1" "0"
bad "two values for every output are refused" \
    "KEVO_TORCH_RTOL: two values for every output" "0" "0,1e-6"
bad "an output with an atol but no rtol is refused" \
    "KEVO_TORCH_RTOL gives no rtol for output 'out0' (KEVO_TORCH_ATOL gives its atol)" \
    "out0=1,out1=0" "out1=0"
bad "an empty item is refused" "KEVO_TORCH_ATOL: '' is not a number >= 0" \
    "out0=1,,out1=0" "0"

# 5. a manifest with one pair for all (before per-output tolerances):
# status and report read it as every output's
"$PY" -c 'import json,sys
p = sys.argv[1]; m = json.load(open(p))
m["environment"]["tolerance"] = {"atol": 0.000271, "rtol": 1.9e-06,
    "used": 0.0625, "margin": 16, "source": "calibrated", "who": "torch"}
json.dump(m, open(p, "w"))' "$SCRATCH/runs/all/manifest.json"
$T status "$SCRATCH/runs/all" 2>&1 | grep -qF "tolerance:   for out0, out1: atol 0.000271 rtol 1.9e-06 (calibrated: torch's own fp32 result uses 0.062 of it, margin 16x)" &&
    ok "status reads an old manifest's one pair as every output's" ||
    { fail "old manifest status"; $T status "$SCRATCH/runs/all"; }
rm -f "$SCRATCH/runs/all"/report*
"$KEVO" report "$SCRATCH/runs/all" >/dev/null 2>&1 &&
    grep -rqF "atol 0.000271 rtol 1.9e-06 (calibrated" "$SCRATCH/runs/all"/report* &&
    ok "report reads an old manifest's one pair" || fail "old manifest report"
finish
