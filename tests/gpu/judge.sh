#!/bin/sh
# tests/gpu/judge.sh - issue 29 on the device (items 1, 2, 3): the judge
# decides from compiled code, candidates read no host file, and the
# sanitizer pass finds what guard bands cannot.
#  1. `kevo eval` of the adversarial kernels that hide the global timer in a
#     split string literal and the device heap behind token pasting (the
#     heap memoizer): compile_error with "policy: the compiled code ..."; a
#     softmax whose comments name malloc and %globaltimer: ok.
#  2. An include of /proc/self/environ through a macro: compile_error, and
#     a secret put in the environment appears nowhere in kevo's output.
#  3. Two one-template runs (tests/gpu/judge/softmax/): the softmax that
#     reads one element past each row (past x on the last row) and the same
#     without that read. Both are ok in the run; `kevo verify --sanitize`
#     must report the first (exit 1, memcheck "Invalid __global__ read")
#     and pass the second (exit 0, clean); kevo export refuses the first.
# Needs compute-sanitizer ($CUDA_HOME/bin or PATH). KEVO = the kevo
# binary; logs go to $OUT if set. Prints a summary; exits 1 on a failure.
set -u
KEVO=${KEVO:?set KEVO to the kevo binary}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOG=${OUT:-$(mktemp -d /tmp/kevo-judge.XXXXXX)}
mkdir -p "$LOG"
TABLE="$LOG/summary.txt"
ROW_W=56
SEED=${SEED:-2929}
SHAPE=1024x1000
. "$(dirname "$0")/lib.inc"
A="$ROOT/tests/gpu/adversarial"

echo "== compiled-code rules"
for c in "globaltimer_split compile_error policy: the compiled code reads the global timer" \
         "heap_memo compile_error policy: the compiled code allocates on the device heap"; do
    set -- $c
    f=$1 want=$2
    shift 2
    "$KEVO" eval "$A/$f.cu" --shape "softmax=$SHAPE" --seed "$SEED" \
        >"$LOG/$f.log" 2>&1
    got=$(verdict_of "$A/$f.cu" "$LOG/$f.log")
    grep -qF "$*" "$LOG/$f.log" || got="$got (detail lacks '$*')"
    row "$f.cu" "$want" "${got:-none}"
    grep -F "$f.cu:" "$LOG/$f.log"
done
f="$ROOT/tests/gpu/harness/softmax_comment_words.cu"
"$KEVO" eval "$f" --shape "softmax=$SHAPE" --seed "$SEED" >"$LOG/words.log" 2>&1
row "comments naming malloc, %globaltimer" ok "$(verdict_of "$f" "$LOG/words.log")"

echo "== includes"
SECRET=kevo-judge-secret-$$-7c1e
KEVO_JUDGE_SECRET=$SECRET "$KEVO" eval "$A/include_environ.cu" \
    --shape "softmax=$SHAPE" --seed "$SEED" -v >"$LOG/include.log" 2>&1
row "#include of /proc/self/environ (macro)" compile_error \
    "$(verdict_of "$A/include_environ.cu" "$LOG/include.log")"
grep -F "include_environ.cu:" "$LOG/include.log"
if grep -qF "$SECRET" "$LOG/include.log"; then
    row "... the environment is not in the output" absent present
else
    row "... the environment is not in the output" absent absent
fi

echo "== sanitizer pass (kevo verify --sanitize)"
for t in softmax_oobread softmax_inbounds; do
    "$KEVO" run --problem softmax --shape "$SHAPE" --seed "$SEED" \
        --templates-dir "$ROOT/tests/gpu/judge" --template "$t" --evals 2 \
        --runs-dir "$LOG/runs" --name "$t" --quiet >"$LOG/run-$t.log" 2>&1
    [ -s "$LOG/runs/$t/best.json" ] && got=yes || { got=no; cat "$LOG/run-$t.log"; }
    row "run of $t: an ok winner" yes "$got"
    "$KEVO" verify --sanitize "$LOG/runs/$t" >"$LOG/san-$t.log" 2>&1
    echo "$t: exit $?" >>"$LOG/san-$t.log"
    cat "$LOG/san-$t.log"
done
got=$(tail -1 "$LOG/san-softmax_oobread.log")
grep -q "memcheck: findings: Invalid __global__ read" "$LOG/san-softmax_oobread.log" ||
    got="$got (no memcheck read finding)"
row "out-of-bounds read: memcheck finding, exit 1" "softmax_oobread: exit 1" "$got"
got=$(tail -1 "$LOG/san-softmax_inbounds.log")
grep -q "^sanitizer: clean" "$LOG/san-softmax_inbounds.log" || got="$got (not clean)"
row "in-bounds softmax: clean, exit 0" "softmax_inbounds: exit 0" "$got"
"$KEVO" export "$LOG/runs/softmax_oobread" --out "$LOG/x" >"$LOG/export.log" 2>&1
row "kevo export refuses the finding" 1 "$?"
cat "$LOG/export.log"

echo
cat "$TABLE"
echo "$pass passed, $fail failed (logs in $LOG)"
[ "$fail" -eq 0 ]
