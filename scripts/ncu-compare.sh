#!/bin/sh
# ncu-compare.sh - checks kevo's CUPTI kernel times against Nsight Compute
# (`ncu --clock-control none`, gpu__time_duration) on three kernels, and
# that kevo falls back to event timing when ncu holds the CUPTI
# subscription. Run on the GPU machine from the repo root:
#   KEVO=build/bundle/kevo scripts/ncu-compare.sh [OUTDIR]
# Prints one table row per kernel: kevo (CUPTI) median, ncu median of the
# profiled launches, their ratio, and kevo's own timer and median under ncu.
set -u
KEVO=${KEVO:?set KEVO to the kevo binary}
OUT=${1:-${OUT:-/tmp}}
NCU=${NCU:-ncu}
mkdir -p "$OUT"
# template  kernel  problem-shape  dtype
CASES="templates/gemm/sgemm_tiled.cu sgemm_tiled 2048x2048x2048 fp32
templates/softmax/softmax_block.cu softmax_block 4096x4096 fp32
templates/softmax/softmax_warp.cu softmax_warp 8192x1024 fp16"
printf '%-16s %-15s %-5s %12s %12s %7s %8s %14s\n' kernel shape dtype \
    kevo_cupti_us ncu_us ratio timer kevo_under_ncu | tee "$OUT/ncu-compare.txt"
fail=0
echo "$CASES" | while read -r tpl kern shape dt; do
    j1=$("$KEVO" eval "$tpl" --shape "$shape" --dtype "$dt" --seed 7 --json 2>>"$OUT/ncu-compare.err")
    k_ns=$(printf '%s' "$j1" | python3 -c 'import json,sys; d=json.loads(sys.stdin.readline()); print(d.get("median_ns",0))')
    # under ncu: profile 5 launches of the candidate after 3 warm-ups
    "$NCU" --clock-control none --target-processes all \
        --kernel-name "$kern" --launch-skip 3 --launch-count 5 \
        --metrics gpu__time_duration.sum --csv \
        "$KEVO" eval "$tpl" --shape "$shape" --dtype "$dt" --seed 7 --json \
        >"$OUT/ncu-$kern.csv" 2>"$OUT/ncu-$kern.err"
    n_ns=$(python3 - "$OUT/ncu-$kern.csv" <<'PY'
import csv, sys, statistics
vals = []
for row in csv.reader(open(sys.argv[1], errors="replace")):
    if len(row) > 3 and row[-3] == "gpu__time_duration.sum":
        unit, v = row[-2], float(row[-1].replace(",", ""))
        vals.append(v * {"nsecond": 1, "usecond": 1e3, "msecond": 1e6}.get(unit, 1))
print(statistics.median(vals) if vals else 0)
PY
)
    u=$(grep '^{' "$OUT/ncu-$kern.csv" | tail -1)
    timer=$(printf '%s' "$u" | python3 -c 'import json,sys
try:
    d=json.loads(sys.stdin.read()); print(d.get("timer","?"), d.get("median_ns",0))
except Exception: print("? 0")')
    python3 - "$kern" "$shape" "$dt" "$k_ns" "$n_ns" $timer <<'PY' | tee -a "$OUT/ncu-compare.txt"
import sys
k, s, dt, kn, nn, timer, un = sys.argv[1:8]
kn, nn, un = float(kn), float(nn), float(un)
r = kn / nn if nn else 0
print(f"{k:16s} {s:15s} {dt:5s} {kn/1e3:12.2f} {nn/1e3:12.2f} {r:7.3f} {timer:>8s} {un/1e3:14.2f}")
PY
done
