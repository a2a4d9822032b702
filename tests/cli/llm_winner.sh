# A run whose winner is an LLM-born template (the loopback test server
# answers with a split softmax: two launches and a workspace, which the
# test evaluator scores 1000x) leaves the run like any other: kevo report,
# kevo leaderboard and kevo export --format cu|c|torch all work; the
# exports carry every launch of the template and its workspace (the C
# launcher allocates it when the caller passes none; the torch op
# allocates it per call); the template is found in llm/templates/, or
# rebuilt from the recorded answer when that copy is gone or edited; a
# run where neither is left fails with both reasons. kevo verify finds the
# template too (and then stops for want of a GPU). A TMA template
# (hgemm_wgmma) exports to C and torch with its tensor maps encoded (the
# torch op calls the C launcher, built as a library); tests/gpu/
# export_torch.sh runs them under torch.
. tests/cli/lib.inc
K="$KEVO"
CUDA=/usr/local/cuda
NVCC=$CUDA/bin/nvcc
. tests/cli/llm.inc
llm_winner_run w
R="$SCRATCH/w"
tpl=$(sed -n 's/.*"template":[[:space:]]*"\(llm_[0-9a-f]*\)".*/\1/p' "$R/best.json")
[ -n "$tpl" ] && [ -s "$R/llm/templates/$tpl.cu" ] &&
    grep -q '^// kevo: launch softmax_split_stats' "$R/llm/templates/$tpl.cu" &&
    ok "the winner is the LLM-born split template $tpl (two launches, a workspace)" ||
    { fail "the LLM template did not win"; cat "$R/best.json"; }

# report and leaderboard
$K report "$R" --quiet >"$SCRATCH/rep.out" 2>"$SCRATCH/rep.err" &&
    grep -q "$tpl" "$R/report/report.md" &&
    ok "kevo report of a run whose winner is an LLM template" ||
    { fail "kevo report"; cat "$SCRATCH/rep.err"; }
$K leaderboard "$R" --quiet >"$SCRATCH/lb.out" 2>"$SCRATCH/lb.err" &&
    grep -q "^| 1 | w | $tpl | THREADS=" "$SCRATCH/lb.out" &&
    ok "kevo leaderboard ranks it with its parameters" ||
    { fail "kevo leaderboard"; cat "$SCRATCH/lb.out" "$SCRATCH/lb.err"; }

# exports
for fmt in cu c torch; do
    $K export "$R" --format $fmt --out "$SCRATCH/x" --quiet 2>"$SCRATCH/x.err" ||
        { fail "kevo export --format $fmt"; cat "$SCRATCH/x.err"; }
done
X="$SCRATCH/x/kevo_softmax"
h=$(sed -n 's/.*"hash":[[:space:]]*"\([0-9a-f]*\)".*/\1/p' "$R/best.json")
sh_=$(grep "\"hash\":\"$h\"" "$R/journal.jsonl" | head -1 | sed 's/.*"source":"\([0-9a-f]*\)".*/\1/')
n=$(wc -c <"$R/sources/$sh_.cu")
tail -c "$n" "$X.cu" | cmp -s - "$R/sources/$sh_.cu" &&
    grep -q "^ \*   softmax_split_stats<<<" "$X.cu" && grep -q "^ \*   softmax_split_write<<<" "$X.cu" &&
    ok "export --format cu: the run's exact source, both launches in the plan comment" ||
    fail "export .cu of the LLM winner"
grep -q '^#define N_LAUNCH 2$' "$X.c" &&
    grep -q '"softmax_split_stats", "softmax_split_write"' "$X.c" &&
    grep -q 'cuMemAlloc(&own_ws' "$X.c" && grep -q 'ws = own_ws;' "$X.c" &&
    ok "export --format c: both kernels launched in order, the workspace allocated by the launcher" ||
    fail "C launcher of the LLM winner"
cat >"$SCRATCH/main.c" <<'C'
#include "kevo_softmax.h"
int main(void) { return kevo_softmax_load("kevo_softmax.cubin") != CUDA_SUCCESS; }
C
cc -std=c11 -Wall -Wextra -Werror -I"$SCRATCH/x" -I$CUDA/include "$SCRATCH/main.c" "$X.c" \
    -L$CUDA/lib64/stubs -lcuda -o "$SCRATCH/m" 2>"$SCRATCH/ce" &&
    [ "$(head -c 4 "$X.cubin" | od -An -c | tr -d ' ')" = "177ELF" ] &&
    ok "the C launcher compiles with -Werror and links; the cubin is an ELF" ||
    { fail "C launcher build"; head "$SCRATCH/ce"; }
# the exported plan's workspace equals kevo's at the run's shape
want=$(sed -n 's/^ \*   workspace: \([0-9]*\) bytes.*/\1/p' "$X.cu" | head -1)
{ sed -n '/^#define /p' "$X.c"; sed -n '/^struct kevo_softmax_dims/,/^#pragma pop_macro("align")/p' "$X.c"
  cat <<'C'
#include <stdio.h>
int main(void) {
    struct kevo_softmax_dims l[2]; unsigned long long ws = 0; const char *why = "";
    if (kevo_softmax_plan_(512, 1000, 132, 232448, 52428800, l, &ws, &why)) { puts(why); return 1; }
    printf("%llu %u %u\n", ws, l[0].grid[0], l[1].grid[0]);
    return 0;
}
C
} >"$SCRATCH/plan.c"
cc -std=c11 -w "$SCRATCH/plan.c" -o "$SCRATCH/plan" && got=$("$SCRATCH/plan")
[ -n "$want" ] && [ "$want" -gt 0 ] && [ "${got%% *}" = "$want" ] &&
    ok "the exported plan sizes the workspace as kevo does ($want bytes; grids ${got#* })" ||
    fail "exported workspace: got '$got' want '$want'"
python3 -c "import ast,sys; ast.parse(open(sys.argv[1]).read())" "$X.py" &&
    grep -q "^TEMPLATE = \"$tpl\"" "$X.py" &&
    grep -q 'kernel_names\[N_LAUNCH\] = {"softmax_split_stats", "softmax_split_write"}' "$X.c" &&
    nm -D --defined-only "$SCRATCH/x/libkevo_softmax.so" | grep -q " T kevo_softmax_workspace_bytes$" &&
    ok "export --format torch: the op's launcher library runs both launches with a workspace sized by the plan" ||
    fail "torch export of the LLM winner"

# where the template comes from
cp -r "$R" "$SCRATCH/gone"; rm -rf "$SCRATCH/gone/export" "$SCRATCH/gone/llm/templates"
cp -r "$R" "$SCRATCH/edit"; echo "// edited" >>"$SCRATCH/edit/llm/templates/$tpl.cu"
for d in gone edit; do
    $K export "$SCRATCH/$d" --out "$SCRATCH/x-$d" --quiet 2>"$SCRATCH/e" &&
        cmp -s "$SCRATCH/x-$d/kevo_softmax.cu" "$X.cu" ||
        { fail "export with llm/templates $d"; cat "$SCRATCH/e"; }
done
ok "without llm/templates/$tpl.cu, or with it edited, the template is rebuilt from its recorded answer"
rm -f "$SCRATCH"/gone/llm/[0-9a-f]*.json
expect_fail "with neither the copy nor the answer, the error names both" \
    "best kernel's template '$tpl' is neither in '$SCRATCH/gone/templates/softmax/' nor among the run's LLM templates" \
    $K report "$SCRATCH/gone"
grep -q "llm/templates/$tpl.cu' is missing, and its answer '$SCRATCH/gone/llm/[0-9a-f]*.json' cannot be read" "$SCRATCH/err" &&
    ok "... and says why each source failed" || { fail "reasons"; cat "$SCRATCH/err"; }
if [ ! -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ] && ! ldconfig -p | grep -q libcuda.so.1; then
    expect_fail "kevo verify finds the LLM template (and stops for want of a GPU)" "no NVIDIA driver" \
        $K verify "$R"
fi

# a TMA template: C and torch exports encode its tensor maps
$T run --evaluator test --problem gemm --dtype bf16 --shape 512x256x320 --seed 3 --generations 1 \
    --template hgemm_wgmma --runs-dir "$SCRATCH" --name tma --quiet || fail "TMA setup run"
$K export "$SCRATCH/tma" --format all --out "$SCRATCH/xt" --quiet 2>"$SCRATCH/te" ||
    { fail "export of a TMA template"; cat "$SCRATCH/te"; }
XT="$SCRATCH/xt/kevo_gemm"
# as many maps as the winning point uses (A and B; C too with EPI=1)
ntm=$(grep -c 'cuTensorMapEncodeTiled(&tm\[' "$XT.c")
[ "$ntm" -ge 2 ] && grep -q '&ws, &tm\[0\], &tm\[1\]' "$XT.c" &&
    grep -q 'CU_TENSOR_MAP_SWIZZLE_128B' "$XT.c" && grep -q 'CU_TENSOR_MAP_DATA_TYPE_BFLOAT16' "$XT.c" &&
    nm -D --defined-only "$SCRATCH/xt/libkevo_gemm.so" | grep -q " T kevo_gemm_launch$" &&
    ok "a TMA template exports to C and torch (the op's library is that launcher), each tensor map encoded and passed after ws" ||
    fail "TMA export content"
cat >"$SCRATCH/mt.c" <<'C'
#include "kevo_gemm.h"
int main(void) { return kevo_gemm_load("kevo_gemm.cubin") != CUDA_SUCCESS; }
C
cc -std=c11 -Wall -Wextra -Werror -I"$SCRATCH/xt" -I$CUDA/include "$SCRATCH/mt.c" "$XT.c" \
    -L$CUDA/lib64/stubs -lcuda -o "$SCRATCH/mt" 2>"$SCRATCH/ce" &&
    ok "the TMA C launcher compiles with -Werror and links" || { fail "TMA C launcher"; head "$SCRATCH/ce"; }
finish
