#!/bin/sh
# ncu-profile.sh - profiler evidence for what limits the best kernels
# (issue 4): Nsight Compute's SpeedOfLight, ComputeWorkloadAnalysis and
# Occupancy sections for kevo's best fp32 GEMM and bf16 wgmma GEMM at 4096^3
# (SG_RE / WG_RE select other kernels, e.g. the cuBLAS baselines), with
# --clock-control none. KEVO=... OUT=... sh scripts/ncu-profile.sh
set -u
KEVO=${KEVO:?}
NCU=${NCU:-ncu}
OUT=${OUT:-/tmp}
S="--clock-control none --target-processes all --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy"
$NCU $S --kernel-name regex:"${SG_RE:-^sgemm_tiled$}" --launch-skip 0 --launch-count 3 \
    "$KEVO" eval templates/gemm/sgemm_tiled.cu --shape 4096x4096x4096 --dtype fp32 --seed 3 \
    --param BM=128 --param BN=256 --param BK=8 --param TM=16 --param TN=8 --param WARP_N=8 \
    --param VEC=4 --param PAD=4 --param ASYNC=0 --param STAGES=2 --param GROUP_M=8 --param MINB=1 \
    >"$OUT/ncu-sgemm.txt" 2>&1
$NCU $S --kernel-name regex:"${WG_RE:-^hgemm_wgmma$}" --launch-skip 0 --launch-count 3 \
    "$KEVO" eval templates/gemm/hgemm_wgmma.cu --shape 4096x4096x4096 --dtype bf16 --seed 3 \
    --param BM=128 --param BN=256 --param CONSUMERS=2 --param STAGES=4 --param GROUP_M=8 \
    --param PERSIST=1 --param SETREG=0 >"$OUT/ncu-wgmma.txt" 2>&1
grep -E '^  [a-zA-Z_0-9]+.*\(|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Duration|Achieved Occupancy|Registers Per|Executed Ipc A|Issue Slots Busy|SM Busy' \
    "$OUT/ncu-sgemm.txt" "$OUT/ncu-wgmma.txt" | head -150
