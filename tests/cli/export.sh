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
[ "$(grep -c 'l\[1\].pdl = 1;' "$O/kevo_gemm.c")" = 1 ] && grep -q 'l\[0\].pdl = 0;' "$O/kevo_gemm.c" \
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
    && grep -q 'void \*args\[\] = {&A, &B, &C, &M, &N, &K, &ws, &ia\[0\]};' "$O/kevo_gemm.c" \
    && grep -q "int argument group_m = GROUP_M ($g here)" "$O/kevo_gemm.cu" \
    && cc -std=c11 -Wall -Wextra -Werror -I"$O" -I$CUDA/include "$SCRATCH/main.c" "$O/kevo_gemm.c" \
        -L$CUDA/lib64/stubs -lcuda -o "$SCRATCH/m" \
    && ok "args: the C launcher computes the int arg (GROUP_M = $g) and passes it after ws" \
    || fail "args in the export: got '$got', GROUP_M '$g'"

expect_fail "export of a missing run names the path" "'$SCRATCH/nope' is not a kevo run directory" \
    $K export "$SCRATCH/nope"
expect_fail "export with an unknown format says so" "unknown format 'rust'" $K export "$R" --format rust
mkdir -p "$SCRATCH/nowin"; cp -r "$R/manifest.json" "$R/templates" "$SCRATCH/nowin/"; : >"$SCRATCH/nowin/journal.jsonl"
expect_fail "export of a run without a winner says so" "has no winner" $K export "$SCRATCH/nowin"
finish
