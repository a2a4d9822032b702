# PyTorch problems (README "PyTorch problems") on the CPU with the test
# evaluator: the helper describes a KernelBench module (sizes, ABI, dtypes),
# kevo run --torch-problem keeps the module in the run directory with its
# description, status/report/export/replay build the problem from that
# description without running any Python, resume runs the copy; bad modules stop with file:line before any
# candidate; a python without torch is named with how to install it.
# Needs a python with torch ($KEVO_PYTHON, python3 or /usr/bin/python3):
# skipped, saying so, without one.
. tests/cli/lib.inc
need_torch
M="$SCRATCH/mods/cumsum"
mkdir -p "$M"
cp examples/torch/cumsum/cumsum.py examples/torch/cumsum/cumsum_rows.cu "$M/"

# 1. the helper's description: sizes from the constants, ABI in order
"$PY" fitness/torchprob_helper.py describe examples/torch/linear/linear.py \
    linear.py "$SCRATCH/lin.json" &&
    grep -q '"sizes": \[\["batch", 256\], \["in_features", 512\], \["out_features", 384\]\]' "$SCRATCH/lin.json" &&
    grep -q '"name": "fc_weight", "role": "in", "dtype": "float", "state": "fc.weight", "dims": \[\[\[2\], 1, 1\], \[\[1\], 1, 1\]\]' "$SCRATCH/lin.json" &&
    ok "describe: size constants, parameters as inputs, dims as sizes" ||
    { fail "describe linear"; cat "$SCRATCH/lin.json"; }
"$PY" fitness/torchprob_helper.py describe examples/torch/argmax/argmax.py \
    argmax.py "$SCRATCH/am.json" &&
    grep -q '"name": "out", "role": "out", "dtype": "int64"' "$SCRATCH/am.json" &&
    ok "describe: an argmax output is int64" || { fail "describe argmax"; cat "$SCRATCH/am.json"; }

# 2. a run keeps the module; status and resume read the copy
ARGS="--evaluator test --torch-problem $M/cumsum.py --shape 128x4000 --seed 3 \
      --generations 3 --islands 1 --population 4 --offspring 4 --quiet"
$T run $ARGS --runs-dir "$SCRATCH/runs" --name r 2>"$SCRATCH/err" ||
    { fail "run of a torch problem"; cat "$SCRATCH/err"; finish; }
R="$SCRATCH/runs/r"
cmp -s "$R/problem.torch/cumsum.py" "$M/cumsum.py" &&
    ok "the run directory keeps the module as problem.torch/cumsum.py" ||
    fail "problem.torch/cumsum.py"
rm -rf "$SCRATCH/mods"
$T status "$R" >"$SCRATCH/st" 2>&1 && grep -q "cumsum fp32 128x4000" "$SCRATCH/st" &&
    ok "status reads the run's copy with the original gone" ||
    { fail "status"; cat "$SCRATCH/st"; }
$T resume "$R" --generations 5 --quiet 2>"$SCRATCH/err" &&
    ok "resume reads the run's copy" || { fail "resume"; cat "$SCRATCH/err"; }
grep -q "^kevo resume: running this run's PyTorch module '$R/problem.torch/cumsum.py'" \
    "$SCRATCH/err" && [ "$(wc -l <"$SCRATCH/err")" -eq 1 ] &&
    ok "resume says in one line that it runs the run's module" ||
    { fail "resume's line"; cat "$SCRATCH/err"; }

# 2a. commands that do not evaluate never run the run's module: they build
# the problem from problem.torch/describe.json, recorded at the start
grep -q '"sizes": \[\["batch_size", 128\], \["input_shape", 4000\]\]' \
    "$R/problem.torch/describe.json" &&
    ok "the run records the module's description in problem.torch/describe.json" ||
    fail "describe.json"
cp "$R/problem.torch/cumsum.py" "$SCRATCH/cumsum.keep"
printf 'open("%s/MARKER", "w").write("ran")\nimport sys\nsys.exit(3)\n' \
    "$SCRATCH" >"$R/problem.torch/cumsum.py"
K=${KEVO:?set KEVO to the kevo binary}
for c in status report export replay leaderboard; do
    case $c in
    status) set -- $T status "$R" ;;
    export) set -- $K export "$R" --out "$SCRATCH/exp" ;;
    *) set -- $K $c "$R" ;;
    esac
    "$@" >"$SCRATCH/ro" 2>&1 && ok "$c works on a run whose module was replaced" ||
        { fail "$c with a replaced module"; cat "$SCRATCH/ro"; }
done
[ ! -e "$SCRATCH/MARKER" ] && ok "status, report, export, replay, leaderboard ran no Python of the run" ||
    fail "a read-only command ran the run's module"
expect_fail "resume runs the module, and says where it failed" \
    "$R/problem.torch/cumsum.py:3: SystemExit: 3" $T resume "$R" --generations 6 --quiet
rm -f "$SCRATCH/MARKER"
cp "$R/problem.torch/describe.json" "$SCRATCH/desc.keep"
tamper() { # sed expression, expected stderr
    sed "$1" "$SCRATCH/desc.keep" >"$R/problem.torch/describe.json"
    expect_fail "a describe.json with $3 is refused naming the field" \
        "$R/problem.torch/describe.json: $2" $T status "$R"
}
tamper 's/"dtype": "float", "dims"/"dtype": "float128", "dims"/' \
    "buffers[0].dtype (x): not one of float" "an unknown dtype"
tamper 's/"batch_size", 128/"batch_size", -128/' \
    "sizes[0] (batch_size): value is not a whole number" "a negative size"
tamper 's/"name": "x"/"name": "x; evil()"/' \
    "buffers[0].name: not a C identifier" "a name that is no identifier"
tamper 's/\[\[0\], 1, 1\]/[[7], 1, 1]/' \
    "buffers[0].dims[0] (x): size index is not one of 0 to 1" "a dim of no size"
tamper 's/"role": "out"/"role": "in"/' "buffers: no output" "no output"
rm "$R/problem.torch/describe.json"
expect_fail "a run without describe.json says how to record it, running nothing" \
    "describe.json' is missing" $T status "$R"
[ ! -e "$SCRATCH/MARKER" ] || fail "a refused record ran the module"
cp "$SCRATCH/cumsum.keep" "$R/problem.torch/cumsum.py"
$T resume "$R" --generations 6 --quiet 2>"$SCRATCH/err" &&
    cmp -s "$R/problem.torch/describe.json" "$SCRATCH/desc.keep" &&
    ok "resume (which runs the module) records a missing description" ||
    { fail "resume records describe.json"; cat "$SCRATCH/err"; }

# 2c. KernelBench's file names ("89_cumsum.py", often long) give an
# identifier of at most 31 characters that templates can name
KB="$SCRATCH/kb"
mkdir -p "$KB"
N=kb89_cumsum_with_a_name_longer_
cp examples/torch/cumsum/cumsum.py "$KB/89_cumsum_with_a_name_longer_than_thirty_one.py"
sed "s|^// kevo: problem .*|// kevo: problem $N|" examples/torch/cumsum/cumsum_rows.cu \
    >"$KB/cumsum_rows.cu"
$T run --evaluator test --torch-problem "$KB/89_cumsum_with_a_name_longer_than_thirty_one.py" \
    --seed 3 --generations 1 --quiet --runs-dir "$SCRATCH/runs" --name kb 2>"$SCRATCH/err" &&
    grep -q "\"problem\":[[:space:]]*\"$N\"" "$SCRATCH/runs/kb/manifest.json" &&
    ok "a KernelBench file name becomes the problem $N" ||
    { fail "KernelBench file name"; cat "$SCRATCH/err"; }

# 2d. a module with no size constant (KernelBench's 100_HingeLoss: its
# forward only broadcasts at the file's sizes, so doubling batch_size
# breaks it): every dim is fixed, the kernel gets no size ints
FX="$SCRATCH/fixed"
mkdir -p "$FX"
cat >"$FX/hinge.py" <<'PY'
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, predictions, targets):
        return torch.mean(torch.clamp(1 - predictions * targets, min=0))
batch_size = 64
input_shape = (64,)
def get_inputs():
    return [torch.rand(batch_size, *input_shape),
            torch.randint(0, 2, (batch_size,)).float() * 2 - 1]
def get_init_inputs():
    return []
PY
cat >"$FX/hinge_serial.cu" <<'CU'
// kevo: problem hinge
// kevo: dtypes fp32
// kevo: launch hinge_serial
// kevo: grid 1
// kevo: block 1
extern "C" __global__ void hinge_serial(const elem_t *p, const elem_t *t, elem_t *out, void *ws)
{
    float a = 0.f;
    for (int i = 0; i < 64 * 64; i++)
        a += fmaxf(1.f - TO_F32(p[i]) * TO_F32(t[i % 64]), 0.f);
    out[0] = FROM_F32(a / 4096.f);
}
CU
$T run --evaluator test --torch-problem "$FX/hinge.py" --seed 3 --generations 1 \
    --quiet --runs-dir "$SCRATCH/runs" --name fixed 2>"$SCRATCH/err" &&
    $T status "$SCRATCH/runs/fixed" >"$SCRATCH/st" 2>&1 &&
    grep -q "^problem:     hinge fp32 (fixed shape), seed 3" "$SCRATCH/st" &&
    grep -q "ok 1" "$SCRATCH/st" &&
    ok "a module with no size constant runs at its fixed shape (kernel takes no size ints)" ||
    { fail "fixed-shape module"; cat "$SCRATCH/err" "$SCRATCH/st"; }
expect_fail "--set on a fixed-shape module says it has no sizes" \
    "--set: 'batch_size' is not a size of hinge (its sizes: none: every dim is fixed)" \
    $T run --evaluator test --torch-problem "$FX/hinge.py" --set batch_size=4 \
    --runs-dir "$SCRATCH/runs" --name fixedset

# 2b. the module's sizes are the default shape; --set changes one by name
$T run --evaluator test --torch-problem examples/torch/cumsum/cumsum.py --seed 3 \
    --generations 1 --quiet --runs-dir "$SCRATCH/runs" --name dflt 2>"$SCRATCH/err" &&
    grep -q '"shape":[[:space:]]*"128x4000"' "$SCRATCH/runs/dflt/manifest.json" &&
    ok "without --shape a module runs at its own sizes" ||
    { fail "default shape"; cat "$SCRATCH/err"; }
$T run --evaluator test --torch-problem examples/torch/cumsum/cumsum.py --seed 3 \
    --set batch_size=64 --generations 1 --quiet --runs-dir "$SCRATCH/runs" \
    --name set 2>"$SCRATCH/err" &&
    grep -q '"shape":[[:space:]]*"64x4000"' "$SCRATCH/runs/set/manifest.json" &&
    ok "--set batch_size=64 overrides one size constant" ||
    { fail "--set"; cat "$SCRATCH/err"; }
expect_fail "--set of a name that is no size lists the sizes" \
    "--set: 'dim' is not a size of cumsum (its sizes: batch_size input_shape)" \
    $T run --evaluator test --torch-problem examples/torch/cumsum/cumsum.py \
    --set dim=2 --runs-dir "$SCRATCH/runs" --name setbad

# 3. the LLM prompt: the module's source is the problem statement, the ABI
# is derived (parameters as inputs, then outputs, then sizes)
. tests/cli/llm.inc
mkdir -p "$SCRATCH/lone"
cp examples/torch/linear/linear.py "$SCRATCH/lone/"
start_server tests/data/llm-answers/scale
$T run --evaluator test --torch-problem "$SCRATCH/lone/linear.py" --shape 256x512x384 \
    --seed 3 --islands 1 --population 4 --offspring 4 --quiet --generations 1 \
    --llm "openai:test-model@http://127.0.0.1:$PORT/v1" --llm-key-env KEVO_TEST_KEY \
    --runs-dir "$SCRATCH/runs" --name llm >/dev/null 2>"$SCRATCH/llm.err"
stop_server
head -1 "$SCRATCH/server.log" >"$SCRATCH/req"
grep -qF 'const elem_t *x, const elem_t *fc_weight, const elem_t *fc_bias, elem_t *out, int batch, int in_features, int out_features, void *ws)' "$SCRATCH/req" &&
    grep -qF 'fc_weight (module state, elem_t): [out_features, in_features]' "$SCRATCH/req" &&
    grep -qF 'self.fc = nn.Linear(in_features, out_features)' "$SCRATCH/req" &&
    ok "the LLM prompt carries the derived ABI and the module's source" ||
    { fail "prompt of a torch problem"; cat "$SCRATCH/llm.err"; head -c 3000 "$SCRATCH/req"; }

# an integer output is declared with its own type (long long *), not elem_t
mkdir -p "$SCRATCH/am"
cp examples/torch/argmax/argmax.py "$SCRATCH/am/"
start_server tests/data/llm-answers/argmax
$T run --evaluator test --torch-problem "$SCRATCH/am/argmax.py" \
    --seed 3 --islands 1 --population 4 --offspring 4 --quiet --generations 2 \
    --llm "openai:test-model@http://127.0.0.1:$PORT/v1" --llm-key-env KEVO_TEST_KEY \
    --runs-dir "$SCRATCH/runs" --name am >/dev/null 2>"$SCRATCH/am.err"
stop_server
grep -q '"template":"llm_[0-9a-f]*".*"mutator":"llm_propose"' "$SCRATCH/runs/am/journal.jsonl" &&
    ok "an LLM kernel with a long long * argmax output is accepted and evaluated" ||
    { fail "int64 output in an LLM answer"; cat "$SCRATCH/am.err";
      grep -o '"why":"[^"]*"' "$SCRATCH/runs/am/journal.jsonl" | head -3; }

# 4. bad modules: a clear error naming the file (and line), before any run
B="$SCRATCH/bad"
mkdir -p "$B"
badcase() { # name, text, expected stderr substring
    printf '%s\n' "$2" >"$B/$1.py"
    expect_fail "$1 is refused" "$3" \
        $T run --evaluator test --torch-problem "$B/$1.py" --shape 8 \
        --runs-dir "$SCRATCH/runs" --name "bad_$1"
    [ ! -e "$SCRATCH/runs/bad_$1" ] || fail "$1 left a run directory"
}
badcase syntax 'import torch
N = 8
def get_inputs(:
    return []' "$B/syntax.py:3: SyntaxError"
badcase nomodel 'import torch
N = 8
def get_inputs():
    return [torch.randn(N)]
def get_init_inputs():
    return []' "$B/nomodel.py: no Model"
badcase notensor 'import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return x
N = 8
def get_inputs():
    return [3.5]
def get_init_inputs():
    return []' "get_inputs() returned float as input 0, not a tensor"
badcase raises 'import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return x.nosuchop()
N = 8
def get_inputs():
    return [torch.randn(N)]
def get_init_inputs():
    return []' "$B/raises.py:5: AttributeError"

# 4b. the worker's self-check of the fp64 reference (torchprob_helper.py's
# check_stable, run on the CPU here; tests/gpu/torchprob.sh runs whole bad
# modules on the GPU): a NaN output is named as not finite (NaN is never
# equal to itself, so an equality test first would call it
# nondeterministic), two differing runs as nondeterministic
stable() { # expected message, then two python tensor expressions
    "$PY" -c 'import runpy, sys, torch
h = runpy.run_path("fitness/torchprob_helper.py")
try:
    h["check_stable"]([eval(sys.argv[1])], [eval(sys.argv[2])], "m.py")
    print("accepted")
except h["TPError"] as e:
    print(e)' "$2" "$3" >"$SCRATCH/stable" 2>&1
    grep -qF "$1" "$SCRATCH/stable"
}
stable "m.py: the fp64 module's output 0 is not finite" \
    'torch.tensor([1.0, float("nan")], dtype=torch.float64)' \
    'torch.tensor([1.0, float("nan")], dtype=torch.float64)' &&
    ok "a NaN reference is refused as not finite" ||
    { fail "NaN reference"; cat "$SCRATCH/stable"; }
stable "m.py: the fp64 module disagrees with itself" \
    'torch.tensor([1.0, 2.0], dtype=torch.float64)' \
    'torch.tensor([1.0, 2.0 + 2 ** -40], dtype=torch.float64)' &&
    ok "two fp64 runs one bit apart are refused as nondeterministic" ||
    { fail "nondeterministic reference"; cat "$SCRATCH/stable"; }
stable "accepted" 'torch.arange(4, dtype=torch.float64)' \
    'torch.arange(4, dtype=torch.float64)' &&
    ok "two equal finite fp64 runs are accepted" ||
    { fail "stable reference"; cat "$SCRATCH/stable"; }
# the bad GPU modules all describe (their faults show only on the GPU), so
# the worker's checks are what must stop them
for f in cpu_only random_forward index_add nonfinite; do
    "$PY" fitness/torchprob_helper.py describe tests/gpu/torchprob/$f.py \
        $f.py "$SCRATCH/$f.json" && grep -q '"buffers"' "$SCRATCH/$f.json" ||
        fail "tests/gpu/torchprob/$f.py does not describe"
done

# 5. no torch for that python: named, with how to install it
mkdir -p "$SCRATCH/nt/torch"
echo 'raise ImportError("No module named torch", name="torch")' >"$SCRATCH/nt/torch/__init__.py"
printf '#!/bin/sh\nPYTHONPATH=%s exec %s "$@"\n' "$SCRATCH/nt" "$PY" >"$SCRATCH/notorch"
chmod +x "$SCRATCH/notorch"
cp examples/torch/cumsum/cumsum.py "$B/"
KEVO_PYTHON="$SCRATCH/notorch" expect_fail "a python without torch says how to install it" \
    "pip install torch" $T run --evaluator test --torch-problem "$B/cumsum.py" \
    --shape 128x4000 --runs-dir "$SCRATCH/runs" --name nt
# and every other kind keeps working without Python
KEVO_PYTHON=/nonexistent $T run --evaluator test --problem softmax --shape 64x64 \
    --generations 1 --quiet --runs-dir "$SCRATCH/runs" --name nopy 2>"$SCRATCH/err" &&
    ok "a built-in problem runs with no python at all" || { fail "no python"; cat "$SCRATCH/err"; }
finish
