# call c3 (hp5): GROUP_M=32 vs 16 at CLN=1 BT=1 BN=208 (A/B), the default at 8191 in the same worker, n32 correctness
d=$(var def)
n16=$(var n16 CLN=1 BT=1 BN=208 GROUP_M=16)
n32=$(var n32 CLN=1 BT=1 BN=208 GROUP_M=32)
ev ab-bf16-4099.log 60 $n32 $n16 --ab --problem gemm --dtype bf16 --shape 4099x4097x4095
ev big.log 60 $d $n16 $n32 --problem gemm --dtype bf16 --shape 8191x8193x8191
ev fp16-4099.log 40 $d $n16 $n32 --problem gemm --dtype fp16 --shape 4099x4097x4095
for dt in bf16 fp16; do
for sh in 64x65x63 1000x999x777 300x4097x130; do ev small.log 30 $n32 --problem gemm --dtype $dt --shape $sh; done
done
ev big.log 60 $d $n16 $n32 --problem gemm --dtype fp16 --shape 8191x8193x8191
ev big.log 40 $n32 --problem gemm --dtype bf16 --shape 4096x4096x4096
