# call c3 (hp2): the new default (EPI=1 STAGES=4 GROUP_M=8 SKIP=1 SK=0, pdl on launch 2)
d=$(var def)
prev=$(var prev EPI=0 STAGES=5 GROUP_M=1 SKIP=0)
ds0=$(var ds0 SKIP=0)
dg1=$(var dg1 GROUP_M=1)
dt=$(var dt SK=2)
ev small.log 40 $d $dt --problem gemm --dtype bf16 --shape 64x65x63
ev small.log 40 $d --problem gemm --dtype fp16 --shape 64x65x63
ev small.log 40 $d $dt --problem gemm --dtype bf16 --shape 1000x999x777
ev small.log 40 $d --problem gemm --dtype fp16 --shape 1000x999x777
ev small.log 40 $d --problem gemm --dtype bf16 --shape 300x4097x130
ev bf16-4099.log 90 $d $prev $ds0 $dg1 $dt --problem gemm --dtype bf16 --shape 4099x4097x4095
ev fp16-4099.log 40 $d $prev --problem gemm --dtype fp16 --shape 4099x4097x4095
ev big.log 60 $d $prev $dt --problem gemm --dtype bf16 --shape 8191x8193x8191
ev big.log 40 $d $prev $dt --problem gemm --dtype bf16 --shape 4096x4096x4096
ev big.log 40 $d --problem gemm --dtype fp16 --shape 8191x8193x8191
ev ab-bf16-4099.log 60 $d $prev --ab --problem gemm --dtype bf16 --shape 4099x4097x4095
ev ab-bf16-4099.log 60 $d $ds0 --ab --problem gemm --dtype bf16 --shape 4099x4097x4095
nc def $d
