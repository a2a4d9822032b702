# NOT RUN (hp had no device call left): the call that would check and
# time EPI=1. Use like the cN-points.sh files: copy to build/hp/dev/points.sh
# (or edit call.sh's source line), bundle, then
# run(command="CALLN=c5 bash build/hp/dev/call.sh",
#     carry=["build/hp-bundle","build/hp/dev"], timeout_s=240).
d=$(var def)
ds4=$(var ds4 STAGES=4)
e4=$(var e4 EPI=1 STAGES=4)
e4g4=$(var e4g4 EPI=1 STAGES=4 GROUP_M=4)
e3=$(var e3 EPI=1 STAGES=3)
esk=$(var esk EPI=1 BM=256 BN=128 STAGES=3 GROUP_M=8 CLUSTER=1 SK=1)
e64=$(var e64 EPI=1 BM=64 BN=64 CONSUMERS=1 STAGES=4 CLUSTER=1)
ev small.log 40 $e4 $esk $e64 --problem gemm --dtype bf16 --shape 64x65x63
ev small.log 40 $e4 $esk $e64 --problem gemm --dtype fp16 --shape 1000x999x777
ev small.log 40 $e4 $esk $e64 --problem gemm --dtype bf16 --shape 300x4097x130
ev small.log 40 $e4 $esk --problem gemm --dtype bf16 --shape 4096x4096x4096
ev bf16-4099.log 90 $d $ds4 $e4 $e4g4 $e3 $esk --problem gemm --dtype bf16 --shape 4099x4097x4095
ev fp16-4099.log 40 $d $e4 --problem gemm --dtype fp16 --shape 4099x4097x4095
ev big.log 50 $d $e4 --problem gemm --dtype bf16 --shape 8191x8193x8191
ev ab-bf16-4099.log 60 $e4 $d --ab --problem gemm --dtype bf16 --shape 4099x4097x4095
