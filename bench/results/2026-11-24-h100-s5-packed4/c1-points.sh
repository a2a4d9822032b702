# call c1 (hp4): SK=3 (tail thirds) vs the default: timing, interleaved A/B, correctness, per-SM active cycles
d=$(var def)
s3=$(var sk3 SK=3)
ev bf16-4099.log 60 $d $s3 --problem gemm --dtype bf16 --shape 4099x4097x4095
ev ab-bf16-4099.log 60 $s3 $d --ab --problem gemm --dtype bf16 --shape 4099x4097x4095
ev fp16-4099.log 40 $d $s3 --problem gemm --dtype fp16 --shape 4099x4097x4095
for sh in 64x65x63 1000x999x777 300x4097x130; do ev small.log 30 $s3 --problem gemm --dtype bf16 --shape $sh; done
for sh in 64x65x63 1000x999x777; do ev small.log 30 $s3 --problem gemm --dtype fp16 --shape $sh; done
s2=$(var sk2 SK=2); s1=$(var sk1 SK=1)
ev small.log 30 $s2 $s1 --problem gemm --dtype bf16 --shape 1000x999x777
ev big.log 40 $d $s3 --problem gemm --dtype bf16 --shape 4096x4096x4096
ev big.log 40 $s3 --problem gemm --dtype bf16 --shape 8191x8193x8191
ev big.log 40 $s3 --problem gemm --dtype fp16 --shape 8191x8193x8191
ev bf16-4099.log 60 $d $s3 --problem gemm --dtype bf16 --shape 4099x4097x4095
MS=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.max,sm__pipe_tensor_op_hmma_cycles_active.min,sm__cycles_elapsed.avg.per_second,lts__t_sectors.sum,dram__bytes_read.sum
for v in sk3 def; do f=/tmp/v/$v.cu
command -v ncu >/dev/null && timeout 60 ncu --clock-control none --metrics $MS --kernel-name hgemm_packed --launch-count 1 --log-file $L/ncu-sm-$v.txt $K eval $f --problem gemm --dtype bf16 --shape 4099x4097x4095 --seed 3 >> $L/ncu-eval.log 2>&1; done
snap
