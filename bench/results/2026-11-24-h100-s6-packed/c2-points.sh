# call c2 (hp5): B K-major pack through shared memory (pack_btile); CLN=1 BT=1 BN=208 at GROUP_M 8/16/32 vs the default
d=$(var def)
nw=$(var nw CLN=1 BT=1 BN=208)
n16=$(var n16 CLN=1 BT=1 BN=208 GROUP_M=16)
n32=$(var n32 CLN=1 BT=1 BN=208 GROUP_M=32)
bt=$(var bt BT=1)
ev bf16-4099.log 60 $d $n16 $n32 $nw $bt --problem gemm --dtype bf16 --shape 4099x4097x4095
ev ab-bf16-4099.log 60 $n16 $d --ab --problem gemm --dtype bf16 --shape 4099x4097x4095
ev fp16-4099.log 40 $d $n16 --problem gemm --dtype fp16 --shape 4099x4097x4095
nc def $d
nc n16 $n16
for dt in bf16 fp16; do
for sh in 64x65x63 1000x999x777 300x4097x130; do ev small.log 30 $n16 --problem gemm --dtype $dt --shape $sh; done
ev big.log 40 $n16 $d --problem gemm --dtype $dt --shape 4096x4096x4096
ev big.log 40 $n16 --problem gemm --dtype $dt --shape 8191x8193x8191
done
ev small.log 30 $bt --problem gemm --dtype bf16 --shape 1000x999x777
ev ab-fp16-4099.log 60 $n16 $d --ab --problem gemm --dtype fp16 --shape 4099x4097x4095
MS=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.max,sm__pipe_tensor_op_hmma_cycles_active.min,sm__cycles_elapsed.avg.per_second,lts__t_sectors.sum,dram__bytes_read.sum
for v in n16; do f=/tmp/v/$v.cu
command -v ncu >/dev/null && timeout 50 ncu --clock-control none --metrics $MS --kernel-name hgemm_packed --launch-count 1 --log-file $L/ncu-sm-$v.txt $K eval $f --problem gemm --dtype bf16 --shape 4099x4097x4095 --seed 3 >> $L/ncu-eval.log 2>&1; done
snap
