# call c3 (hp3): where the GEMM's SMs idle - per-SM active cycles (min/avg/max) for the default and SK=2
d=$(var def)
sk2=$(var sk2 SK=2)
ev bf16-4099.log 60 $d $sk2 --problem gemm --dtype bf16 --shape 4099x4097x4095
MS=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.max,sm__pipe_tensor_op_hmma_cycles_active.min,sm__cycles_elapsed.avg.per_second,lts__t_sectors.sum,dram__bytes_read.sum
for v in def sk2; do f=/tmp/v/$v.cu
command -v ncu >/dev/null && timeout 80 ncu --clock-control none --metrics $MS --kernel-name hgemm_packed --launch-count 1 --log-file $L/ncu-sm-$v.txt $K eval $f --problem gemm --dtype bf16 --shape 4099x4097x4095 --seed 3 >> $L/ncu-eval.log 2>&1; done
snap
