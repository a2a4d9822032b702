# kevo export of a run whose strings are hostile (issue 29.8): a run name
# and a GPU name that try to end the Python docstring, the C comment or a
# string literal come out as text (the torch op's .py holds them in
# comment lines only, the .c/.h/.cu compile), buffers named like the launcher's own
# variables (stream, sms, own_ws) export to launchers that compile, and a
# .problem naming a buffer or size with a keyword, ws, elem_t or the
# reserved kevo_ prefix is refused with file:line. (The torch export of a
# .problem needs 2-D buffers: sms is a ROWS x COLS matrix here.)
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
# the run and GPU names reach the .py only as comment lines: no call in
# its code mentions them, and every line that holds them is a comment
python3 - "$B.py" "${B}_kernelbench.py" <<'PY' 2>"$SCRATCH/py.err"
import ast, sys
for path in sys.argv[1:]:
    text = open(path).read()
    tree = ast.parse(text)
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and "PWNED" in ast.dump(n):
            raise SystemExit("%s: a call carries the hostile text" % path)
    for line in text.splitlines():
        if "PWNED" in line and not line.startswith("# "):
            raise SystemExit("%s: hostile text outside a comment: %r" % (path, line))
assert "PWNED" in open(sys.argv[1]).read(), "the names are not in the about block"
PY
[ $? = 0 ] && [ ! -e "$O/PWNED" ] && [ ! -e "$O/PWNED2" ] && [ ! -e PWNED ] && [ ! -e PWNED2 ] \
    && ok "the .py parses; the run and GPU names stay in its comment lines, no code carries them" \
    || { fail "the .py of a hostile run"; cat "$SCRATCH/py.err"; }
cat >"$SCRATCH/main.c" <<C
#include "kevo_scale.h"
int main(void) { return kevo_scale_load("kevo_scale.cubin") != CUDA_SUCCESS; }
C
cc -std=c11 -Wall -Wextra -Werror -I"$O" -I$CUDA/include "$SCRATCH/main.c" "$B.c" \
    -L$CUDA/lib64/stubs -lcuda -o "$SCRATCH/m" 2>"$SCRATCH/ce" \
    && ok "the C launcher of buffers named stream/sms/own_ws compiles; the GPU name stays in its comment" \
    || { fail "C launcher of the hostile run"; head "$SCRATCH/ce"; }
# the torch op takes the buffers under their names, and its library is
# the launcher above
grep -q '^def _impl(stream: torch.Tensor, sms: torch.Tensor) -> torch.Tensor:' "$B.py" \
    && nm -D --defined-only "$O/libkevo_scale.so" | grep -q " T kevo_scale_launch$" \
    && ok "the torch op of buffers named stream/sms/own_ws takes them by name; its library is the launcher" \
    || fail "torch op of the hostile run"
# the launch passes the caller's buffers, not the launcher's own state
grep -q 'void \*kevo_args\[\] = {&stream, &sms, &own_ws, &ROWS, &COLS, &kevo_ws};' "$B.c" \
    && grep -q 'kevo_sms, kevo_smem_optin, kevo_l2_bytes, kevo_l, &kevo_ws_bytes' "$B.c" \
    && ok "the launcher's own names carry the kevo_ prefix" || fail "launcher names"
if [ -x "$NVCC" ]; then
    $NVCC -c -arch=sm_90a -std=c++17 -x cu "$B.cu" -o "$SCRATCH/k.o" 2>"$SCRATCH/ne" \
        && ok "the .cu with the hostile GPU name in its comment compiles" \
        || { fail "nvcc .cu"; head "$SCRATCH/ne"; }

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
