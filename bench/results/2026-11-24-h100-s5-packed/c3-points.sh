# call c3 (template = commit 3e20e3a, md5 3a93a833...: as c2, the producer
# polls 8 flags a round trip) - sourced by call.sh. Its ncu part printed
# no metrics (--launch-count 4 without --target-processes/--log-file); the
# log is not kept.
BASE="BM=128 BN=192 STAGES=5 CLUSTER=2 SK=0"
base=$(var base $BASE GROUP_M=1 FUSE=0)
f20=$(var f20 $BASE GROUP_M=8 FUSE=1 PRE=20)
f10=$(var f10 $BASE GROUP_M=8 FUSE=1 PRE=10)
f5=$(var f5 $BASE GROUP_M=8 FUSE=1 PRE=5)
f0=$(var f0 $BASE GROUP_M=8 FUSE=1 PRE=0)
f30=$(var f30 $BASE GROUP_M=8 FUSE=1 PRE=30)
f10g4=$(var f10g4 $BASE GROUP_M=4 FUSE=1 PRE=10)
f10g16=$(var f10g16 $BASE GROUP_M=16 FUSE=1 PRE=10)
fsk=$(var fsk FUSE=1 PRE=10)
fs4=$(var fs4 BM=128 BN=192 STAGES=4 CLUSTER=2 SK=0 GROUP_M=8 FUSE=1 PRE=10)
f64=$(var f64 BM=64 BN=64 CONSUMERS=1 STAGES=4 CLUSTER=1 SK=1 GROUP_M=4 FUSE=1 PRE=5)
ev small.log 40 $f10 $fsk $f0 $f64 --problem gemm --dtype bf16 --shape 64x65x63
ev small.log 40 $f10 $fsk $f0 $f64 --problem gemm --dtype fp16 --shape 1000x999x777
ev small.log 40 $f10 $fsk $f0 $f64 --problem gemm --dtype bf16 --shape 300x4097x130
ev bf16-4099.log 120 $base $f20 $f10 $f5 $f0 $f30 $f10g4 $f10g16 $fsk $fs4 --problem gemm --dtype bf16 --shape 4099x4097x4095
ev fp16-4099.log 40 $base $f10 $f5 $f0 --problem gemm --dtype fp16 --shape 4099x4097x4095
ev big.log 50 $base $f10 $fsk --problem gemm --dtype bf16 --shape 8191x8193x8191
ev big.log 30 $f10 $fsk --problem gemm --dtype bf16 --shape 4096x4096x4096
