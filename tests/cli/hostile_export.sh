# kevo export of a run whose strings are hostile (issue 29.8): a run name
# and a GPU name that try to end the Python docstring, the C comment or a
# string literal come out as text (the .py imports without running
# anything, the .c/.h/.cu compile), buffers named like the launcher's own
# variables (stream, sms, own_ws) export to launchers that compile, and a
# .problem naming a buffer or size with a keyword, ws, elem_t or the
# reserved kevo_ prefix is refused with file:line. (The torch export
# needs 2-D buffers: sms is a ROWS x COLS matrix here.)
. tests/cli/lib.inc
K="$KEVO"
CUDA=/usr/local/cuda
NVCC=$CUDA/bin/nvcc
P="$SCRATCH/p"
mkdir -p "$P"
sed -e 's/^buffer x in/buffer stream in/' \
    -e 's/^buffer g in elem COLS/buffer sms in elem ROWS*COLS rows=ROWS/' \
    -e 's/^buffer y out/buffer own_ws out/' \
    examples/problems/scale/scale.problem >"$P/scale.problem"
cp examples/problems/scale/scale_vec.cu "$P/"
NAME='x"""; __import__("os").system("touch PWNED") #'
$T run --evaluator test --problem-file "$P/scale.problem" --dtype fp32 --shape 300x200 \
    --generations 2 --runs-dir "$SCRATCH" --name "$NAME" --quiet || fail "hostile export setup run"
R="$SCRATCH/$NAME"
# the GPU name a manifest carries ends comments, strings and docstrings
python3 - "$R/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["environment"]["device"] = {"name": 'H100 */ #error comment escaped\n"""; import os; os.system("touch PWNED2") #\\ \x1b[31m ??/'}
json.dump(m, open(sys.argv[1], "w"))
PY
O="$SCRATCH/xo"
$K export "$R" --format all --out "$O" --quiet 2>"$SCRATCH/err" || { fail "export of the hostile run"; cat "$SCRATCH/err"; }
B="$O/kevo_scale"
(cd "$O" && python3 -c 'import ast, sys; sys.path.insert(0, "."); ast.parse(open("kevo_scale.py").read())' \
    && python3 -c 'import sys, types; sys.modules["torch"] = types.ModuleType("torch"); t = sys.modules["torch"]; t.float32 = 0
u = types.ModuleType("torch.utils"); c = types.ModuleType("torch.utils.cpp_extension"); c.load_inline = None
sys.modules["torch.utils"] = u; sys.modules["torch.utils.cpp_extension"] = c
sys.path.insert(0, "."); import kevo_scale; assert "PWNED" in kevo_scale.__doc__') 2>"$SCRATCH/py.err"
[ $? = 0 ] && [ ! -e "$O/PWNED" ] && [ ! -e "$O/PWNED2" ] && [ ! -e PWNED ] && [ ! -e PWNED2 ] \
    && ok "the .py parses and imports; the run and GPU names stay in its docstring" \
    || { fail "the .py of a hostile run"; cat "$SCRATCH/py.err"; }
cat >"$SCRATCH/main.c" <<C
#include "kevo_scale.h"
int main(void) { return kevo_scale_load("kevo_scale.cubin") != CUDA_SUCCESS; }
C
cc -std=c11 -Wall -Wextra -Werror -I"$O" -I$CUDA/include "$SCRATCH/main.c" "$B.c" \
    -L$CUDA/lib64/stubs -lcuda -o "$SCRATCH/m" 2>"$SCRATCH/ce" \
    && ok "the C launcher of buffers named stream/sms/own_ws compiles; the GPU name stays in its comment" \
    || { fail "C launcher of the hostile run"; head "$SCRATCH/ce"; }
# the launch passes the caller's buffers, not the launcher's own state
grep -q 'void \*kevo_args\[\] = {&stream, &sms, &own_ws, &ROWS, &COLS, &kevo_ws};' "$B.c" \
    && grep -q 'kevo_sms, kevo_smem_optin, kevo_l2_bytes, kevo_l, &kevo_ws_bytes' "$B.c" \
    && ok "the launcher's own names carry the kevo_ prefix" || fail "launcher names"
if [ -x "$NVCC" ]; then
    $NVCC -c -arch=sm_90a -std=c++17 -x cu "$B.cu" -o "$SCRATCH/k.o" 2>"$SCRATCH/ne" \
        && ok "the .cu with the hostile GPU name in its comment compiles" \
        || { fail "nvcc .cu"; head "$SCRATCH/ne"; }
    python3 -c "import re, sys; print(re.search(r\"CUDA_SRC = r'''(.*?)'''\", open(sys.argv[1]).read(), re.S).group(1))" \
        "$B.py" >"$SCRATCH/t.cu" \
        && $NVCC -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Itests/data/torch-stub \
            -c "$SCRATCH/t.cu" -o "$SCRATCH/t.o" 2>"$SCRATCH/te" \
        && ok "the torch wrapper of buffers named stream/sms/own_ws compiles" \
        || { fail "torch wrapper of the hostile run"; grep -m5 error "$SCRATCH/te"; }
else
    echo "skip nvcc checks: $NVCC not found"
fi

# names no kernel or launcher can take are refused where they are written
for bad in ws elem_t int class kevo_x KEVO_Y __x _Z threadIdx; do
    sed "s/^buffer g in/buffer $bad in/" examples/problems/scale/scale.problem >"$SCRATCH/bad.problem"
    expect_fail "buffer named '$bad' is refused with file:line" "$SCRATCH/bad.problem:14: buffer name '$bad'" \
        $T run --evaluator test --problem-file "$SCRATCH/bad.problem" --shape 8x8 --runs-dir "$SCRATCH/runs"
done
sed "s/^sizes ROWS COLS/sizes ROWS KEVO_COLS/; s/COLS/KEVO_COLS/g; s/KEVO_KEVO_/KEVO_/g" \
    examples/problems/scale/scale.problem >"$SCRATCH/bad.problem"
expect_fail "size named KEVO_COLS is refused with file:line" "$SCRATCH/bad.problem:11: size name 'KEVO_COLS'" \
    $T run --evaluator test --problem-file "$SCRATCH/bad.problem" --shape 8x8 --runs-dir "$SCRATCH/runs"
sed "s/^sizes ROWS COLS/sizes ROWS NULL/; s/COLS/NULL/g" \
    examples/problems/scale/scale.problem >"$SCRATCH/bad.problem"
expect_fail "size named NULL is refused with file:line" "$SCRATCH/bad.problem:11: size name 'NULL'" \
    $T run --evaluator test --problem-file "$SCRATCH/bad.problem" --shape 8x8 --runs-dir "$SCRATCH/runs"
# --arch reaches NVRTC, comments and Python strings: only sm_<digits>[a-z]
expect_fail "an --arch that is not sm_<digits>[letter] is refused" "expected sm_<digits>" \
    $K export "$R" --arch 'sm_90"; import os' --out "$SCRATCH/xo2"
finish
