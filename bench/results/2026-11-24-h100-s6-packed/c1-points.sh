# call c1 (hp5): CLN=1 BT=1 BN=208 (pair along N, A multicast, B K-major) vs the default; BT=1 alone; HEAD's template; GROUP_M neighbours
d=$(var def)
nw=$(var nw CLN=1 BT=1 BN=208)
bt=$(var bt BT=1)
g4=$(var nwg4 CLN=1 BT=1 BN=208 GROUP_M=4)
g16=$(var nwg16 CLN=1 BT=1 BN=208 GROUP_M=16)
hd=build/hp5dev/head.cu
ev bf16-4099.log 60 $d $nw $bt $hd $g4 $g16 --problem gemm --dtype bf16 --shape 4099x4097x4095
ev ab-bf16-4099.log 60 $nw $d --ab --problem gemm --dtype bf16 --shape 4099x4097x4095
ev fp16-4099.log 40 $d $nw --problem gemm --dtype fp16 --shape 4099x4097x4095
for dt in bf16 fp16; do
for sh in 64x65x63 1000x999x777 300x4097x130; do ev small.log 30 $nw --problem gemm --dtype $dt --shape $sh; done
ev big.log 40 $nw $d --problem gemm --dtype $dt --shape 4096x4096x4096
ev big.log 40 $nw --problem gemm --dtype $dt --shape 8191x8193x8191
done
nc def $d
nc nw $nw
ev small.log 30 $bt --problem gemm --dtype bf16 --shape 1000x999x777
ev bf16-4099.log 60 $d $nw --problem gemm --dtype bf16 --shape 4099x4097x4095
nc bt $bt
