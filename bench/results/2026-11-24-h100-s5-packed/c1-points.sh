# call c1 (template md5 06c600f4..., the first FUSE version: packers load
# through registers, PU chunks a lane; not committed) - sourced by call.sh
BASE="BM=128 BN=192 STAGES=5 CLUSTER=2 SK=0"
base=$(var base $BASE GROUP_M=1 FUSE=0)
def=$(var def)
f20=$(var f20 $BASE GROUP_M=8 FUSE=1 PRE=20)
f10=$(var f10 $BASE GROUP_M=8 FUSE=1 PRE=10)
f0=$(var f0 $BASE GROUP_M=8 FUSE=1 PRE=0)
f30=$(var f30 $BASE GROUP_M=8 FUSE=1 PRE=30)
f20g4=$(var f20g4 $BASE GROUP_M=4 FUSE=1 PRE=20)
f20p4=$(var f20p4 $BASE GROUP_M=8 FUSE=1 PRE=20 PU=4)
f20g1=$(var f20g1 $BASE GROUP_M=1 FUSE=1 PRE=20)
fsk=$(var fsk FUSE=1 PRE=20)
ev small.log 40 $f20 $fsk $f0 --problem gemm --dtype bf16 --shape 64x65x63
ev small.log 40 $f20 $fsk $f0 --problem gemm --dtype fp16 --shape 1000x999x777
ev bf16-4099.log 120 $base $def $f20 $f10 $f0 $f30 $f20g4 $f20p4 $f20g1 $fsk --problem gemm --dtype bf16 --shape 4099x4097x4095
ev fp16-4099.log 40 $base $f20 $f10 --problem gemm --dtype fp16 --shape 4099x4097x4095
ev big.log 50 $f20 $fsk --problem gemm --dtype bf16 --shape 8191x8193x8191
ev big.log 30 $f20 $fsk --problem gemm --dtype bf16 --shape 4096x4096x4096
