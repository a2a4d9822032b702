# call c4 (hp5): GROUP_M=32 point at fp16 4096^3 (the one shape it lacked), A/B against the default at bf16 and fp16 4099
d=$(var def)
n32=$(var n32 CLN=1 BT=1 BN=208 GROUP_M=32)
ev big.log 40 $n32 $d --problem gemm --dtype fp16 --shape 4096x4096x4096
ev ab-bf16-4099.log 60 $n32 $d --ab --problem gemm --dtype bf16 --shape 4099x4097x4095
ev ab-fp16-4099.log 60 $n32 $d --ab --problem gemm --dtype fp16 --shape 4099x4097x4095
