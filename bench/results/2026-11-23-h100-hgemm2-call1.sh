#!/bin/bash
# Device script of helper "hgemm2" (2026-11-23), NOT RUN by hgemm2 (the
# session's device budget was below its 700 s floor): hgemm_wgmma after the
# cluster-release fix (CLUSTER=2), with CLN (pair on N, A multicast) and EPI
# (TMA-store epilogue), bf16/fp16 4096^3 and 8192^3 with cuBLAS in the same
# worker, edge shapes for correctness, an interleaved A/B, one ncu profile.
# Variants are copies of the template with other defaults (/tmp/v/*.cu).
# Run: make BUILD=build/hgemm2 -j2 && scripts/bundle.sh build/hgemm2/kevo
#   build/hgemm2-bundle; run(command="bash bench/results/2026-11-23-h100-
#   hgemm2-call1.sh", carry=["build/hgemm2-bundle"], timeout_s=240)
set -u
export KEVO_CACHE_DIR=/tmp/kc
D=${D:-build/hgemm2-bundle}
B=$D/kevo
T=templates/gemm/hgemm_wgmma.cu
V=/tmp/v; mkdir -p $V
L=$OUT/evals.log
mk() { n=$1; shift; cp $T $V/$n.cu
  for kv in "$@"; do k=${kv%=*}; v=${kv#*=}
    grep -q "^// kevo: param $k " $V/$n.cu || echo "NO PARAM $k in $n" >>$L
    sed -i -E "s/^(\/\/ kevo: param $k .*default=)[0-9]+/\1$v/" $V/$n.cu; done; }
BASE="CONSUMERS=2 BN=256 PERSIST=1 SETREG=1 STAGES=4"
mk base $BASE                                   # best measured before
mk c2 $BASE CLUSTER=2                           # the release fix alone
mk e1 $BASE EPI=1                               # TMA-store epilogue alone
mk c2e1 $BASE CLUSTER=2 EPI=1
mk c2e1g16 $BASE CLUSTER=2 EPI=1 GROUP_M=16
mk c2e1np $BASE CLUSTER=2 EPI=1 PERSIST=0
mk c2e1s3 $BASE CLUSTER=2 EPI=1 STAGES=3
mk cn256 CONSUMERS=2 BM=256 BN=128 PERSIST=1 SETREG=1 STAGES=4 CLUSTER=2 CLN=1 EPI=1
mk cm256 CONSUMERS=2 BM=256 BN=128 PERSIST=1 SETREG=1 STAGES=4 CLUSTER=2 EPI=1
ev() { echo "### $*" >>$L; timeout 60 $B eval "$@" --timeout-ms 8000 >>$L 2>&1; echo "rc $?" >>$L; }
v() { for n in "$@"; do printf '%s ' $V/$n.cu; done; }
# hgemm_packed has the same .release.cluster arrive: a copy with it
# removed (the fix to port if it measures faster), CLUSTER=2 vs its default
P=templates/gemm/hgemm_packed.cu
cp $P $V/pk_def.cu
sed -E "s/^(\/\/ kevo: param SK .*default=)[0-9]+/\10/" $P >$V/pk_sk0.cu
cp $P $V/pk_c2fix.cu
sed -i -E -e 's/mbarrier\.arrive\.release\.cluster\.shared::cluster\.b64/mbarrier.arrive.shared::cluster.b64/' \
  -e 's/^(\/\/ kevo: param CLUSTER .*default=)[0-9]+/\12/' -e "s/^(\/\/ kevo: param SK .*default=)[0-9]+/\10/" $V/pk_c2fix.cu
grep -c "release.cluster.shared::cluster" $V/pk_c2fix.cu >>$L
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv >>$L 2>&1
# correctness first, on edges (M, N not tile multiples; a pair's second tile past M or N)
ev $(v c2 e1 c2e1 cn256 cm256) --dtype bf16 --shape 1000x1000x1000
ev $(v c2e1 cn256) --dtype fp16 --shape 200x136x72
ev $(v base c2 e1 c2e1 c2e1g16 c2e1np c2e1s3 cn256 cm256) --dtype bf16 --shape 4096x4096x4096
ev $(v base c2 e1 c2e1 c2e1g16 cn256 cm256) --dtype bf16 --shape 8192x8192x8192
ev $(v base c2e1 cn256) --dtype fp16 --shape 4096x4096x4096
ev $(v base c2e1 cn256) --dtype fp16 --shape 8192x8192x8192
ev $(v pk_def pk_sk0 pk_c2fix) --dtype bf16 --shape 4099x4097x4095
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv >>$L 2>&1
grep -E "^###|x cublas|baseline|wrong|error|unsupported|fail|rc " $L >$OUT/summary.txt
# tensor-pipe use and stalls of the cluster + TMA-store point at 8192^3
M='sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
if command -v ncu >/dev/null; then
  timeout 60 ncu --clock-control none --target-processes all --metrics "$M" \
    --kernel-name regex:'hgemm_wgmma' --launch-count 1 $B eval $V/c2e1.cu --shape 8192x8192x8192 --dtype bf16 --seed 3 >$OUT/ncu-c2e1.log 2>&1
fi
cat $OUT/summary.txt
