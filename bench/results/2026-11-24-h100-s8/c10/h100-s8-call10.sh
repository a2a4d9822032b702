#!/bin/bash
# lead H100 call 10 (session 8): kevo eval --pairs 40 (each kernel against
# cuBLAS launch by launch) for hgemm_wgmma's default (d0), the s8 bench
# winners' point (win: LEAN MCK EPW L2P=64 GROUP_M=16) and LEAN=1, at
# bf16/fp16 4096^3 (two workers each) and bf16 8192^3.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c10; mkdir -p $L /tmp/v; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | head -1)" > $S
var() { local name=$1; shift; local f=/tmp/v/$name.cu; cp $BD/templates/gemm/hgemm_wgmma.cu $f
  for p in "$@"; do k=${p%%=*}; v=${p#*=}
    grep -q "^// kevo: param $k " $f || echo "NO PARAM $k in $name" >> $S
    sed -i -E "s/^(\/\/ kevo: param $k .*default=)[0-9]+/\1$v/" $f; done; }
var d0; var win LEAN=1 MCK=1 EPW=1 L2P=64 GROUP_M=16; var lean LEAN=1
V=/tmp/v
for sh_dt in "4096x4096x4096 bf16" "4096x4096x4096 fp16" "4096x4096x4096 bf16" "4096x4096x4096 fp16" "8192x8192x8192 bf16"; do
  set -- $sh_dt
  echo "### $1 $2 ($SECONDS s)" >> $L/pairs.log
  timeout 120 $K eval $V/d0.cu $V/win.cu $V/lean.cu --problem gemm --shape $1 --dtype $2 --pairs 40 >> $L/pairs.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/pairs.log
done
grep -h "^###\|baseline cublas\|: ok \|^pairs:\|^rc " $L/pairs.log | cut -c1-200 >> $S
tar czf $OUT/c10.tgz -C $OUT c10
cat $S
