# call c1 (hp2): EPI=1 first run; SKIP, SK with clusters (last-arriver), pdl
d=$(var def)
dp=$(var dp PDL)
ds4=$(var ds4 STAGES=4)
s=$(var s SKIP=1)
k=$(var k SK=1)
ks=$(var ks SK=1 SKIP=1)
e4=$(var e4 EPI=1 STAGES=4)
e3=$(var e3 EPI=1 STAGES=3)
e4s=$(var e4s EPI=1 STAGES=4 SKIP=1)
e4ks=$(var e4ks EPI=1 STAGES=4 SKIP=1 SK=1)
e4ksp=$(var e4ksp EPI=1 STAGES=4 SKIP=1 SK=1 PDL)
ksp=$(var ksp SK=1 SKIP=1 PDL)
e4g8=$(var e4g8 EPI=1 STAGES=4 GROUP_M=8)
c1ks=$(var c1ks CLUSTER=1 SK=1 SKIP=1)
c1eks=$(var c1eks CLUSTER=1 SK=1 SKIP=1 EPI=1 STAGES=4)
esk=$(var esk EPI=1 BM=256 BN=128 STAGES=3 GROUP_M=8 CLUSTER=1 SK=1)
e64=$(var e64 EPI=1 BM=64 BN=64 CONSUMERS=1 STAGES=4 CLUSTER=1 SKIP=1 SK=1)
b2=$(var b2 BM=256 BN=128 STAGES=4 GROUP_M=8 CLUSTER=1 SK=1 SKIP=1 EPI=0)
ev small.log 40 $e4 $e4ks $e4ksp $ksp $esk $e64 $c1eks --problem gemm --dtype bf16 --shape 64x65x63
ev small.log 40 $e4 $e4ks $ksp $esk $e64 $c1eks --problem gemm --dtype fp16 --shape 1000x999x777
ev small.log 40 $e4 $e4ks $ksp $esk $e64 --problem gemm --dtype bf16 --shape 300x4097x130
ev small.log 40 $e4ksp $ksp $c1eks --problem gemm --dtype fp16 --shape 64x65x63
ev small.log 40 $d $e4 $e4ks $ksp --problem gemm --dtype bf16 --shape 4096x4096x4096
ev bf16-4099.log 150 $d $dp $ds4 $s $k $ks $ksp $e4 $e3 $e4s $e4ks $e4ksp $e4g8 $c1ks $c1eks $b2 --problem gemm --dtype bf16 --shape 4099x4097x4095
ev fp16-4099.log 40 $d $e4ks $ksp $e4ksp --problem gemm --dtype fp16 --shape 4099x4097x4095
ev big.log 60 $d $e4ks $ksp $e4ksp --problem gemm --dtype bf16 --shape 8191x8193x8191
nc e4 $e4
nc ks $ks
nc e4ks $e4ks
