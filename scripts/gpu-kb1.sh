#!/bin/sh
# scripts/gpu-kb1.sh - KernelBench level-1 files through kevo, unchanged, on
# the GPU machine (issue 30: "every KernelBench level-1 file you try runs
# unchanged"). For each FILE.py in KB_DIR, several at a time, each under a
# timeout: the helper's describe (sizes, ABI), then MODE:
#   bench     kevo bench --torch-problem FILE (loads the module, the fp64
#             reference twice, calibrates the tolerance, times torch eager;
#             no candidate), the default once `kevo bench --help` names
#             --torch-problem;
#   eval      until then: kevo eval --torch-problem FILE of a kernel that
#             does nothing (its signature made from the describe JSON):
#             the worker loads the module, runs the fp64 reference twice,
#             calibrates and times eager before the kernel (graded wrong);
# and one markdown table: file | sizes | ABI ok | reference ok | tolerance |
# eager | error, on stdout and in $OUT/kb1.md; every log in $OUT/logs/.
#
#   KEVO=build/kevo KB_DIR=.dev-kb/level1 OUT=/tmp/kb1 JOBS=3 \
#       TIMEOUT_S=600 MODE=bench scripts/gpu-kb1.sh
#
# KernelBench's files are not part of kevo: fetch them into KB_DIR first
# (the results name the files and the KernelBench commit).
set -u
KEVO=${KEVO:?set KEVO to the kevo binary}
KB_DIR=${KB_DIR:-.dev-kb/level1}
OUT=${OUT:-$(mktemp -d /tmp/kevo-kb1.XXXXXX)}
JOBS=${JOBS:-3}          # files at once: each holds inputs + fp64 copies
TIMEOUT_S=${TIMEOUT_S:-600}
PY=${KEVO_PYTHON:-python3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export KEVO_TORCH_COMPILE=off KEVO KB_DIR OUT JOBS TIMEOUT_S

# A kernel that does nothing, with the signature the describe JSON gives.
null_kernel() { # json, problem name, out.cu
    "$PY" - "$1" "$2" >"$3" <<'EOF_PY'
import json, sys
j = json.load(open(sys.argv[1]))
ct = {"float": "elem_t", "int32": "int", "int64": "long long", "bool": "bool"}
args = ["%s%s *%s" % ("const " if b["role"] == "in" else "", ct[b["dtype"]],
                      b["name"]) for b in j["buffers"]]
args += ["int %s" % k for k, _ in j["sizes"]] + ["void *ws"]
print("// kevo: problem %s\n// kevo: dtypes fp32\n// kevo: launch kb_null\n"
      "// kevo: grid 1\n// kevo: block 32\n"
      'extern "C" __global__ void kb_null(%s) {}' % (sys.argv[2], ", ".join(args)))
EOF_PY
}

# One file: $OUT/logs/<stem>.{json,describe,log,row}.
one() {
    f=$1
    s=$(basename "$f" .py)
    L="$OUT/logs/$s"
    timeout "$TIMEOUT_S" "$PY" "$ROOT/fitness/torchprob_helper.py" describe \
        "$f" "$(basename "$f")" "$L.json" >"$L.describe" 2>&1
    sizes=$("$PY" -c 'import json,sys
j = json.load(open(sys.argv[1]))
print(" ".join("%s=%s" % (k, v) for k, v in j.get("sizes", [])) or "-")' \
        "$L.json" 2>/dev/null)
    abi=no
    grep -q '"buffers"' "$L.json" 2>/dev/null && abi=yes
    if [ "$MODE" = bench ]; then
        timeout "$TIMEOUT_S" "$KEVO" bench --torch-problem "$f" >"$L.log" 2>&1
    elif [ $abi = yes ]; then
        name=$(echo "$s" | tr -c 'A-Za-z0-9_\n' _ | sed 's/^[0-9]/kb&/' | cut -c1-31)
        : >"$L.log"
        null_kernel "$L.json" "$name" "$L.cu" 2>>"$L.log" &&
            timeout "$TIMEOUT_S" "$KEVO" eval "$L.cu" --torch-problem "$f" \
                --seed 1 >"$L.log" 2>&1
    else
        cp "$L.json" "$L.log" 2>/dev/null || : >"$L.log"
    fi
    rc=$?
    grep -q "cannot describe\|the torch helper's description" "$L.log" && abi=no
    ref=-
    tol=$(sed -n 's/.*tolerance atol=\([^ ]*\) rtol=\([^ ]*\).*/atol \1, rtol \2/p' "$L.log" | head -1)
    [ -n "$tol" ] && ref=yes
    grep -q "disagrees with itself\|not finite" "$L.log" && ref=no
    eager=$(grep -io 'eager[^0-9]*[0-9.]* *[mun]*s' "$L.log" | head -1 |
            sed 's/^[^0-9]*//')
    err=$(grep -i "error\|cannot\|refused\|kevo [a-z]*: " "$L.log" |
          grep -v "tolerance\|kb_null" | tail -1 | cut -c1-160 | tr '|' '/')
    [ $rc -eq 124 ] && err="timed out after $TIMEOUT_S s"
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$s" "${sizes:--}" \
        "$abi" "$ref" "${tol:--}" "${eager:--}" "${err:--}" >"$L.row"
}

case ${MODE:-} in
"") if "$KEVO" bench --help 2>&1 | grep -q -- --torch-problem; then
        MODE=bench
    else
        MODE=eval
    fi ;;
esac
export MODE
if [ "${1:-}" = --one ]; then
    one "$2"
    exit 0
fi
mkdir -p "$OUT/logs"
ls "$KB_DIR"/*.py >/dev/null 2>&1 || { echo "no .py files in '$KB_DIR'" >&2; exit 1; }
start=$(date +%s)
ls "$KB_DIR"/*.py | xargs -P "$JOBS" -n 1 sh "$0" --one
{
    echo "KernelBench level 1 through kevo ($MODE, KEVO_TORCH_COMPILE=off," \
         "$JOBS at once, ${TIMEOUT_S} s each; $(date -u +%F); $(($(date +%s) - start)) s)"
    echo
    echo "| file | sizes | ABI ok | reference ok | tolerance | eager | error |"
    echo "| --- | --- | --- | --- | --- | --- | --- |"
    for r in "$OUT"/logs/*.row; do cat "$r"; done | sort -t_ -k1,1n
} | tee "$OUT/kb1.md"
echo "logs: $OUT/logs"
