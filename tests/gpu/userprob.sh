#!/bin/sh
# tests/gpu/userprob.sh - user-defined problems on the GPU (part of `make
# gpu-test`; KEVO = the kevo binary). For every examples/problems/<p>/ (and
# tests/gpu/userprob/<p>/: axpy, an in-place buffer) with
# a <p>.problem and a tests/shapes file (lines "DTYPE SHAPE"): at each of
# those shapes, every template next to the file at its default point must
# be `ok`, and every tests/*.cu must get the verdict of its first line
# ("// expect: ok|wrong|cheat|..."). Then the reference rules, on the scale
# example: a reference that does not compile, faults, writes NaN, or
# differs between two runs stops `kevo eval` before any candidate with a
# message naming the problem file. Logs go to $OUT (if set) or a temporary
# directory; prints a summary; exits 1 if an expectation fails.
set -u
KEVO=${KEVO:?set KEVO to the kevo binary}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOG=${OUT:-$(mktemp -d /tmp/kevo-gpu-userprob.XXXXXX)}
mkdir -p "$LOG"
SEED=${SEED:-12345}
TABLE="$LOG/userprob-summary.txt"
ROW_W=52
. "$(dirname "$0")/lib.inc"

for pf in "$ROOT"/examples/problems/*/*.problem "$ROOT"/tests/gpu/userprob/*/*.problem; do
    [ -f "$pf" ] || continue
    dir=$(dirname "$pf")
    p=$(basename "$pf" .problem)
    [ -f "$dir/tests/shapes" ] || { echo "$p: no tests/shapes, skipped"; continue; }
    while read -r dt shape; do
        [ -n "$dt" ] || continue
        files=$(ls "$dir"/*.cu "$dir"/tests/*.cu 2>/dev/null)
        log="$LOG/$p-$dt-$shape.log"
        # one worker for all files (a crash or cheat must not stop the rest)
        # shellcheck disable=SC2086
        "$KEVO" eval $files --problem-file "$pf" --dtype "$dt" --shape "$shape" \
            --seed "$SEED" >"$log" 2>&1
        for f in $files; do
            want=$(sed -n '1s|^// *expect: *\([a-z_]*\).*|\1|p' "$f")
            [ -n "$want" ] || want=ok # a template at its default point
            got=$(verdict_of "$f" "$log")
            row "$p/$(basename "$f") $dt $shape" "$want" "${got:-none}"
        done
        sed 's/^/    /' "$log"
    done <"$dir/tests/shapes"
done

# the reference rules: variants of the scale example's reference
S="$ROOT/examples/problems/scale"
if [ -f "$S/scale.problem" ]; then
    refcase() { # name, sed expression on the reference line, expected text
        mkdir -p "$LOG/ref-$1"
        sed "$2" "$S/scale.problem" >"$LOG/ref-$1/scale.problem"
        "$KEVO" eval "$S/tests/ok_simple.cu" --problem-file "$LOG/ref-$1/scale.problem" \
            --dtype fp32 --shape 1000x999 --seed "$SEED" >"$LOG/ref-$1.log" 2>&1
        rc=$?
        got=refused
        [ $rc -ne 0 ] && grep -qF -- "$3" "$LOG/ref-$1.log" || got="rc=$rc, no '$3'"
        row "reference $1" refused "$got"
        sed 's/^/    /' "$LOG/ref-$1.log" | head -6
    }
    R='s|^        y\[i\] = x\[i\] \* g\[i % COLS\];$|'
    refcase compile "${R}        y[i] = x[i] * h[i % COLS];|" "ref-compile/scale.problem(31): error"
    refcase nan "${R}        y[i] = i == 77 ? 0.0 / 0.0 : x[i] * g[i % COLS];|" \
        "the reference wrote NaN or Inf"
    refcase nondet "${R}        y[i] = x[i] * g[i % COLS] + (double)(clock64() \& 1);|" \
        "the reference disagrees with itself"
    refcase fault "${R}        y[i + (1LL << 40)] = x[i] * g[i % COLS];|" \
        "the reference kevo_reference failed to run"
fi

echo
echo "== user problems: summary"
cat "$TABLE"
echo "$pass passed, $fail failed (logs in $LOG)"
[ "$fail" -eq 0 ]
