# call c1 (hp3): EPO=1 (deferred epilogue) and PDLT=1 (pack triggers pdl early), new defaults
d=$(var def)
p0=$(var p0 EPO=0 PDLT=0)
e0=$(var e0 EPO=0)
t0=$(var t0 PDLT=0)
s64=$(var s64 BM=64 BN=64 CONSUMERS=1)
m2=$(var m2 BM=128 BN=64 CONSUMERS=1)
sk2=$(var sk2 SK=2)
ev small.log 40 $d $s64 $m2 $sk2 --problem gemm --dtype bf16 --shape 64x65x63
ev small.log 40 $d $s64 $m2 $sk2 --problem gemm --dtype bf16 --shape 1000x999x777
ev small.log 40 $d $s64 --problem gemm --dtype bf16 --shape 300x4097x130
ev small.log 40 $d $s64 $m2 $sk2 --problem gemm --dtype bf16 --shape 1500x4097x333
ev small.log 40 $d $s64 --problem gemm --dtype fp16 --shape 64x65x63
ev small.log 40 $d $m2 --problem gemm --dtype fp16 --shape 1000x999x777
ev small.log 40 $d --problem gemm --dtype fp16 --shape 1500x4097x333
ev bf16-4099.log 60 $d $p0 $e0 $t0 $sk2 --problem gemm --dtype bf16 --shape 4099x4097x4095
ev fp16-4099.log 40 $d $p0 --problem gemm --dtype fp16 --shape 4099x4097x4095
ev big.log 50 $d $p0 --problem gemm --dtype bf16 --shape 8191x8193x8191
ev big.log 40 $d $p0 $sk2 --problem gemm --dtype bf16 --shape 4096x4096x4096
ev big.log 40 $d --problem gemm --dtype fp16 --shape 8191x8193x8191
ev ab-bf16-4099.log 60 $d $p0 --ab --problem gemm --dtype bf16 --shape 4099x4097x4095
ev bf16-4099.log 40 $d $p0 $e0 $t0 --problem gemm --dtype bf16 --shape 4099x4097x4095
nc def $d
