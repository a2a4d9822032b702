#!/bin/bash
# Device call 1 of helper "sgemm" (2026-11-23): sgemm_warptile at several
# points on the issue-12 fp32 shapes, the old families at their known points
# for same-run comparison, and an ncu warp-state profile. Writes $OUT/*.log.
export KEVO_CACHE_DIR=/tmp/kc
B=build/sgemm-bundle/kevo
W=templates/gemm/sgemm_warptile.cu
L=$OUT/evals.log
ev() { # shape, file, params...
    local s=$1 f=$2; shift 2
    local a=(); for p in "$@"; do a+=(--param "$p"); done
    echo "### $s $(basename $f) $*" >>$L
    timeout 60 $B eval $f --shape $s --dtype fp32 --seed 7 "${a[@]}" >>$L 2>&1
}
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv >>$L 2>&1
git log --oneline -1 >>$L 2>&1 || true
S=4096x4096x4096
ev $S $W
ev $S $W BM=128 BN=256 TM=16 TN=8 LN=8
ev $S $W BM=128 BN=128 TM=16 TN=8 LN=8 MINB=2
ev $S $W BM=128 BN=128 TM=8 TN=16 LN=4 MINB=2
ev $S $W BM=256 BN=128 TM=16 TN=8 LN=8
ev $S $W BK=16
ev $S $W STAGES=4
ev $S $W BM=128 BN=128 TM=16 TN=8 LN=8 MINB=2 BK=16
ev $S templates/gemm/sgemm_tiled.cu BM=128 BN=256 BK=8 TM=16 TN=8 WARP_N=8 VEC=4 PAD=4 ASYNC=0 STAGES=2 GROUP_M=8 MINB=1
S=384x384x262144
ev $S $W BM=128 BN=128 TM=16 TN=8 LN=8 MINB=2
ev $S $W BM=128 BN=128 TM=8 TN=16 LN=4 MINB=2
ev $S $W BM=128 BN=128 TM=16 TN=8 LN=8 MINB=2 BK=16
ev $S $W BM=64 BN=128 TM=8 TN=8 LN=8 MINB=2
ev $S templates/gemm/sgemm_splitk.cu
S=6001x5999x6007
ev $S $W
ev $S $W BM=128 BN=128 TM=16 TN=8 LN=8 MINB=2
ev $S $W BM=128 BN=256 TM=16 TN=8 LN=8
S=6144x2048x3072
ev $S $W
ev $S $W BM=128 BN=128 TM=16 TN=8 LN=8 MINB=2
ev $S $W BM=128 BN=256 TM=16 TN=8 LN=8
# what stalls the default point (and cuBLAS) at 4096^3
if command -v ncu >/dev/null; then
  timeout 70 ncu --clock-control none --target-processes all --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
    --kernel-name regex:'sgemm_warptile$|xmma_gemm_f32' --launch-skip 0 --launch-count 2 \
    $B eval $W --shape 4096x4096x4096 --dtype fp32 --seed 3 >$OUT/ncu.log 2>&1
else echo "no ncu" >$OUT/ncu.log; fi
grep -E "^###|ok |x cublas|wrong|error|unsupported" $L | head -100
