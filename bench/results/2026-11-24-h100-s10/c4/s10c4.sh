#!/bin/bash
# session 10 H100 call 4: GROUP_M as an int argument in hgemm_wgmma,
# hgemm_mma, sgemm_tiled (and sgemm_splitk). (1) default points, this
# commit's templates against 5042871's, interleaved (--ab) and launch by
# launch against cuBLAS (--pairs 20); (2) one-GPU bf16 GEMM 4096^3 runs,
# 90 s, seed 11, own empty compile caches, old build then new;
# (3) gemm_families.sh.
set -u
NB=$PWD/build/lead-bundle; OB=$PWD/build/old-bundle
L=$OUT/c4; mkdir -p $L /tmp/v; S=$L/summary.txt
echo "new $(cat $NB/COMMIT) old $(cat $OB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1) $(nproc) CPUs" > $S
snap() { tar czf $OUT/c4.tgz -C $OUT c4 2>/dev/null; }
ab() { local t=$1 dt=$2 sh=$3; cp $OB/templates/gemm/$t.cu /tmp/v/${t}_old.cu
  echo "### $t $dt $sh ($SECONDS s)" >> $L/ab.log
  timeout 100 $NB/kevo eval /tmp/v/${t}_old.cu $NB/templates/gemm/$t.cu --ab --pairs 20 \
    --problem gemm --dtype $dt --shape $sh --seed 5 --timeout-ms 8000 >> $L/ab.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ab.log; snap; }
ab hgemm_wgmma bf16 4096x4096x4096
ab hgemm_wgmma fp16 4096x4096x4096
ab hgemm_wgmma bf16 8192x8192x8192
ab hgemm_mma bf16 4096x4096x4096
ab sgemm_tiled fp32 4096x4096x4096
grep -v "^  " $L/ab.log | sed 's|/work/main/build/lead-bundle/templates/gemm/||' | cut -c1-220 >> $S
run() { local tag=$1 B=$2 dt=$3 sh=$4 T=$5; D=$(mktemp -d /tmp/kevo-r.XXXXXX)
  KEVO_CACHE_DIR=$D/cache $B/kevo run --problem gemm --dtype $dt --shape $sh --seed 11 --time $T --runs-dir $D \
    --templates-dir $B/templates --quiet --name r > $L/run-$tag.log 2>&1
  echo "run $tag $dt $sh $T rc=$? ($SECONDS s)" >> $S
  $B/kevo status $D/r > $L/$tag.status 2>&1; grep -E "evaluations|throughput|best" $L/$tag.status >> $S
  gzip -c $D/r/journal.jsonl > $L/$tag.journal.jsonl.gz; rm -rf $D; snap; }
run old-bf16 $OB bf16 4096x4096x4096 90s
run new-bf16 $NB bf16 4096x4096x4096 90s
( cd $NB && OUT=/tmp/gf KEVO=$NB/kevo timeout 100 sh tests/gpu/gemm_families.sh ) > $L/gemm-families.log 2>&1
echo "gemm_families rc=$? ($SECONDS s)" >> $S; cp /tmp/gf/gemm_families.txt $L/ 2>/dev/null
grep -E "non-ok" $L/gemm-families.log >> $S
snap; cat $S
