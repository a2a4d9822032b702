# call c4 (template = commit af9ddd3, md5 7717e2ad...: new defaults) - sourced by call.sh
d=$(var def)
old=$(var old BM=256 BN=128 STAGES=4 GROUP_M=8 CLUSTER=1 SK=1)
dg4=$(var dg4 GROUP_M=4)
dg8=$(var dg8 GROUP_M=8)
ds4=$(var ds4 STAGES=4)
f30=$(var f30 GROUP_M=8 FUSE=1 PRE=30)
f50=$(var f50 GROUP_M=8 FUSE=1 PRE=50)
f100=$(var f100 GROUP_M=8 FUSE=1 PRE=100)
ev small.log 40 $d $old --problem gemm --dtype bf16 --shape 64x65x63
ev small.log 40 $d $f30 --problem gemm --dtype fp16 --shape 1000x999x777
ev small.log 40 $d --problem gemm --dtype bf16 --shape 1000x999x777
ev small.log 40 $d --problem gemm --dtype bf16 --shape 300x4097x130
ev small.log 40 $d --problem gemm --dtype fp16 --shape 64x65x63
ev bf16-4099.log 120 $d $old $dg4 $dg8 $ds4 $f30 $f50 $f100 --problem gemm --dtype bf16 --shape 4099x4097x4095
ev fp16-4099.log 40 $d $old --problem gemm --dtype fp16 --shape 4099x4097x4095
ev big.log 50 $d $old --problem gemm --dtype bf16 --shape 8191x8193x8191
ev big.log 30 $d --problem gemm --dtype bf16 --shape 4096x4096x4096
ev ab-bf16-4099.log 60 $d $old --ab --problem gemm --dtype bf16 --shape 4099x4097x4095
if command -v ncu >/dev/null; then
  MG=gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
  for f in $d $f30; do n=$(basename $f .cu)
    timeout 60 ncu --clock-control none --target-processes all --metrics $MG --kernel-name regex:hgemm_pack --launch-count 2 \
      --log-file $L/ncu-$n.txt $K eval $f --problem gemm --dtype bf16 --shape 4099x4097x4095 --seed 3 >> $L/ncu-eval.log 2>&1; snap; done
fi
