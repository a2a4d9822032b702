#!/bin/bash
# One device session, everything kevo proves on the GPU in one call:
# doctor, the GPU test suite (adversarial kernels + templates), an
# end-to-end `kevo run` on fp32 GEMM 4096^3 and fp32 softmax 4096x4096,
# `kevo eval` of each run's best, and the same kernel timed in two fresh
# workers (timing fidelity). Logs and run directories go to $OUT.
# usage (on the GPU machine, after `make bundle` here):
#   OUT=/some/dir scripts/gpu-session.sh [gemm-seconds] [softmax-seconds]
set -u
K=${KEVO:-$PWD/build/bundle/kevo}
OUT=${OUT:-/tmp/kevo-out}
GEMM_S=${1:-150}
SOFTMAX_S=${2:-90}
RUNS=/tmp/kevo-runs
mkdir -p "$OUT" "$RUNS"
export KEVO_CACHE_DIR=/tmp/kevo-cache
log() { echo "=== $*" | tee -a "$OUT/session.log"; }

log "$(date -u +%FT%TZ) commit $(cat COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv \
    2>&1 | tee -a "$OUT/session.log"
log "kevo doctor"
"$K" doctor 2>&1 | tee -a "$OUT/session.log"
log "gpu-test"
mkdir -p /tmp/kevo-gpu-logs
OUT=/tmp/kevo-gpu-logs KEVO=$K timeout 240 tests/gpu/run.sh 2>&1 | tee "$OUT/gpu-test.log" | tail -40 | tee -a "$OUT/session.log"
tar czf "$OUT/gpu-logs.tar.gz" -C /tmp/kevo-gpu-logs . 2>/dev/null

best_params() {  # run-dir -> "--param K=V ..." from best.json
    python3 -c 'import json,sys; b=json.load(open(sys.argv[1]+"/best.json")); print(" ".join("--param %s=%d"%(k,v) for k,v in b["params"].items()))' "$1"
}
best_tpl() {
    python3 -c 'import json,sys; b=json.load(open(sys.argv[1]+"/best.json")); print(b["template"])' "$1"
}
for job in "gemm fp32 4096x4096x4096 $GEMM_S" "softmax fp32 4096x4096 $SOFTMAX_S"; do
    set -- $job
    log "kevo run --problem $1 --dtype $2 --shape $3 --time $4"
    "$K" run --problem "$1" --dtype "$2" --shape "$3" --time "$4" --generations 0 \
        --runs-dir "$RUNS" --name "$1-$2" 2>&1 | tail -25 | tee -a "$OUT/session.log"
    "$K" status "$RUNS/$1-$2" 2>&1 | tee -a "$OUT/session.log"
    if [ -f "$RUNS/$1-$2/best.json" ]; then
        t=$(best_tpl "$RUNS/$1-$2"); p=$(best_params "$RUNS/$1-$2")
        for w in 1 2 3; do
            log "kevo eval of the best ($t $p), fresh worker $w"
            "$K" eval "$RUNS/$1-$2/templates/$1/$t.cu" --problem "$1" --dtype "$2" \
                --shape "$3" $p 2>&1 | tee -a "$OUT/session.log"
        done
    fi
done
tar czf "$OUT/runs.tar.gz" -C "$RUNS" . 2>/dev/null
log "done $(date -u +%FT%TZ)"
