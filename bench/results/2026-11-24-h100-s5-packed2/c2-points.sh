# call c2 (hp2): SKIP per warpgroup (hoisted), SK=2 tail split, pdl, GROUP_M with EPI=1
d=$(var def)
e4=$(var e4 EPI=1 STAGES=4)
e4p=$(var e4p EPI=1 STAGES=4 PDL)
e4g8p=$(var e4g8p EPI=1 STAGES=4 GROUP_M=8 PDL)
e4g4p=$(var e4g4p EPI=1 STAGES=4 GROUP_M=4 PDL)
e4s=$(var e4s EPI=1 STAGES=4 SKIP=1)
e4t=$(var e4t EPI=1 STAGES=4 SKIP=1 SK=2)
e4tp=$(var e4tp EPI=1 STAGES=4 SKIP=1 SK=2 PDL)
e4tg8p=$(var e4tg8p EPI=1 STAGES=4 SKIP=1 SK=2 GROUP_M=8 PDL)
e4t0p=$(var e4t0p EPI=1 STAGES=4 SKIP=0 SK=2 PDL)
s=$(var s SKIP=1)
c1e4p=$(var c1e4p CLUSTER=1 EPI=1 STAGES=4 PDL)
c1e4tp=$(var c1e4tp CLUSTER=1 EPI=1 STAGES=4 SKIP=1 SK=2 PDL)
t64=$(var t64 EPI=1 BM=64 BN=64 CONSUMERS=1 STAGES=4 CLUSTER=1 SKIP=1 SK=2 PDL)
tbm=$(var tbm BM=256 BN=128 STAGES=3 GROUP_M=8 CLUSTER=1 SKIP=1 SK=2 EPI=1 PDL)
ev small.log 40 $e4tp $e4t0p $c1e4tp $t64 $tbm --problem gemm --dtype bf16 --shape 64x65x63
ev small.log 40 $e4tp $e4t0p $c1e4tp $t64 $tbm --problem gemm --dtype fp16 --shape 1000x999x777
ev small.log 40 $e4tp $e4t0p $c1e4tp $t64 $tbm --problem gemm --dtype bf16 --shape 300x4097x130
ev small.log 40 $e4tp $c1e4tp --problem gemm --dtype bf16 --shape 1000x999x777
ev small.log 40 $e4tp $e4t0p $tbm --problem gemm --dtype fp16 --shape 4099x4097x4095
ev bf16-4099.log 150 $d $e4 $e4p $e4g8p $e4g4p $e4s $e4t $e4tp $e4tg8p $e4t0p $s $c1e4p $c1e4tp $tbm --problem gemm --dtype bf16 --shape 4099x4097x4095
ev fp16-4099.log 40 $d $e4p $e4tp $e4tg8p --problem gemm --dtype fp16 --shape 4099x4097x4095
ev big.log 60 $d $e4p $e4tp $e4tg8p --problem gemm --dtype bf16 --shape 8191x8193x8191
ev big.log 60 $d $e4p $e4tp $e4t0p --problem gemm --dtype bf16 --shape 4096x4096x4096
ev ab-bf16-4099.log 60 $e4tp $e4p --ab --problem gemm --dtype bf16 --shape 4099x4097x4095
ev ab-bf16-4099.log 60 $e4tp $d --ab --problem gemm --dtype bf16 --shape 4099x4097x4095
nc e4t $e4t
nc e4s $e4s
