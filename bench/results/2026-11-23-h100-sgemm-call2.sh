#!/bin/bash
# Device call 2 of helper "sgemm" (2026-11-23): sgemm_warptile after the
# branch-free main loop, swept on the issue-12 fp32 shapes and the bench
# fp32 GEMM shapes, the old sgemm_tiled point for same-run comparison, ncu
# stall reasons (warptile vs cuBLAS), and a 60 s search on 4096^3.
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
Pb="BM=128 BN=256 TM=16 TN=8 LN=8"
Pc="BM=128 BN=128 TM=16 TN=8 LN=8 MINB=2"
Pe="BM=256 BN=128 TM=16 TN=8 LN=8"
S=4096x4096x4096
ev $S $W $Pb
ev $S $W $Pb BK=16
ev $S $W $Pb STAGES=4
ev $S $W $Pb BK=16 STAGES=4
ev $S $W $Pc
ev $S $W $Pc BK=16
ev $S $W $Pc STAGES=4
ev $S $W
ev $S $W $Pe
ev $S $W $Pe BK=16
ev $S $W $Pb PAD=0
ev $S $W $Pb GROUP_M=16
ev $S $W $Pb GROUP_M=4
ev $S $W BM=256 BN=128 TM=8 TN=16 LN=4
ev $S $W BM=128 BN=128 TM=8 TN=8 LN=8
ev $S $W BM=128 BN=128 TM=8 TN=8 LN=4
ev $S $W BM=64 BN=256 TM=8 TN=16 LN=8 MINB=2
ev $S templates/gemm/sgemm_tiled.cu BM=128 BN=256 BK=8 TM=16 TN=8 WARP_N=8 VEC=4 PAD=4 ASYNC=0 STAGES=2 GROUP_M=8 MINB=1
S=384x384x262144
ev $S $W $Pc
ev $S $W $Pc BK=16
ev $S $W $Pc STAGES=4
ev $S $W $Pb
ev $S $W BM=128 BN=128 TM=8 TN=8 LN=8
ev $S $W $Pc SPLITK=24
ev $S $W
S=6001x5999x6007
ev $S $W $Pb
ev $S $W $Pc
ev $S $W
ev $S $W $Pe
ev $S $W $Pb BK=16
ev $S $W $Pc BK=16
S=6144x2048x3072
ev $S $W $Pb
ev $S $W $Pc
ev $S $W
ev $S $W $Pe
ev $S $W $Pb BK=16
ev $S $W $Pc BK=16
for S in 1024x1024x1024 2048x2048x2048 4096x4096x1024; do
  ev $S $W $Pb; ev $S $W $Pc
done
ev 1024x1024x1024 $W BM=64 BN=128 TM=8 TN=8 LN=8 MINB=2
grep -E "^###|x cublas|wrong|error|unsupported" $L >$OUT/summary.txt
# stall reasons: warptile (Pb) vs cuBLAS at 4096^3
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
if command -v ncu >/dev/null; then
  a=(); for p in $Pb; do a+=(--param "$p"); done
  timeout 40 ncu --clock-control none --target-processes all --section WarpStateStats --section ComputeWorkloadAnalysis --metrics "$M" \
    --kernel-name regex:'^sgemm_warptile$' --launch-count 1 $B eval $W --shape 4096x4096x4096 --dtype fp32 --seed 3 "${a[@]}" >$OUT/ncu-warptile.log 2>&1
  timeout 40 ncu --clock-control none --target-processes all --section WarpStateStats --section ComputeWorkloadAnalysis --metrics "$M" \
    --kernel-name regex:'xmma_gemm_f32' --launch-count 1 $B eval $W --shape 4096x4096x4096 --dtype fp32 --seed 3 "${a[@]}" >$OUT/ncu-cublas.log 2>&1
fi
timeout 80 $B run --problem gemm --dtype fp32 --shape 4096x4096x4096 --template sgemm_warptile --time 55s --generations 0 --runs-dir /tmp/r --name w4096 >$OUT/run-4096.log 2>&1
$B status /tmp/r/w4096 >>$OUT/run-4096.log 2>&1
cat $OUT/summary.txt
