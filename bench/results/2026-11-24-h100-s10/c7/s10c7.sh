#!/bin/bash
# session 10 H100 call 7: GROUP_M as an int argument in hgemm_packed (both
# launches). (1) its default point against 5042871's, interleaved and
# launch by launch against cuBLAS, odd shapes; (2) one-GPU bf16 GEMM runs at
# 4099x4097x4095, 50 s, seed 11, own empty caches, old then new;
# (3) gemm_families.sh; (4) make gpu-test at this commit.
set -u
NB=$PWD/build/lead-bundle; OB=$PWD/build/old-bundle
L=$OUT/c7; mkdir -p $L /tmp/v; S=$L/summary.txt
echo "new $(cat $NB/COMMIT) old $(cat $OB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1) $(nproc) CPUs" > $S
snap() { tar czf $OUT/c7.tgz -C $OUT c7 2>/dev/null; }
ab() { local t=$1 dt=$2 sh=$3; cp $OB/templates/gemm/$t.cu /tmp/v/${t}_old.cu
  echo "### $t $dt $sh ($SECONDS s)" >> $L/ab.log
  timeout 100 $NB/kevo eval /tmp/v/${t}_old.cu $NB/templates/gemm/$t.cu --ab --pairs 20 \
    --problem gemm --dtype $dt --shape $sh --seed 5 --timeout-ms 8000 >> $L/ab.log 2>&1
  echo "rc $? ($SECONDS s)" >> $L/ab.log; snap; }
ab hgemm_packed bf16 4099x4097x4095
ab hgemm_packed fp16 4099x4097x4095
ab hgemm_packed bf16 8191x8191x8191
grep -v "^  " $L/ab.log | sed 's|/work/main/build/lead-bundle/templates/gemm/||' | cut -c1-220 >> $S
run() { local tag=$1 B=$2 dt=$3 sh=$4 T=$5; D=$(mktemp -d /tmp/kevo-r.XXXXXX)
  KEVO_CACHE_DIR=$D/cache $B/kevo run --problem gemm --dtype $dt --shape $sh --seed 11 --time $T --runs-dir $D \
    --templates-dir $B/templates --quiet --name r > $L/run-$tag.log 2>&1
  echo "run $tag $dt $sh $T rc=$? ($SECONDS s)" >> $S
  $B/kevo status $D/r > $L/$tag.status 2>&1; grep -E "evaluations|throughput|best" $L/$tag.status >> $S
  gzip -c $D/r/journal.jsonl > $L/$tag.journal.jsonl.gz; rm -rf $D; snap; }
run old-odd $OB bf16 4099x4097x4095 50s
run new-odd $NB bf16 4099x4097x4095 50s
( cd $NB && OUT=/tmp/gf KEVO=$NB/kevo timeout 100 sh tests/gpu/gemm_families.sh ) > $L/gemm-families.log 2>&1
echo "gemm_families rc=$? ($SECONDS s)" >> $S; cp /tmp/gf/gemm_families.txt $L/ 2>/dev/null
grep -E "non-ok" $L/gemm-families.log >> $S; snap
( cd $NB && OUT=/tmp/gt KEVO=$NB/kevo timeout 330 tests/gpu/run.sh ) > $L/gpu-test.log 2>&1
echo "gpu-test rc=$? $(grep -c '^PASS' /tmp/gt/summary.txt) PASS $(grep -c '^FAIL' /tmp/gt/summary.txt) FAIL ($SECONDS s)" >> $S
grep '^FAIL' /tmp/gt/summary.txt >> $S; cp /tmp/gt/summary.txt $L/gpu-test-summary.txt 2>/dev/null
gzip -f $L/gpu-test.log
snap; cat $S
