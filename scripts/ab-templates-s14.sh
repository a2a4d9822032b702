#!/usr/bin/env bash
# ab-templates-s14.sh - device A/B of the session-14 hgemm template rewrite
# (kevo/sm90.cuh, dead switches removed): the default point of each
# rewritten template against the same template at git revision OLD
# (default 1281cf3), with `kevo eval NEW OLD --ab` (interleaved ABAB,
# noise-aware confirm verdict) and then the other way round, at bf16
# 4096^3 (both templates) and at the odd 4099x4097x4095 (hgemm_packed;
# hgemm_wgmma requires K and N % 8 == 0). Where the SASS is the same
# (hgemm_wgmma: scripts/sass-compare.sh) both orders should say the times
# are equal within the noise (no "accept" either way); hgemm_packed's GEMM
# only lost a dead prologue, so the same is expected there.
#
# usage (repository root, on the GPU machine, after `make`):
#   OUT=DIR scripts/ab-templates-s14.sh [OLD_REV]
#   KEVO=path/to/kevo (default build/kevo); PAIRS (default 20); SEED
# Writes DIR/ab-s14/ab.log (the full eval output) and DIR/ab-s14/summary.txt
# (one block a comparison: each file's verdict line, "pairs:" against
# cuBLAS launch by launch, and the "confirm:" line: time ratio, noise,
# accept/reject; rc 0 for each).
# About 5-8 minutes on an H100.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=${1:-1281cf3}
K=${KEVO:-$ROOT/build/kevo}
L=${OUT:-/tmp}/ab-s14
PAIRS=${PAIRS:-20}
SEED=${SEED:-14}
mkdir -p "$L/old" "$L/new"
S=$L/summary.txt
for t in hgemm_wgmma hgemm_packed; do
    git -C "$ROOT" show "$OLD:templates/gemm/$t.cu" >"$L/old/$t.cu" ||
        { echo "no templates/gemm/$t.cu at $OLD" >&2; exit 2; }
    cp "$ROOT/templates/gemm/$t.cu" "$L/new/$t.cu"
done
{
    echo "old: $OLD, new: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet -- templates || echo ' (modified)'), $(date -u +%FT%TZ)"
    nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader 2>/dev/null | head -1
} >"$S"
: >"$L/ab.log"

# ab FIRST SECOND DTYPE SHAPE: FIRST is the challenger
ab() {
    local a=$1 b=$2 dt=$3 sh=$4
    echo "### $a vs $b $dt $sh" | sed "s|$L/||g" | tee -a "$S" >>"$L/ab.log"
    local n0
    n0=$(wc -l <"$L/ab.log")
    timeout 120 "$K" eval "$a" "$b" --ab --pairs "$PAIRS" --problem gemm \
        --dtype "$dt" --shape "$sh" --seed "$SEED" --timeout-ms 8000 \
        >>"$L/ab.log" 2>&1
    echo "rc $?" >>"$L/ab.log"
    tail -n +$((n0 + 1)) "$L/ab.log" |
        grep -E "\.cu: |^confirm: |^pairs: |^rc " |
        sed "s|$L/||g" | cut -c1-220 >>"$S"
}

for t in hgemm_wgmma hgemm_packed; do
    ab "$L/new/$t.cu" "$L/old/$t.cu" bf16 4096x4096x4096
    ab "$L/old/$t.cu" "$L/new/$t.cu" bf16 4096x4096x4096
done
ab "$L/new/hgemm_packed.cu" "$L/old/hgemm_packed.cu" bf16 4099x4097x4095
ab "$L/old/hgemm_packed.cu" "$L/new/hgemm_packed.cu" bf16 4099x4097x4095
ab "$L/new/hgemm_packed.cu" "$L/old/hgemm_packed.cu" fp16 4099x4097x4095
cat "$S"
