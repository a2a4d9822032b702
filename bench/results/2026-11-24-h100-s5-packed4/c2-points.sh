# call c2 (hp4): SK=3 with a deterministic reduction (own slot a piece, the last adds them in piece order), FOLD=1 (sliver row folded into the last GROUP_M group), both
d=$(var def)
s3=$(var sk3 SK=3)
f1=$(var f1 FOLD=1)
fs=$(var f1sk3 FOLD=1 SK=3)
ev bf16-4099.log 60 $d $s3 $f1 $fs --problem gemm --dtype bf16 --shape 4099x4097x4095
ev ab-bf16-4099.log 60 $fs $d --ab --problem gemm --dtype bf16 --shape 4099x4097x4095
ev fp16-4099.log 40 $d $fs --problem gemm --dtype fp16 --shape 4099x4097x4095
for sh in 64x65x63 1000x999x777 300x4097x130; do ev small.log 30 $fs $s3 --problem gemm --dtype bf16 --shape $sh; done
for sh in 64x65x63 1000x999x777; do ev small.log 30 $fs --problem gemm --dtype fp16 --shape $sh; done
ev big.log 40 $d $s3 $fs --problem gemm --dtype bf16 --shape 4096x4096x4096
ev big.log 40 $fs --problem gemm --dtype bf16 --shape 8191x8193x8191
ev big.log 40 $fs --problem gemm --dtype fp16 --shape 8191x8193x8191
ev bf16-4099.log 60 $d $s3 $f1 $fs --problem gemm --dtype bf16 --shape 4099x4097x4095
MS=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.max,sm__pipe_tensor_op_hmma_cycles_active.min,sm__cycles_elapsed.avg.per_second,lts__t_sectors.sum,dram__bytes_read.sum
for v in f1sk3 f1 sk3; do f=/tmp/v/$v.cu
command -v ncu >/dev/null && timeout 50 ncu --clock-control none --metrics $MS --kernel-name hgemm_packed --launch-count 1 --log-file $L/ncu-sm-$v.txt $K eval $f --problem gemm --dtype bf16 --shape 4099x4097x4095 --seed 3 >> $L/ncu-eval.log 2>&1; done
snap
