#!/bin/sh
# tests/gpu/softmax_wave.sh - the launch-only grid size WAVE of
# softmax_block, softmax_warp, softmax_multirow and softmax_online (issue
# 32) on the GPU. WAVE = k > 0 launches at most k blocks per SM, so each
# block loops over many row groups (4096 rows on 132 SMs: about 31 rows a
# block for softmax_block at WAVE = 1). `kevo eval` of the four templates
# at their default point with WAVE = 1, fp32 on an odd shape (1000x3001:
# scalar paths, a ragged last group) and on 4096x4096, and bf16 1000x3001;
# then softmax_online with a block per row (TPR = THREADS: its two-slot
# block reduction, the one shared-memory hand-over between rows) at
# WAVE = 1 and 2. Every verdict must be ok. One kevo process per case
# line; prints a row per template and case; exit 1 if any is not ok.
# usage: KEVO=build/kevo [OUT=dir] [SEED=n] sh tests/gpu/softmax_wave.sh
set -u
KEVO=${KEVO:?set KEVO to the kevo binary}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOG=${OUT:-$(mktemp -d /tmp/kevo-softmax-wave.XXXXXX)}
SEED=${SEED:-4242}
mkdir -p "$LOG" || exit 2
TABLE="$LOG/softmax_wave.txt"
ROW_W=60
. "$(dirname "$0")/lib.inc"
T=$ROOT/templates/softmax
FOUR="$T/softmax_block.cu $T/softmax_warp.cu $T/softmax_multirow.cu $T/softmax_online.cu"

# case NAME DTYPE SHAPE FILES PARAMS...: one kevo eval of FILES, a row each
case_() {
    name=$1 dt=$2 sh=$3 files=$4
    shift 4
    log="$LOG/$name-$dt-$sh.log"
    params=""
    for p in "$@"; do params="$params --param $p"; done
    # shellcheck disable=SC2086
    "$KEVO" eval $files --dtype "$dt" --shape "$sh" --seed "$SEED" $params \
        >"$log" 2>&1
    for f in $files; do
        got=$(verdict_of "$f" "$log")
        row "$(basename "$f" .cu) $* $dt $sh" ok "${got:-none}"
        [ "$got" = ok ] || sed 's/^/    /' "$log" | head -20
    done
}

case_ wave1 fp32 1000x3001 "$FOUR" WAVE=1
case_ wave1 fp32 4096x4096 "$FOUR" WAVE=1
case_ wave1 bf16 1000x3001 "$FOUR" WAVE=1
for sh in 1000x3001 4096x4096; do
    case_ online256 fp32 "$sh" "$T/softmax_online.cu" TPR=256 THREADS=256 WAVE=1
    case_ online1024 fp32 "$sh" "$T/softmax_online.cu" TPR=1024 THREADS=1024 \
        MINB=1 WAVE=2
done
echo "softmax_wave: $pass passed, $fail failed (logs in $LOG)"
[ "$fail" -eq 0 ]
