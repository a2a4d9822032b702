#!/bin/bash
# gpu-steps.sh - runs named GPU steps in one device call, each with its own
# time limit, and leaves few files in $OUT: summary.txt (one line per step:
# name, exit status, seconds), session.log (everything), logs.tar.gz (each
# step's own files). Run from the repo root with the bundle built here:
#   OUT=/dir KEVO=build/bundle/kevo scripts/gpu-steps.sh doctor gpu-test ...
# Steps: doctor, gpu-test, ncu, gemm-families, softmax-families, wgmma,
# export-torch RUN, bench-quick, run:PROBLEM:DTYPE:SHAPE:SECONDS[:EXTRA],
# sh:'command' (anything else, run with bash -c).
set -u
export KEVO=${KEVO:-$PWD/build/bundle/kevo}
OUT=${OUT:-/tmp/kevo-out}
L=/tmp/kevo-logs
RUNS=${RUNS:-/tmp/kevo-runs}
mkdir -p "$OUT" "$L" "$RUNS"
export KEVO_CACHE_DIR=${KEVO_CACHE_DIR:-/tmp/kevo-cache}
S="$OUT/summary.txt"
log() { echo "=== $*" | tee -a "$OUT/session.log"; }
log "$(date -u +%FT%TZ) commit $(cat COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv \
    2>&1 | tee -a "$OUT/session.log"
step() { # name limit command...
    local name=$1 lim=$2; shift 2
    log "step $name (limit ${lim}s): $*"
    local t0=$(date +%s)
    mkdir -p "$L/$name"
    OUT="$L/$name" timeout "$lim" "$@" >"$L/$name/stdout.log" 2>&1
    local rc=$?
    tail -60 "$L/$name/stdout.log" >>"$OUT/session.log"
    printf '%-40s rc=%-4s %5ss\n' "$name" "$rc" "$(( $(date +%s) - t0 ))" | tee -a "$S"
}
for s in "$@"; do
    case "$s" in
    doctor) step doctor 60 "$KEVO" doctor ;;
    gpu-test) step gpu-test ${GPU_TEST_S:-240} tests/gpu/run.sh ;;
    ncu) step ncu ${NCU_S:-120} scripts/ncu-compare.sh ;;
    gemm-families) step gemm-families ${FAM_S:-120} tests/gpu/gemm_families.sh ;;
    softmax-families) step softmax-families ${FAM_S:-120} tests/gpu/softmax_families.sh ;;
    wgmma) step wgmma ${WGMMA_S:-100} tests/gpu/wgmma.sh ;;
    bench-quick) step bench-quick 400 "$KEVO" bench --quick ;;
    run:*)
        IFS=: read -r _ p d sh secs extra <<<"$s"
        step "run-$p-$d-$sh" $((secs + 90)) bash -c "\"$KEVO\" run --problem $p --dtype $d --shape $sh --time $secs --generations 0 --runs-dir \"$RUNS\" --name $p-$d-$sh $extra; \"$KEVO\" status \"$RUNS/$p-$d-$sh\"" ;;
    sh:*) step "sh-$(echo "${s#sh:}" | tr -c "a-zA-Z0-9" _ | cut -c1-30)" ${SH_S:-120} bash -c "${s#sh:}" ;;
    *) echo "unknown step $s" | tee -a "$S" ;;
    esac
done
tar czf "$OUT/logs.tar.gz" -C "$L" . 2>/dev/null
tar czf "$OUT/runs.tar.gz" --exclude='*/sources/*' -C "$RUNS" . 2>/dev/null
log "done $(date -u +%FT%TZ)"
