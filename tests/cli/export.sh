# kevo export on runs made with the deterministic test evaluator: the .cu
# is the run's exact source and compiles with nvcc; the C launcher
# compiles (cc -Werror) and links against the driver stub; the cubin is
# an ELF; the torch file parses and carries the run's facts; the exported
# plan agrees with kevo's; errors are clear.
. tests/cli/lib.inc
K="$KEVO"
NVCC=/usr/local/cuda/bin/nvcc
CUDA=/usr/local/cuda

$T run --evaluator test --problem gemm --shape 300x200x100 --seed 3 --generations 3 \
    --template sgemm_tiled --runs-dir "$SCRATCH" --name eg --quiet || fail "export setup run (gemm)"
$T run --evaluator test --problem softmax --dtype fp16 --shape 512x1000 --seed 4 --generations 2 \
    --runs-dir "$SCRATCH" --name es --quiet || fail "export setup run (softmax)"
# a two-launch template whose second launch is a programmatic dependent launch
$T run --evaluator test --problem gemm --shape 300x200x128 --seed 5 --generations 2 \
    --templates-dir tests/data/templates/dir --template splitk \
    --runs-dir "$SCRATCH" --name ep --quiet || fail "export setup run (pdl)"

for r in eg es ep; do
    R="$SCRATCH/$r"; O="$SCRATCH/out-$r"
    $K export "$R" --format all --out "$O" --json >"$SCRATCH/ej" 2>"$SCRATCH/ee" \
        || { fail "kevo export $r"; cat "$SCRATCH/ee"; continue; }
    p=$(sed -n 's/.*"problem":[[:space:]]*"\([a-z]*\)".*/\1/p' "$R/manifest.json" | head -1)
    B="$O/kevo_$p"
    [ -s "$B.cu" ] && [ -s "$B.h" ] && [ -s "$B.c" ] && [ -s "$B.cubin" ] && [ -s "$B.py" ] \
        && [ -s "${B}_kernelbench.py" ] && [ -s "$O/libkevo_$p.so" ] \
        && grep -q "\"python\":" "$SCRATCH/ej" && grep -q "\"library\":" "$SCRATCH/ej" \
        && ok "$r: export writes .cu, .h, .c, .cubin, the launcher library, the op's .py, the kernelbench .py" \
        || fail "$r: export files"
    # the .cu ends with the exact source the run measured
    h=$(sed -n 's/.*"hash":[[:space:]]*"\([0-9a-f]*\)".*/\1/p' "$R/best.json")
    sh_=$(grep "\"hash\":\"$h\"" "$R/journal.jsonl" | head -1 | sed 's/.*"source":"\([0-9a-f]*\)".*/\1/')
    n=$(wc -c <"$R/sources/$sh_.cu")
    tail -c "$n" "$B.cu" | cmp -s - "$R/sources/$sh_.cu" && grep -q "launch plan at" "$B.cu" \
        && ok "$r: the .cu is the run's source of the winner plus a plan comment" || fail "$r: .cu content"
    if [ -x "$NVCC" ]; then
        $NVCC -c -arch=sm_90a -std=c++17 "$B.cu" -o "$SCRATCH/k.o" 2>"$SCRATCH/ne" \
            && ok "$r: the exported .cu compiles with nvcc" || { fail "$r: nvcc .cu"; head "$SCRATCH/ne"; }
    else
        echo "skip nvcc check: $NVCC not found"
    fi
    cat >"$SCRATCH/main.c" <<C
#include "kevo_$p.h"
int main(void) { return kevo_${p}_load("kevo_$p.cubin") != CUDA_SUCCESS; }
C
    cc -std=c11 -Wall -Wextra -Werror -I"$O" -I$CUDA/include "$SCRATCH/main.c" "$B.c" \
        -L$CUDA/lib64/stubs -lcuda -o "$SCRATCH/m" 2>"$SCRATCH/ce" \
        && ok "$r: the C launcher compiles with -Werror and links against libcuda" \
        || { fail "$r: C launcher"; head "$SCRATCH/ce"; }
    [ "$(head -c 4 "$B.cubin" | od -An -c | tr -d ' ')" = "177ELF" ] \
        && ok "$r: the cubin is an ELF file" || fail "$r: cubin"
    python3 -c "import ast,sys; [ast.parse(open(f).read()) for f in sys.argv[1:]]" "$B.py" "${B}_kernelbench.py" \
        && grep -q "^PROBLEM = \"$p\"" "$B.py" && grep -q "^GENOME = \"$h\"" "$B.py" \
        && grep -q "^OP_NAME = \"kevo::${p}_$h\"" "$B.py" && grep -q "torch.library.custom_op" "$B.py" \
        && grep -q "register_fake" "$B.py" && grep -q "^def kevo_$p(" "$B.py" \
        && ! grep -q "load_inline\|cpp_extension" "$B.py" \
        && grep -q "^class ModelNew(nn.Module):" "${B}_kernelbench.py" \
        && ok "$r: the torch op and ModelNew parse, name problem, genome and op, need no C++ extension" \
        || fail "$r: torch file"
    # the library is the C launcher: its entry points, linked to the driver alone
    nm -D --defined-only "$O/libkevo_$p.so" | grep -q " T kevo_${p}_launch$" \
        && nm -D --defined-only "$O/libkevo_$p.so" | grep -q " T kevo_${p}_load$" \
        && ! readelf -d "$O/libkevo_$p.so" | grep NEEDED | grep -v "libcuda\.so\|libc\.so" | grep -q . \
        && ok "$r: libkevo_$p.so exports the launcher and needs only libcuda and libc" \
        || { fail "$r: launcher library"; readelf -d "$O/libkevo_$p.so" | grep NEEDED; }
done

# the pdl launch keeps its attribute in every launcher, the first does not
O="$SCRATCH/out-ep"
[ "$(grep -c 'kevo_l\[1\].pdl = 1;' "$O/kevo_gemm.c")" = 1 ] && grep -q 'kevo_l\[0\].pdl = 0;' "$O/kevo_gemm.c" \
    && grep -q "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION" "$O/kevo_gemm.c" \
    && grep -q "splitk_reduce<<<.*programmatic dependent launch" "$O/kevo_gemm.cu" \
    && ! grep -q "splitk_partial<<<.*programmatic" "$O/kevo_gemm.cu" \
    && ok "pdl: the plan and the C launcher (which the torch op calls) carry the second launch's programmatic serialization" \
    || fail "pdl in the exported launchers"

# the generated plan function computes what kevo's launch plan says, at
# the run's shape (compiled standalone with the param defines of the .c)
R="$SCRATCH/eg"; O="$SCRATCH/out-eg"
want=$(sed -n 's/^ \*   \(sgemm_tiled<<<.*\)$/\1/p' "$O/kevo_gemm.cu" | head -1)
{ sed -n '/^#define /p' "$O/kevo_gemm.c"; sed -n '/^struct kevo_gemm_dims/,/^#pragma pop_macro("align")/p' "$O/kevo_gemm.c"
  cat <<'C'
#include <stdio.h>
int main(void) {
    struct kevo_gemm_dims l[1]; unsigned long long ws; const char *why = "";
    if (kevo_gemm_plan_(300, 200, 100, 132, 232448, 52428800, l, &ws, &why)) { puts(why); return 1; }
    printf("sgemm_tiled<<<dim3(%u, %u, %u), dim3(%u, %u, %u), %u>>>\n", l[0].grid[0], l[0].grid[1],
           l[0].grid[2], l[0].block[0], l[0].block[1], l[0].block[2], l[0].smem);
    return 0;
}
C
} >"$SCRATCH/plan.c"
cc -std=c11 -w "$SCRATCH/plan.c" -o "$SCRATCH/plan" && got=$("$SCRATCH/plan")
[ -n "$want" ] && [ "$got" = "$want" ] && ok "the exported plan function agrees with kevo's plan ($got)" \
    || fail "exported plan: got '$got' want '$want'"

# a kernel built with a shape fact (sgemm_warptile's BVEC, N % 4 == 0): the
# .cu has their values, and the plan function takes a shape with the same
# values and refuses one whose facts differ
$T run --evaluator test --problem gemm --shape 256x256x256 --seed 6 --generations 2 \
    --template sgemm_warptile --runs-dir "$SCRATCH" --name ef --quiet || fail "export setup run (facts)"
O="$SCRATCH/out-ef"
$K export "$SCRATCH/ef" --format all --out "$O" >/dev/null 2>"$SCRATCH/fe" || { fail "export ef"; cat "$SCRATCH/fe"; }
grep -q '^#define BVEC 1$' "$O/kevo_gemm.cu" \
    && grep -q 'built for BVEC = 1 (N % 4 == 0): other shapes are refused' "$O/kevo_gemm.cu" \
    && grep -q 'built for BVEC = 1 (N % 4 == 0): other shapes are refused' "$O/kevo_gemm.py" \
    && ok "facts: the exported .cu and .py carry the run's shape facts" || fail "facts in the export"
{ sed -n '/^#define /p' "$O/kevo_gemm.c"; sed -n '/^struct kevo_gemm_dims/,/^#pragma pop_macro("align")/p' "$O/kevo_gemm.c"
  cat <<'C'
#include <stdio.h>
static void try_(long long m, long long n, long long k) {
    struct kevo_gemm_dims l[2]; unsigned long long ws; const char *why = "ok";
    kevo_gemm_plan_(m, n, k, 132, 232448, 52428800, l, &ws, &why);
    printf("%lldx%lldx%lld: %s\n", m, n, k, why);
}
int main(void) { try_(256, 256, 256); try_(512, 256, 1024); try_(256, 254, 256); return 0; }
C
} >"$SCRATCH/fplan.c"
cc -std=c11 -w "$SCRATCH/fplan.c" -o "$SCRATCH/fplan" && got=$("$SCRATCH/fplan")
want="256x256x256: ok
512x256x1024: ok
256x254x256: shape not supported: the kernel was built for BVEC = 1 (N % 4 == 0)"
[ "$got" = "$want" ] && ok "facts: the exported plan takes shapes with the run's facts, refuses others" \
    || fail "facts plan: got '$got'"

# an int kernel argument (sgemm_warptile's "arg group_m GROUP_M"): the
# launchers compute it from the template's expression and pass it after ws
g=$(sed -n 's/^#define GROUP_M \([0-9]*\)$/\1/p' "$O/kevo_gemm.c")
{ sed -n '/^#define /p' "$O/kevo_gemm.c"; sed -n '/^struct kevo_gemm_dims/,/^#pragma pop_macro("align")/p' "$O/kevo_gemm.c"
  cat <<'C'
#include <stdio.h>
int main(void) {
    int a[1] = {-1}; const char *why = "ok";
    int r = kevo_gemm_args_(256, 256, 256, 132, 232448, 52428800, a, &why);
    printf("%d %d %s\n", r, a[0], why);
    return 0;
}
C
} >"$SCRATCH/aplan.c"
cc -std=c11 -w "$SCRATCH/aplan.c" -o "$SCRATCH/aplan" && got=$("$SCRATCH/aplan")
cat >"$SCRATCH/main.c" <<C
#include "kevo_gemm.h"
int main(void) { return kevo_gemm_load("kevo_gemm.cubin") != CUDA_SUCCESS; }
C
[ -n "$g" ] && [ "$got" = "0 $g ok" ] \
    && grep -q 'void \*kevo_args\[\] = {&A, &B, &C, &M, &N, &K, &kevo_ws, &kevo_ia\[0\]};' "$O/kevo_gemm.c" \
    && grep -q "int argument group_m = GROUP_M ($g here)" "$O/kevo_gemm.cu" \
    && cc -std=c11 -Wall -Wextra -Werror -I"$O" -I$CUDA/include "$SCRATCH/main.c" "$O/kevo_gemm.c" \
        -L$CUDA/lib64/stubs -lcuda -o "$SCRATCH/m" \
    && ok "args: the C launcher computes the int arg (GROUP_M = $g) and passes it after ws" \
    || fail "args in the export: got '$got', GROUP_M '$g'"

# a template that includes kevo's own header (kevo/sm90.cuh, handed to
# NVRTC in memory): the .cu carries its text instead of the #include, so
# it compiles where kevo is not (the torch op launches the exported cubin)
$T run --evaluator test --problem gemm --dtype bf16 --shape 512x256x320 --seed 3 --generations 1 \
    --template hgemm_wgmma --runs-dir "$SCRATCH" --name hdr --quiet || fail "export setup run (kevo header)"
$K export "$SCRATCH/hdr" --format all --out "$SCRATCH/out-hdr" --quiet 2>"$SCRATCH/he" ||
    { fail "export of a template with kevo's header"; cat "$SCRATCH/he"; }
H="$SCRATCH/out-hdr/kevo_gemm"
grep -lq '#include "kevo/sm90.cuh"' "$SCRATCH"/hdr/sources/*.cu &&
    ! grep -q '^ *# *include "kevo/' "$H.cu" &&
    grep -q '^#define KEVO_SM90_CUH' "$H.cu" && [ -s "$SCRATCH/out-hdr/libkevo_gemm.so" ] &&
    ok "export inlines kevo's header where the run's source includes it" ||
    fail "kevo header in the export"
if [ -x "$NVCC" ]; then
    mkdir -p "$SCRATCH/bare" && (cd "$SCRATCH/bare" &&
        $NVCC -c -gencode=arch=compute_90a,code=sm_90a -std=c++17 "$H.cu" -o k.o \
            2>"$SCRATCH/hne") &&
        ok "the exported .cu of a template with kevo's header compiles with nvcc alone" ||
        { fail "nvcc on the exported .cu with kevo's header"; head "$SCRATCH/hne"; }
fi

expect_fail "export of a missing run names the path" "'$SCRATCH/nope' is not a kevo run directory" \
    $K export "$SCRATCH/nope"
expect_fail "export with an unknown format says so" "unknown format 'rust'" $K export "$R" --format rust
mkdir -p "$SCRATCH/nowin"; cp -r "$R/manifest.json" "$R/templates" "$SCRATCH/nowin/"; : >"$SCRATCH/nowin/journal.jsonl"
expect_fail "export of a run without a winner says so" "has no winner" $K export "$SCRATCH/nowin"
# refusals that remain name the buffer and why: a buffer read and written
# in place, a buffer with no 2-D shape in sizes (.problem files)
PB="$SCRATCH/pb"
mkdir -p "$PB/io" "$PB/flat"
sed 's/^buffer z out elem ROWS\*COLS rows=ROWS$/buffer z inout elem ROWS*COLS rows=ROWS fill=normal(0,1)/' \
    tests/data/export/pair/pair.problem >"$PB/io/pair.problem"
sed 's/^buffer g in elem ROWS\*COLS rows=ROWS /buffer g in elem ROWS*COLS /' \
    tests/data/export/pair/pair.problem >"$PB/flat/pair.problem"
for c in io flat; do
    cp tests/data/export/pair/pair_loop.cu "$PB/$c/"
    $T run --evaluator test --problem-file "$PB/$c/pair.problem" --shape 64x32 --seed 3 \
        --generations 2 --runs-dir "$SCRATCH" --name "pb-$c" --quiet || fail "export setup run (pair $c)"
done
grep -q '^buffer z inout' "$PB/io/pair.problem" && grep -q '^buffer g in elem ROWS\*COLS fill' "$PB/flat/pair.problem" ||
    fail "the refusal setups did not change pair.problem"
expect_fail "--format torch refuses an in-place buffer, naming it" \
    "--format torch: buffer 'z' of problem 'pair' is read and written in place (not supported; --format cu or c)" \
    $K export "$SCRATCH/pb-io" --format torch --out "$SCRATCH/pb-io-x"
expect_fail "--format torch refuses a .problem buffer without rows/cols in sizes, naming it" \
    "--format torch: buffer 'g' of problem 'pair' has no 2-D shape in sizes" \
    $K export "$SCRATCH/pb-flat" --format torch --out "$SCRATCH/pb-flat-x"

# PyTorch problems (issue 30.5): every module kevo runs exports, with its
# ranks, dtypes and module state; ModelNew subclasses the run's Model.
# The text is checked with any torch (CI's Debian 1.13 describes the
# modules; the op itself needs torch >= 2.4, checked below where a python
# has it, and by tests/cli/torch_versions.sh)
PY=
for c in "${KEVO_PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$c" ] && "$c" -c 'import torch' 2>/dev/null && { PY=$c; break; }
done
if [ -z "$PY" ]; then
    echo "SKIP the torch-problem exports: no python here imports torch (CI installs python3-torch)"
    finish
fi
export KEVO_PYTHON="$PY"
for m in argmax masked_fill center4d linear; do
    mkdir -p "$SCRATCH/mods/$m"
    cp examples/torch/$m/$m.py examples/torch/$m/tests/ok_*.cu "$SCRATCH/mods/$m/"
    $T run --evaluator test --torch-problem "$SCRATCH/mods/$m/$m.py" --seed 3 --generations 1 \
        --islands 1 --population 4 --offspring 4 --runs-dir "$SCRATCH" --name "t-$m" --quiet \
        2>"$SCRATCH/te" || { fail "export setup run ($m)"; cat "$SCRATCH/te"; }
    $K export "$SCRATCH/t-$m" --format kernelbench --out "$SCRATCH/tx-$m" --json >"$SCRATCH/tj" 2>"$SCRATCH/te" ||
        { fail "kevo export --format kernelbench of the torch problem $m"; cat "$SCRATCH/te"; continue; }
    B="$SCRATCH/tx-$m/kevo_$m"
    python3 -c "import ast,sys; [ast.parse(open(f).read()) for f in sys.argv[1:]]" "$B.py" "${B}_kernelbench.py" &&
        cmp -s "${B}_reference.py" "$SCRATCH/t-$m/problem.torch/$m.py" &&
        grep -q '"reference":' "$SCRATCH/tj" && grep -q '^FIXED = {}$' "$B.py" &&
        grep -q '^class ModelNew(_ref.Model):$' "${B}_kernelbench.py" &&
        grep -q '^_ref = _load(BASE + "_reference")$' "${B}_kernelbench.py" &&
        ok "$m: the op and ModelNew parse; the run's module is copied verbatim as kevo_${m}_reference.py" ||
        fail "$m: torch-problem export files"
done
# the tables: each buffer's dtype, dims by size name (rank 0-8), and the
# module attribute it is; the op's schema takes the inputs, then the state
want() { # export, python lines that must all be in kevo_<m>.py
    m=$1; shift
    for l in "$@"; do
        grep -qxF "$l" "$SCRATCH/tx-$m/kevo_$m.py" || { echo "missing in kevo_$m.py: $l"; return 1; }
    done
}
want argmax '    ("x", "in", torch.float32, ("rows", "cols"), ""),' \
    '    ("out", "out", torch.int64, ("rows", ), ""),' \
    'def _impl(x: torch.Tensor) -> torch.Tensor:' &&
    ok "argmax: an int64 output of rank 1" || fail "argmax tables"
want masked_fill '    ("mask", "in", torch.bool, ("n", "m"), ""),' \
    'def _impl(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:' &&
    ok "masked_fill: a bool input" || fail "masked_fill tables"
want center4d '    ("x", "in", torch.float32, ("batch", "channels", "height", "width"), ""),' \
    '    ("weight", "in", torch.float32, ("channels", ), "weight"),' \
    '    ("out", "out", torch.float32, ("batch", "channels", "height", "width"), ""),' &&
    ok "center4d: rank 4 and a parameter as the op's input" || fail "center4d tables"
want linear '    ("fc_weight", "in", torch.float32, ("out_features", "in_features"), "fc.weight"),' \
    '    ("fc_bias", "in", torch.float32, ("out_features", ), "fc.bias"),' \
    'def _impl(x: torch.Tensor, fc_weight: torch.Tensor, fc_bias: torch.Tensor) -> torch.Tensor:' &&
    ok "linear: nn.Linear's weight and bias follow the input, named by module attribute" ||
    fail "linear tables"
# a module constant that is no dim of any input (x.repeat(1, reps)): fixed
# at the run's value, said at export; a product dim (cols*reps) in the table
# (tests/data/export/rep: x.repeat(1, reps))
mkdir -p "$SCRATCH/mods/rep"
cp tests/data/export/rep/rep.py tests/data/export/rep/rep_copy.cu "$SCRATCH/mods/rep/"
$T run --evaluator test --torch-problem "$SCRATCH/mods/rep/rep.py" --seed 3 --generations 2 \
    --islands 1 --population 4 --offspring 4 --runs-dir "$SCRATCH" --name t-rep --quiet \
    2>"$SCRATCH/te" || { fail "export setup run (rep)"; cat "$SCRATCH/te"; }
$K export "$SCRATCH/t-rep" --format torch --out "$SCRATCH/tx-rep" 2>"$SCRATCH/te" &&
    grep -qF "kevo export: size 'reps' is no dimension of any input of the op: it is fixed at the run's reps = 3" "$SCRATCH/te" &&
    want rep 'FIXED = {"reps": 3}' '    ("out", "out", torch.float32, ("rows", (1, 1, ("cols", "reps", ))), ""),' &&
    ok "a size no input has is fixed at the run's value, said at export; a product dim is (num, den, sizes)" ||
    { fail "fixed size (rep)"; cat "$SCRATCH/te"; grep -A6 '^FIXED' "$SCRATCH/tx-rep/kevo_rep.py"; }
# masked_fill in bf16 too: the same kernel's op name (problem, genome) in
# another dtype, which one process cannot take with the fp32 one
$T run --evaluator test --torch-problem "$SCRATCH/mods/masked_fill/masked_fill.py" --dtype bf16 \
    --seed 3 --generations 1 --islands 1 --population 4 --offspring 4 --runs-dir "$SCRATCH" \
    --name t-mf16 --quiet 2>"$SCRATCH/te" &&
    $K export "$SCRATCH/t-mf16" --format torch --out "$SCRATCH/tx-mf16" --quiet 2>"$SCRATCH/te" &&
    grep -qxF '    ("x", "in", torch.bfloat16, ("n", "m"), ""),' "$SCRATCH/tx-mf16/kevo_masked_fill.py" &&
    grep -qxF 'RUN_DTYPE = torch.bfloat16  # floats of the kernel' "$SCRATCH/tx-mf16/kevo_masked_fill.py" &&
    ok "masked_fill in bf16: float buffers in the run dtype, the bool mask kept" ||
    { fail "bf16 torch-problem export"; cat "$SCRATCH/te"; }
# 0-D tensors (tests/data/export/scalar): a scalar input and buffer, a
# scalar and an int64 output
mkdir -p "$SCRATCH/mods/scalar"
cp tests/data/export/scalar/scalar.py tests/data/export/scalar/scalar_serial.cu "$SCRATCH/mods/scalar/"
$T run --evaluator test --torch-problem "$SCRATCH/mods/scalar/scalar.py" --seed 3 --generations 2 \
    --islands 1 --population 4 --offspring 4 --runs-dir "$SCRATCH" --name t-scalar --quiet \
    2>"$SCRATCH/te" || { fail "export setup run (scalar)"; cat "$SCRATCH/te"; }
$K export "$SCRATCH/t-scalar" --format torch --out "$SCRATCH/tx-scalar" --quiet 2>"$SCRATCH/te" &&
    want scalar '    ("s", "in", torch.float32, (), ""),' '    ("bias", "in", torch.float32, (), "bias"),' \
        '    ("out0", "out", torch.float32, (), ""),' '    ("out1", "out", torch.int64, ("n", ), ""),' \
        'def _impl(x: torch.Tensor, s: torch.Tensor, bias: torch.Tensor) -> typing.Tuple[torch.Tensor, torch.Tensor]:' &&
    ok "scalar: 0-D input, buffer and output, and a second int64 output" ||
    { fail "0-D export (scalar)"; cat "$SCRATCH/te"; }
# with torch >= 2.4: the fake gives the module's shapes, int64/bool kept,
# and refuses wrong ranks, dtypes and dims naming them
if "$PY" -c 'import torch, sys; sys.exit(not hasattr(torch.library, "custom_op"))'; then
    "$PY" - "$SCRATCH" >"$SCRATCH/fk" 2>&1 <<'EOF2'
import importlib.util, sys, torch
from torch._subclasses.fake_tensor import FakeTensorMode
d = sys.argv[1]
def load(m):
    s = importlib.util.spec_from_file_location("kevo_" + m, "%s/tx-%s/kevo_%s.py" % (d, m, m))
    x = importlib.util.module_from_spec(s); s.loader.exec_module(x); return x
mode = FakeTensorMode()
def fake(*specs):
    with mode:
        return [torch.empty(sh, dtype=dt, device="cuda") for sh, dt in specs]
def shapes(y):
    return [(tuple(t.shape), t.dtype) for t in (y if isinstance(y, tuple) else (y,))]
def refused(m, args, exc):
    try:
        with mode:
            load(m).op(*args)
    except exc as e:
        return str(e)
    return "accepted"
f32, i64, b = torch.float32, torch.int64, torch.bool
with mode:
    print("argmax", shapes(load("argmax").op(*fake(((5, 7), f32)))))
    print("masked_fill", shapes(load("masked_fill").op(*fake(((5, 7), f32), ((5, 7), b)))))
    print("center4d", shapes(load("center4d").op(*fake(((2, 3, 5, 7), f32), ((3,), f32)))))
    print("linear", shapes(load("linear").op(*fake(((4, 6), f32), ((5, 6), f32), ((5,), f32)))))
    print("rep", shapes(load("rep").op(*fake(((4, 6), f32)))))
    print("scalar", shapes(load("scalar").op(*fake(((4, 6), f32), ((), f32), ((), f32)))))
print(refused("masked_fill", fake(((5, 7), f32), ((5, 7), f32)), TypeError))
print(refused("center4d", fake(((2, 3, 5), f32), ((3,), f32)), ValueError))
print(refused("linear", fake(((4, 6), f32), ((5, 7), f32), ((5,), f32)), ValueError))
print(refused("linear", fake(((4, 6), f32), ((5, 6), f32), ((4,), f32)), ValueError))
print(refused("scalar", fake(((4, 6), f32), ((1,), f32), ((), f32)), ValueError))
s = importlib.util.spec_from_file_location("mf16", "%s/tx-mf16/kevo_masked_fill.py" % d)
try:
    s.loader.exec_module(importlib.util.module_from_spec(s))
    print("the bf16 export imported next to the fp32 one")
except ImportError as e:
    print(str(e).split(" is already")[0], "is already registered ...", str(e).split("(")[-1])
EOF2
    cat >"$SCRATCH/fk.want" <<'EOF2'
argmax [((5,), torch.int64)]
masked_fill [((5, 7), torch.float32)]
center4d [((2, 3, 5, 7), torch.float32)]
linear [((4, 5), torch.float32)]
rep [((4, 18), torch.float32)]
scalar [((), torch.float32), ((4,), torch.int64)]
kevo_masked_fill: mask must be torch.bool (the dtype the kernel was built for), got torch.float32
kevo_center4d: x must be 4-D (batch x channels x height x width), got shape (2, 3, 5)
kevo_linear: fc_weight.shape[1] is 7 but in_features is 6 (from x.shape[1])
kevo_linear: fc_bias.shape[0] is 4 but out_features is 5 (from fc_weight.shape[0])
kevo_scalar: s must be 0-D (a scalar), got shape (1,)
kevo_masked_fill: torch.ops.kevo.masked_fill_HEX is already registered ... fp32); one process takes one of them
EOF2
    grep -v '^E[0-9]\|^ ' "$SCRATCH/fk" | sed 's/masked_fill_[0-9a-f]* is/masked_fill_HEX is/' |
        cmp -s - "$SCRATCH/fk.want" &&
        ok "torch $("$PY" -c 'import torch; print(torch.__version__)'): the fake op gives the module's shapes and dtypes (int64, rank 0-4, a FIXED size) and names what it refuses; a bf16 export of the fp32 op's kernel is refused in its process" ||
        { fail "the fake op of torch-problem exports (or the dtype clash)"; diff "$SCRATCH/fk.want" "$SCRATCH/fk"; }
else
    echo "skip the fake-op checks: $PY has torch < 2.4 (tests/cli/torch_versions.sh covers newer ones with KEVO_TORCH_PYTHON)"
fi
finish
