#!/bin/sh
# tests/gpu/run.sh - the GPU suite (`make gpu-test`), run on a machine with
# an NVIDIA GPU and KEVO set to the kevo binary. It runs `kevo doctor`;
# `kevo eval` on every kernel with a "// expect: <verdict>" first line
# (tests/gpu/adversarial/*.cu, tests/gpu/harness/*.cu and the problem
# self-tests tests/gpu/selftest/*.cu), one process per
# file and then all of them in ONE process (the run must go on after
# crashes and timeouts); every shipped template at its default point on
# two shapes (one awkward), expecting ok; and a throughput probe. Prints a
# summary table; exits 1 if any expectation fails. Logs go to $OUT (if
# set) or a temporary directory.
set -u
KEVO=${KEVO:?set KEVO to the kevo binary}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOG=${OUT:-$(mktemp -d /tmp/kevo-gpu-test.XXXXXX)}
mkdir -p "$LOG"
SM_SHAPE=${SM_SHAPE:-1024x1000}
GM_SHAPE=${GM_SHAPE:-512x384x257}
TMO=${TIMEOUT_MS:-3000}
SEED=${SEED:-12345}
PERF_N=${PERF_N:-30}
TABLE="$LOG/summary.txt"
ROW_W=44
. "$(dirname "$0")/lib.inc"

echo "== kevo doctor"
"$KEVO" doctor >"$LOG/doctor.log" 2>&1
rc=$?
cat "$LOG/doctor.log"
row "doctor" 0 "$rc"

CASES=$(ls "$ROOT"/tests/gpu/adversarial/*.cu "$ROOT"/tests/gpu/harness/*.cu \
    "$ROOT"/tests/gpu/selftest/*.cu 2>/dev/null)
echo "== one process per expectation file"
for f in $CASES; do
    want=$(sed -n '1s|^// *expect: *\([a-z_]*\).*|\1|p' "$f")
    [ -n "$want" ] || continue
    name=$(basename "$f")
    "$KEVO" eval "$f" --shape "softmax=$SM_SHAPE" --shape "gemm=$GM_SHAPE" \
        --timeout-ms "$TMO" --seed "$SEED" >"$LOG/eval-$name.log" 2>&1
    got=$(verdict_of "$f" "$LOG/eval-$name.log")
    row "$name" "$want" "${got:-none}"
    [ "$want" = "$got" ] || sed 's/^/    /' "$LOG/eval-$name.log" | head -20
done

echo "== all expectation files in one kevo process"
start=$(date +%s)
# shellcheck disable=SC2086
"$KEVO" eval $CASES --shape "softmax=$SM_SHAPE" --shape "gemm=$GM_SHAPE" \
    --timeout-ms "$TMO" --seed "$SEED" -v >"$LOG/batch.log" 2>&1
echo "batch took $(( $(date +%s) - start )) s"
for f in $CASES; do
    want=$(sed -n '1s|^// *expect: *\([a-z_]*\).*|\1|p' "$f")
    [ -n "$want" ] || continue
    got=$(verdict_of "$f" "$LOG/batch.log")
    row "batch: $(basename "$f")" "$want" "${got:-none}"
done

echo "== fp16/bf16 (conversions, tolerances, GemmEx baseline)"
for dt in fp16 bf16; do
    for f in "$ROOT/tests/gpu/harness/softmax_ok.cu" \
        "$ROOT/tests/gpu/harness/gemm_ok.cu"; do
        log="$LOG/dtype-$dt-$(basename "$f" .cu).log"
        "$KEVO" eval "$f" --dtype "$dt" --shape "softmax=$SM_SHAPE" \
            --shape "gemm=$GM_SHAPE" --seed "$SEED" >"$log" 2>&1
        got=$(verdict_of "$f" "$log")
        row "$dt $(basename "$f")" ok "${got:-none}"
        sed 's/^/    /' "$log"
    done
done

echo "== confirm (ABAB, noise-aware)"
h="$ROOT/tests/gpu/harness"
"$KEVO" eval --ab "$h/softmax_ok.cu" "$h/softmax_ok.cu" --shape 4096x4096 \
    --seed "$SEED" >"$LOG/confirm-same.log" 2>&1
got=$(sed -n 's/^confirm: .*: \([a-z]*\)$/\1/p' "$LOG/confirm-same.log")
grep '^confirm' "$LOG/confirm-same.log"
row "confirm: a kernel vs itself" reject "${got:-none}"
if [ -f "$ROOT/templates/gemm/sgemm_tiled.cu" ]; then
    "$KEVO" eval --ab "$ROOT/templates/gemm/sgemm_tiled.cu" "$h/gemm_ok.cu" \
        --shape 2048x2048x2048 --seed "$SEED" >"$LOG/confirm-faster.log" 2>&1
    got=$(sed -n 's/^confirm: .*: \([a-z]*\)$/\1/p' "$LOG/confirm-faster.log")
    grep '^confirm' "$LOG/confirm-faster.log"
    row "confirm: tiled vs naive GEMM" accept "${got:-none}"
fi

echo "== issue 10: long K, sizes past the old cap, memory refusal"
# a naive serial-K kernel at K = 400000 (failed the old sqrt(K) tolerance),
# the Kernel Tuner-style SGEMM with file-scope constexpr data, a GEMM with
# 1.07e9 input elements (refused as "too large" before), and a shape that
# cannot fit: refused with the bytes needed and free
for c in "gemm_ok.cu:256x256x400000" "gemm_constexpr.cu:256x256x400000" \
    "gemm_ok.cu:32768x32x32768"; do
    f="$ROOT/tests/gpu/harness/${c%%:*}"; s=${c##*:}
    log="$LOG/issue10-$(basename "$f" .cu)-$s.log"
    "$KEVO" eval "$f" --shape "$s" --timeout-ms 30000 --seed "$SEED" \
        >"$log" 2>&1
    got=$(verdict_of "$f" "$log")
    row "$(basename "$f") $s" ok "${got:-none}"
    sed 's/^/    /' "$log"
done
log="$LOG/issue10-too-big.log"
"$KEVO" eval "$h/gemm_ok.cu" --shape 131072x131072x16 --seed "$SEED" \
    >"$log" 2>&1
got=$(grep -c 'needs [0-9]* bytes of GPU memory (inputs .*only [0-9]* free' "$log")
row "131072x131072x16: needs N bytes, only F free" 1 "$got"
sed 's/^/    /' "$log"

# --time without --generations runs for its time, not 20 generations
t0=$(date +%s)
"$KEVO" run --problem softmax --dtype fp32 --shape 1024x1000 --time 20s --seed "$SEED" \
    --runs-dir "$LOG/runs" --name budget >"$LOG/issue10-budget.log" 2>&1
"$KEVO" status "$LOG/runs/budget" >>"$LOG/issue10-budget.log" 2>&1
took=$(( $(date +%s) - t0 ))
got=$([ "$took" -ge 19 ] && grep -q 'no generation cap' "$LOG/issue10-budget.log" &&
      grep -q 'finished (time budget)' "$LOG/issue10-budget.log" && echo 1 || echo 0)
row "run --time 20s runs its time (${took}s, no generation cap)" 1 "$got"

echo "== shipped templates at their default point"
# every dtype of a template on an awkward shape, its first dtype on a
# regular one; "unsupported" is right only for a template that declares
# the divisibility it needs (a "requires" with %)
for t in "$ROOT"/templates/*/*.cu; do
    [ -f "$t" ] || continue
    p=$(sed -n 's|^// kevo: problem *\([a-z0-9_]*\).*|\1|p' "$t" | head -1)
    dts=$(sed -n 's|^// kevo: dtypes *||p' "$t" | head -1)
    first=${dts%% *}
    divis=$(grep -c '^// kevo: requires .*%' "$t")
    case $p in
    gemm) cases="1024x1024x1024:$first $(for d in $dts; do printf '1000x777x333:%s ' "$d"; done)" ;;
    softmax) cases="4096x4096:$first $(for d in $dts; do printf '1000x777:%s ' "$d"; done)" ;;
    *) cases="" ;;
    esac
    for c in $cases; do
        s=${c%%:*}; d=${c##*:}
        name="$(basename "$t") $s $d"
        log="$LOG/tpl-$(basename "$t" .cu)-$s-$d.log"
        "$KEVO" eval "$t" --shape "$s" --dtype "$d" --seed "$SEED" >"$log" 2>&1
        got=$(verdict_of "$t" "$log")
        want=ok
        [ "$got" = unsupported ] && [ "$divis" -gt 0 ] && want=unsupported
        row "$name" "$want" "${got:-none}"
        sed 's/^/    /' "$log"
    done
done

echo "== throughput: $PERF_N evaluations of sgemm_tiled at 4096^3 fp32"
t="$ROOT/templates/gemm/sgemm_tiled.cu"
if [ -f "$t" ]; then
    files=""
    i=0
    while [ $i -lt "$PERF_N" ]; do files="$files $t"; i=$((i + 1)); done
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$KEVO" eval $files --shape 4096x4096x4096 --seed "$SEED" \
        >"$LOG/perf.log" 2>&1
    end=$(date +%s.%N)
    head -4 "$LOG/perf.log"
    awk -v a="$start" -v b="$end" -v n="$PERF_N" 'BEGIN {
        printf "perf: %d evaluations in %.2f s = %.0f per minute (incl. worker start)\n",
               n, b - a, n * 60 / (b - a) }' | tee -a "$TABLE"
    n_ok=$(grep -c ": ok " "$LOG/perf.log")
    row "perf: all $PERF_N ok" "$PERF_N" "$n_ok"
    # kevo eval times every file in full: no cascade, no race against the
    # fastest of the others (gpueval_opts.no_race)
    n_race=$(grep -Ec "cascaded|raced" "$LOG/perf.log")
    row "perf: none cascaded or raced (eval never races)" 0 "$n_race"
fi

echo "== user-defined problems (tests/gpu/userprob.sh)"
OUT="$LOG/userprob" KEVO="$KEVO" sh "$ROOT/tests/gpu/userprob.sh"
row "userprob.sh: examples/problems, reference rules" 0 "$?"

echo "== issue 29: compiled-code rules, includes, sanitizer (tests/gpu/judge.sh)"
OUT="$LOG/judge" KEVO="$KEVO" sh "$ROOT/tests/gpu/judge.sh"
row "judge.sh: compiled code, includes, sanitizer" 0 "$?"

echo
echo "== summary"
cat "$TABLE"
echo "$pass passed, $fail failed (logs in $LOG)"
[ "$fail" -eq 0 ]
