#!/bin/bash
# perf helper s4b, device call 1: hgemm_wgmma points (incl. the new PP=1
# ping-pong consumers) for bf16/fp16 4096^3 and sgemm_warptile points for
# fp32 6001x5999x6007, each eval against cuBLAS in the same worker.
# Templates: the working tree (this call's copy); kevo: build/perf2-bundle.
set -u
BD=$PWD/build/perf2-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/d1; mkdir -p $L /tmp/v
echo "kevo $(cat $BD/COMMIT 2>/dev/null) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,clocks.sm --format=csv,noheader)" > $L/summary.txt
var() { local t=$1 name=$2; shift 2; local f=/tmp/v/$name.cu; cp $t $f
  for p in "$@"; do k=${p%%=*}; v=${p#*=}
    grep -q "^// kevo: param $k " $f || echo "NO PARAM $k in $name" >> $L/summary.txt
    sed -i -E "s/^(\/\/ kevo: param $k .*default=)[0-9]+/\1$v/" $f; done; echo $f; }
snap() { tar czf $OUT/d1.tgz -C $OUT d1 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1; echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
H=templates/gemm/hgemm_wgmma.cu
d0=$(var $H d0)
p64=$(var $H p64 PP=1 BM=64 BN=256)
p64g16=$(var $H p64g16 PP=1 BM=64 BN=256 GROUP_M=16)
p64g4=$(var $H p64g4 PP=1 BM=64 BN=256 GROUP_M=4)
p64n=$(var $H p64n PP=1 BM=64 BN=256 CLN=1)
p64c1=$(var $H p64c1 PP=1 BM=64 BN=256 CLUSTER=1)
p128=$(var $H p128 PP=1 BM=128 BN=128)
p128s6=$(var $H p128s6 PP=1 BM=128 BN=128 STAGES=6)
p128n=$(var $H p128n PP=1 BM=128 BN=128 CLN=1)
p128ns6=$(var $H p128ns6 PP=1 BM=128 BN=128 CLN=1 STAGES=6)
cn256=$(var $H cn256 BM=256 BN=128 CLN=1)
# correctness of the ping-pong points on edges first (partial tiles, a block
# with an odd number of tiles, tiles fewer than blocks)
ev edges.log 40 $p64 $p128 $p128n $p64n $p64c1 --problem gemm --dtype bf16 --shape 1000x1000x1000
ev edges.log 30 $p64 $p128ns6 --problem gemm --dtype fp16 --shape 200x136x72
ev bf16-4096.log 90 $d0 $p64 $p64g16 $p64g4 $p64n $p64c1 $p128 $p128s6 $p128n $p128ns6 $cn256 --problem gemm --dtype bf16 --shape 4096x4096x4096
best=$(grep ': ok ' $L/bf16-4096.log | awk '{print $(NF-3)+0, $1}' | sort -g | tail -1 | cut -d' ' -f2 | tr -d ':')
echo "best bf16 4096: $best" >> $L/summary.txt
ev fp16-4096.log 40 $d0 $p64 $p128 $p128ns6 $best --problem gemm --dtype fp16 --shape 4096x4096x4096
S=templates/gemm/sgemm_warptile.cu
s0=$(var $S s0)
s1=$(var $S s1 LN=4 STAGES=5 ORDER=1 SPLITK=1)
s2=$(var $S s2 LN=4 STAGES=5 ORDER=0)
s3=$(var $S s3 LN=4 STAGES=5 ORDER=2)
s4=$(var $S s4 LN=4 STAGES=4 ORDER=1)
s5=$(var $S s5 LN=4 STAGES=6 ORDER=1)
s6=$(var $S s6 LN=8 STAGES=5 ORDER=1)
s7=$(var $S s7 LN=4 STAGES=5 ORDER=1 GROUP_M=16)
s8=$(var $S s8 LN=4 STAGES=5 ORDER=1 GROUP_M=4)
s9=$(var $S s9 LN=4 STAGES=3 ORDER=1)
ev fp32-6001.log 60 $s0 $s1 $s2 $s3 $s4 $s5 $s6 $s7 $s8 $s9 --problem gemm --dtype fp32 --shape 6001x5999x6007
[ $SECONDS -lt 200 ] && ev fp32-4096.log 30 $s0 $s1 $s2 $s6 --problem gemm --dtype fp32 --shape 4096x4096x4096
[ $SECONDS -lt 220 ] && ev bf16-8192.log 40 $d0 $best --problem gemm --dtype bf16 --shape 8192x8192x8192
grep -h "^###\|: ok\|wrong\|error\|fail\|baseline\|rc " $L/*.log | cut -c1-220 >> $L/summary.txt
snap
cat $L/summary.txt
