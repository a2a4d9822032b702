# call c2 (hp3): restored default (EPO=0 PDLT=0) vs EPO=1 / PDLT=1 again; ncu --set full of the default's GEMM
d=$(var def)
e1=$(var e1 EPO=1)
t1=$(var t1 PDLT=1)
ev small.log 40 $d $e1 --problem gemm --dtype bf16 --shape 1000x999x777
ev small.log 40 $d --problem gemm --dtype fp16 --shape 64x65x63
ev bf16-4099.log 60 $d $e1 $t1 --problem gemm --dtype bf16 --shape 4099x4097x4095
ev fp16-4099.log 40 $d $e1 --problem gemm --dtype fp16 --shape 4099x4097x4095
ev ab-bf16-4099.log 60 $d $e1 --ab --problem gemm --dtype bf16 --shape 4099x4097x4095
ev big.log 50 $d --problem gemm --dtype bf16 --shape 8191x8193x8191
ev bf16-4099.log 60 $d $e1 $t1 --problem gemm --dtype bf16 --shape 4099x4097x4095
command -v ncu >/dev/null && timeout 150 ncu --clock-control none --set full --kernel-name hgemm_packed --launch-count 1 --log-file $L/ncu-full.txt $K eval $d --problem gemm --dtype bf16 --shape 4099x4097x4095 --seed 3 >> $L/ncu-eval.log 2>&1
command -v ncu >/dev/null && timeout 150 ncu --clock-control none --set full --kernel-name hgemm_packed --launch-count 1 --log-file $L/ncu-full-e1.txt $K eval $e1 --problem gemm --dtype bf16 --shape 4099x4097x4095 --seed 3 >> $L/ncu-eval.log 2>&1
snap
