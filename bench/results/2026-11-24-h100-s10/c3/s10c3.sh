#!/bin/bash
# session 10 H100 call 3: journals of one-GPU runs (this commit's build,
# seed 11, 90 s, own empty compile caches) of bf16 GEMM 4096^3 and softmax
# fp32 4096x4096: which params the evaluated points differ in, to see what
# other launch-only params would save.
set -u
NB=$PWD/build/lead-bundle
L=$OUT/c3; mkdir -p $L; S=$L/summary.txt
echo "new $(cat $NB/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1) $(nproc) CPUs" > $S
snap() { tar czf $OUT/c3.tgz -C $OUT c3 2>/dev/null; }
run() { local tag=$1 p=$2 dt=$3 sh=$4 T=$5; D=$(mktemp -d /tmp/kevo-r.XXXXXX)
  KEVO_CACHE_DIR=$D/cache $NB/kevo run --problem $p --dtype $dt --shape $sh --seed 11 --time $T --runs-dir $D \
    --templates-dir $NB/templates --quiet --name r > $L/run-$tag.log 2>&1
  echo "run $tag $p $dt $sh $T rc=$? ($SECONDS s)" >> $S
  $NB/kevo status $D/r > $L/$tag.status 2>&1; grep -E "evaluations|throughput|best" $L/$tag.status >> $S
  gzip -c $D/r/journal.jsonl > $L/$tag.journal.jsonl.gz; rm -rf $D; snap; }
run bf16-4096 gemm bf16 4096x4096x4096 90s
run softmax-4096 softmax fp32 4096x4096 90s
snap; cat $S
