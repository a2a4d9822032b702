#!/bin/bash
# perf helper call 2: softmax_bulk CL=16 points; sgemm_warptile default candidates;
# then kevo bench with the best softmax_bulk point and BN=128 MINB=2 as the defaults
set -u
BD=$PWD/build/perf-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c2; mkdir -p $L /tmp/v
echo "templates $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader)" > $L/summary.txt
var() { local t=$1 name=$2 kv=$3; local f=/tmp/v/$name.cu; cp $t $f
  for p in ${kv//,/ }; do k=${p%%=*}; v=${p#*=}
    sed -i -E "s/^(\/\/ kevo: param $k .*default=)[0-9]+/\1$v/" $f; done; echo $f; }
best() { grep ': ok ' $1 | awk '{print $3, $1}' | sort -g | head -1 | cut -d' ' -f2 | tr -d ':'; }
SB=$BD/templates/softmax/softmax_bulk.cu
F=""
for p in "a8d1:CL=8,DROP=1" "a8d0:CL=8,DROP=0" "b16n2d0:CL=16,NBUF=2,DROP=0" "b16n2d1:CL=16,NBUF=2,DROP=1" \
         "c16b2d0:CL=16,BPS=2,DROP=0" "c16b2d1:CL=16,BPS=2,DROP=1" "c16b2d2:CL=16,BPS=2,DROP=2" \
         "d16n2t512:CL=16,NBUF=2,DROP=0,THREADS=512" "d16n2t256:CL=16,NBUF=2,DROP=0,THREADS=256" "e16n2nch4:CL=16,NBUF=2,DROP=0,NCH=4"; do
  F="$F $(var $SB f32_${p%%:*} ${p#*:})"; done
timeout 80 $K eval $F --problem softmax --dtype fp32 --shape 256x400000 > $L/bulk-fp32-256x400000.log 2>&1
F=""
for p in "a8n1d0:CL=8,DROP=0" "a8n1d1:CL=8,DROP=1" "b16n1d0:CL=16,NBUF=1,DROP=0" "b16n2d0:CL=16,NBUF=2,DROP=0" "b16n3d0:CL=16,NBUF=3,DROP=0" \
         "b16n1d1:CL=16,NBUF=1,DROP=1" "c16b2d0:CL=16,BPS=2,DROP=0" "c16b3d0:CL=16,BPS=3,DROP=0" "d8t512:CL=8,DROP=0,THREADS=512"; do
  F="$F $(var $SB bf_${p%%:*} ${p#*:})"; done
timeout 70 $K eval $F --problem softmax --dtype bf16 --shape 1024x262144 > $L/bulk-bf16-1024x262144.log 2>&1
SW=$BD/templates/gemm/sgemm_warptile.cu
O=$(var $SW sw_old BN=256,MINB=1); N=$(var $SW sw_new BN=128,MINB=2)
for s in 384x384x262144 4096x4096x4096 6144x2048x3072 6001x5999x6007; do
  timeout 30 $K eval $O $N --problem gemm --dtype fp32 --shape $s > $L/sgemm-$s.log 2>&1; done
# a template library with the winners as defaults
T2=/tmp/t2; rm -rf $T2; cp -r $BD/templates $T2
B32=$(best $L/bulk-fp32-256x400000.log); BBF=$(best $L/bulk-bf16-1024x262144.log)
echo "best fp32 bulk: $B32; best bf16 bulk: $BBF" >> $L/summary.txt
[ -n "$B32" ] && cp $B32 $T2/softmax/softmax_bulk.cu && cp $B32 $L/bulk-default-used.cu
cp $N $T2/gemm/sgemm_warptile.cu
cd $BD
timeout 150 $K bench --suite $BD/suite.json --templates-dir $T2 --case softmax-fp32-256x400000 --case softmax-bf16-1024x262144 \
   --case gemm-fp32-384x384x262144 --case gemm-fp32-4096x4096x4096 --time 25s --runs-dir /tmp/rb --out $L/bench > $L/bench.log 2>&1
echo "bench rc=$?" >> $L/summary.txt
grep -h "ok \|wrong\|cheat\|error\|crash\|baseline copy\|baseline cublas" $L/*.log | cut -c1-200 >> $L/summary.txt
tail -8 $L/bench.log >> $L/summary.txt
for c in /tmp/rb/*/; do gzip -c $c/journal.jsonl > $L/$(basename $c)-journal.jsonl.gz 2>/dev/null; done
tar czf $OUT/c2.tgz -C $OUT c2
