#!/bin/sh
# tests/gpu/export_torch.sh [RUN_DIR...] - on a GPU machine with PyTorch:
# `kevo export --format torch` of each run, import the custom op, run it
# on random inputs at the run's shape and at an awkward one, and compare
# with torch (torch.matmul / torch.softmax) computed in fp32 on the same
# (upcast) inputs and in the run's dtype; then the op inside a
# torch.compile(fullgraph=True) model, KernelBench's ModelNew, and the
# errors for a wrong dtype, a CPU tensor, a non-contiguous view and
# mismatched sizes. Prints the max errors and
# PASS/FAIL per case; exits 1 on any failure. Without RUN_DIR it first
# makes short runs with $KEVO into $OUT: gemm fp32 and softmax fp16 from
# the shipped templates; bf16 gemm with the TMA template hgemm_wgmma
# (tensor maps encoded by the extension); and two runs whose only
# templates are LLM-born, answered by the replay provider from the
# recorded transcripts tests/data/llm-recorded/{split,splitk} (a split
# softmax and a split-K gemm: two launches and a workspace each), so their
# winners are LLM templates, exported and checked like the others; and
# PyTorch problems (examples/torch/{argmax,masked_fill,center4d,linear}:
# int64 output, bool input (fp32 and bf16), rank 4, nn.Linear's
# parameters; tests/data/export/rep: a size fixed at the run's value),
# checked by scripts/torch-versions.py against the module itself and,
# through ModelNew, against Model under KernelBench's seed protocol.
# No extension is built (the op calls the exported C launcher through
# ctypes), so each export is checked in seconds.
set -u
KEVO=${KEVO:-build/bundle/kevo}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${OUT:-$(mktemp -d /tmp/kevo-export-torch.XXXXXX)}
mkdir -p "$WORK"
[ -x "$KEVO" ] || { echo "FAIL: KEVO=$KEVO is not executable"; exit 1; }
if [ $# = 0 ]; then
    export KEVO_TEMPLATES=${KEVO_TEMPLATES:-$ROOT/templates}
    "$KEVO" run --problem gemm --dtype fp32 --shape 1024x768x512 --generations 2 \
        --islands 2 --population 4 --offspring 8 --runs-dir "$WORK/runs" --name gemm --quiet \
        || { echo "FAIL: kevo run gemm"; exit 1; }
    "$KEVO" run --problem softmax --dtype fp16 --shape 1024x1000 --generations 2 \
        --islands 2 --population 4 --offspring 8 --runs-dir "$WORK/runs" --name softmax --quiet \
        || { echo "FAIL: kevo run softmax"; exit 1; }
    "$KEVO" run --problem gemm --dtype bf16 --shape 1024x768x512 --generations 1 \
        --template hgemm_wgmma --islands 1 --population 4 --offspring 4 \
        --runs-dir "$WORK/runs" --name tma --quiet || { echo "FAIL: kevo run tma"; exit 1; }
    mkdir -p "$WORK/no-templates/templates/none"
    for c in "split softmax fp16 1024x1000" "splitk gemm fp32 1024x768x512"; do
        set -- $c
        "$KEVO" run --problem $2 --dtype $3 --shape $4 --generations 2 --islands 2 \
            --population 4 --offspring 8 --templates-dir "$WORK/no-templates/templates" \
            --llm "replay:$ROOT/tests/data/llm-recorded/$1" --runs-dir "$WORK/runs" \
            --name "llm-$1" --quiet || { echo "FAIL: kevo run llm-$1"; exit 1; }
        grep -q '"template":[[:space:]]*"llm_' "$WORK/runs/llm-$1/best.json" &&
            echo "llm-$1: the winner is LLM-born: $(grep '"template"' "$WORK/runs/llm-$1/best.json")" ||
            { echo "FAIL llm-$1: the winner is not an LLM template"; exit 1; }
    done
    # PyTorch problems: an int64 output, a bool input, rank 4 with a
    # parameter, nn.Linear (each module with its ok_*.cu as templates;
    # torch.compile baselines off: the export is under test, not them)
    # masked_fill also in bf16 (ModelNew casts the module's fp32 inputs for
    # the op and its output back); tests/data/export/rep: a size (reps) no
    # input has, fixed at the run's value, and a product dim cols*reps
    mkdir -p "$WORK/mods/rep"
    cp "$ROOT/tests/data/export/rep/rep.py" "$ROOT/tests/data/export/rep/rep_copy.cu" "$WORK/mods/rep/"
    for c in "argmax fp32" "masked_fill fp32" "masked_fill bf16" "center4d fp32" "linear fp32" "rep fp32"; do
        set -- $c
        if [ $1 != rep ]; then
            mkdir -p "$WORK/mods/$1"
            cp "$ROOT/examples/torch/$1/$1.py" "$ROOT/examples/torch/$1"/tests/ok_*.cu "$WORK/mods/$1/"
        fi
        KEVO_TORCH_COMPILE=off "$KEVO" run --torch-problem "$WORK/mods/$1/$1.py" --dtype $2 \
            --generations 1 --islands 1 --population 4 --offspring 4 --runs-dir "$WORK/runs" \
            --name "torch-$1-$2" --quiet || { echo "FAIL: kevo run torch-$1-$2"; exit 1; }
    done
    set -- "$WORK/runs/gemm" "$WORK/runs/softmax" "$WORK/runs/tma" \
        "$WORK/runs/llm-split" "$WORK/runs/llm-splitk" "$WORK/runs/torch-argmax-fp32" \
        "$WORK/runs/torch-masked_fill-fp32" "$WORK/runs/torch-masked_fill-bf16" \
        "$WORK/runs/torch-center4d-fp32" "$WORK/runs/torch-linear-fp32" "$WORK/runs/torch-rep-fp32"
fi
fail=0
for run in "$@"; do
    out="$WORK/export-$(basename "$run")"
    if ! "$KEVO" export "$run" --format torch --out "$out" --quiet; then
        echo "FAIL $run: kevo export"; fail=1; continue
    fi
    py=$(ls "$out"/kevo_*.py | grep -v '_kernelbench.py\|_reference.py' | head -1)
    if [ -d "$run/problem.torch" ]; then
        # a PyTorch problem: scripts/torch-versions.py with the device:
        # the op against the module's own Model (its inputs and state) at
        # the run's and an awkward shape, opcheck, the op inside an
        # inductor-compiled fullgraph model, ModelNew against Model under
        # KernelBench's seed protocol, torch.compile(ModelNew)
        tv="$WORK/torch-versions-$(basename "$run").txt"
        "${KEVO_PYTHON:-python3}" "$ROOT/scripts/torch-versions.py" "$out" >"$tv" 2>&1 || fail=1
        grep -v '^NOTE torch' "$tv"
        continue
    fi
    python3 - "$py" <<'PY' || fail=1
import importlib.util, os, sys, torch
spec = importlib.util.spec_from_file_location("kx", sys.argv[1])
kx = importlib.util.module_from_spec(spec); spec.loader.exec_module(kx)
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dtype = kx.INPUTS[0][2]
tol = {"fp32": 1e-4, "fp16": 1e-2, "bf16": 4e-2}[kx.DTYPE]

def reference(xs, dt):
    if kx.PROBLEM == "gemm":
        return [xs[0].to(dt) @ xs[1].to(dt)]
    if kx.PROBLEM == "softmax":
        return [torch.softmax(xs[0].to(dt), dim=-1)]
    raise SystemExit(f"FAIL: no torch reference for problem {kx.PROBLEM}")

def inputs(sizes, seed=1234):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return [(torch.rand(*(sizes[d] for d in dims), device="cuda", generator=g) * 2 - 1).to(dt)
            for _, _, dt, dims, *_ in kx.INPUTS]

def check(outs, xs, label, sizes, post=lambda t: t):
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    ok = True
    for (name, *_), o, r32, rdt in zip(kx.OUTPUTS, outs, reference(xs, torch.float32),
                                            reference(xs, dtype)):
        r32 = post(r32)
        scale = r32.abs().max().item() or 1.0
        e32 = (o.float() - r32).abs().max().item() / scale
        edt = (o.float() - post(rdt.float())).abs().max().item() / scale
        good = e32 <= tol and o.shape == r32.shape and torch.isfinite(o.float()).all().item()
        ok &= good
        print(f"{'PASS' if good else 'FAIL'} {kx.PROBLEM} {kx.DTYPE} {label} {sizes} {name}: "
              f"max err vs fp32 torch {e32:.3e}, vs {kx.DTYPE} torch {edt:.3e} "
              f"(relative to max |ref|, tolerance {tol:g})")
    return ok

def case(sizes, label):
    xs = inputs(sizes)
    try:
        out = kx.op(*xs)
    except RuntimeError as e:
        if "(CUresult 1)" in str(e):  # the template's plan refuses these sizes
            print(f"skip {label} {sizes}: {str(e).splitlines()[0]}")
            return True
        raise
    torch.cuda.synchronize()
    return check(out, xs, label, sizes)

def expect(exc, what, fn):
    try:
        fn()
    except exc as e:
        print(f"PASS {what}: {type(e).__name__}: {e}")
        return True
    print(f"FAIL {what}: no {exc.__name__}")
    return False

print(f"{kx.FUNCTION}: op {kx.OP_NAME}, template {kx.TEMPLATE}, genome {kx.GENOME}, arch {kx.ARCH}, "
      f"torch {torch.__version__}")
odd = {k: max(1, v * 3 // 4 + 1) for k, v in kx.SHAPE.items()}
ok = case(kx.SHAPE, "run shape") & case(odd, "awkward shape")

# the op inside a torch.compile'd model, between torch ops, one graph
class Model(torch.nn.Module):
    def forward(self, *xs):
        y = kx.op(*xs)
        return (y[0] if isinstance(y, tuple) else y).float() * 2 + 1
xs = inputs(kx.SHAPE, 99)
try:
    got = torch.compile(Model(), fullgraph=True)(*xs)
    torch.cuda.synchronize()
    ok &= check(got, xs, "torch.compile fullgraph", kx.SHAPE, lambda t: t.float() * 2 + 1)
except Exception as e:
    print(f"FAIL torch.compile of a model calling the op: {type(e).__name__}: {e}")
    ok = False

# KernelBench's ModelNew calls the same op
kb = importlib.util.spec_from_file_location("kb", sys.argv[1][:-3] + "_kernelbench.py")
kbm = importlib.util.module_from_spec(kb); kb.loader.exec_module(kbm)
y0, y1 = kx.op(*xs), kbm.ModelNew()(*xs)
same = all(torch.equal(a, b) for a, b in zip(y0 if isinstance(y0, tuple) else [y0],
                                              y1 if isinstance(y1, tuple) else [y1]))
print(f"{'PASS' if same else 'FAIL'} kernelbench ModelNew gives the op's result")
ok &= same

# clear errors, no launch, for what the kernel cannot take
name0 = kx.INPUTS[0][0]
wrong_dt = torch.float16 if dtype != torch.float16 else torch.float32
ok &= expect(TypeError, "a wrong dtype is refused",
             lambda: kx.op(*([xs[0].to(wrong_dt)] + xs[1:])))
ok &= expect(ValueError, "a CPU tensor is refused", lambda: kx.op(*([xs[0].cpu()] + xs[1:])))
ok &= expect(ValueError, "a non-contiguous view is refused",
             lambda: kx.op(*([xs[0].t().contiguous().t()] + xs[1:])))
if len(xs) > 1:
    ok &= expect(ValueError, "mismatched sizes are refused",
                 lambda: kx.op(*([xs[0][:, :-1].contiguous()] + xs[1:])))
sys.exit(0 if ok else 1)
PY
done
[ $fail = 0 ] && echo "export_torch: PASS" || echo "export_torch: FAIL"
exit $fail
