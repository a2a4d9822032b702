#!/bin/bash
# session 12 H100 call 11: hgemm_packed SK=4 (split-K for few tiles, the
# S ranges sharing the reduction) on odd long-K bf16/fp16 shapes:
# correctness, launch by launch against cuBLAS, 30 s kevo runs.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo; V=$PWD/build/c11v
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c11; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT)+packed SK=4 $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c11.tgz -C $OUT c11 2>/dev/null; }
ev() { local log=$1 to=$2; shift 2; echo "### $* ($SECONDS s)" >> $L/$log; timeout $to $K eval "$@" --timeout-ms 8000 >> $L/$log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/$log; snap; }
for sh in 512x512x32767 1000x1000x16383 777x1001x20001 256x256x65535 100x200x8191 64x64x64 300x4000x20001 4099x4097x4095 1x1x9; do
  ev check.log 90 $V/s4.cu $V/s4s.cu $V/s4n.cu $V/s4e0.cu $V/s4b0.cu --problem gemm --dtype bf16 --shape $sh; done
for sh in 512x512x32767 1000x1000x16383; do ev check.log 60 $V/s4.cu $V/s4s.cu $V/s4n.cu --problem gemm --dtype fp16 --shape $sh; done
for sh in 512x512x32767 1000x1000x16383 256x256x65535 777x1001x20001; do
  ev pairs.log 90 $V/p0.cu $V/sm.cu $V/s4.cu $V/s4s.cu $V/s4n.cu $V/s4e0.cu --problem gemm --dtype bf16 --shape $sh --pairs 10; done
for sh in 512x512x32767 256x256x65535; do
  D=$(mktemp -d /tmp/kr.XXXX); echo "### run $sh ($SECONDS s)" >> $L/runs.log
  ( cd $BD && KEVO_CACHE_DIR=$D/cache timeout 60 $K run --problem gemm --dtype bf16 --shape $sh --time 30s --seed 11 --runs-dir $D --name r --quiet --templates-dir $V/tpl ) >> $L/runs.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/runs.log; $K status $D/r >> $L/runs.log 2>&1; cp $D/r/best.json $L/best-$sh.json 2>/dev/null; snap; done
echo "checks: $(grep -c ': ok ' $L/check.log) ok, non-ok: $(grep -E '\.cu: [a-z_]+ ' $L/check.log | grep -vc ': ok ')" >> $S
grep -E '\.cu: [a-z_]+ ' $L/check.log | grep -v ': ok ' | cut -c1-200 >> $S
grep -h "^###\|pairs:\|best:" $L/pairs.log $L/runs.log | sed "s|$V/||g" | cut -c1-200 >> $S
snap; cat $S
