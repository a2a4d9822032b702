#!/bin/bash
# Throughput measurement of issue 13 part 3 (helper "throughput") on the
# H100: fresh-cache sweeps of the recorded tables' spaces (so evaluations/min
# compare with bench/results/2026-11-23-h100-table-*.log), the adversarial
# verdicts in one process, then tests/gpu/run.sh for the time that is left.
# usage (device): OUT=... bash bench/results/2026-11-23-h100-throughput.sh BUNDLE TAG GEMM_S SOFTMAX_S RUNSH_S COMMIT
# (COMMIT: the commit the bundle was built from; the device's .git may be
# older than the working tree it was given)
set -u
B=$1/kevo
TAG=$2
GS=${3:-90}
SS=${4:-45}
RS=${5:-150}
C=${6:-$(git rev-parse --short HEAD 2>/dev/null)}
R=/tmp/r-$TAG
mkdir -p "$OUT" "$R"
L=$OUT/$TAG
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >"$L-env.log" 2>&1
echo "commit: $C (bundle $1)" >>"$L-env.log"

run_one() { # name problem dtype shape template secs
    KEVO_CACHE_DIR=/tmp/kc-$TAG-$1 "$B" run --problem "$2" --dtype "$3" --shape "$4" \
        --templates-dir bench/tables/templates --template "$5" --strategy sweep \
        --generations 0 --time "$6s" --seed 1 --runs-dir "$R" --name "$1" 2>&1
    echo "== kevo status"
    "$B" status "$R/$1" 2>&1
    gzip -c "$R/$1/journal.jsonl" >"$L-$1-journal.jsonl.gz"
}
{ echo "commit: $C"; date -u
  time run_one gemm gemm fp32 4096x4096x4096 sgemm_tiled "$GS"; } >"$L-gemm.log" 2>&1
tail -3 "$L-gemm.log"
{ echo "commit: $C"; date -u
  time run_one softmax softmax fp32 4096x4096 softmax_block "$SS"; } >"$L-softmax.log" 2>&1
tail -3 "$L-softmax.log"

# every expectation file in one process (the verdicts of run.sh's batch part)
CASES=$(ls tests/gpu/adversarial/*.cu tests/gpu/harness/*.cu tests/gpu/selftest/*.cu)
# shellcheck disable=SC2086
KEVO_CACHE_DIR=/tmp/kc-$TAG-adv "$B" eval $CASES --shape softmax=1024x1000 \
    --shape gemm=512x384x257 --timeout-ms 3000 --seed 12345 -v >"$L-batch.log" 2>&1
: >"$L-verdicts.txt"
for f in $CASES; do
    want=$(sed -n '1s|^// *expect: *\([a-z_]*\).*|\1|p' "$f")
    [ -n "$want" ] || continue
    got=$(awk -v f="$f:" '$1 == f { print $2; exit }' "$L-batch.log")
    m=FAIL; [ "$want" = "$got" ] && m=PASS
    printf '%s %-48s want %-13s got %s\n' "$m" "$f" "$want" "${got:-none}" >>"$L-verdicts.txt"
done
grep -c PASS "$L-verdicts.txt"; grep FAIL "$L-verdicts.txt"

KEVO=$B OUT=$OUT/$TAG-gputest KEVO_CACHE_DIR=/tmp/kc-$TAG-gt timeout "$RS" sh tests/gpu/run.sh >"$L-gputest.log" 2>&1
echo "run.sh rc $?"
tail -5 "$L-gputest.log"
cd "$OUT" && tar czf "$TAG-more.tgz" "$TAG-gputest" "$TAG-batch.log" \
    "$TAG"-*-journal.jsonl.gz && rm -rf "$TAG-gputest" "$TAG-batch.log" \
    "$TAG"-*-journal.jsonl.gz
ls "$OUT"
