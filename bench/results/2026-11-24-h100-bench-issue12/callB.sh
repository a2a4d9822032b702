#!/bin/bash
# lead call B: issue 12 bench cases (same-run ratios) + issue 10 size/long-K checks
set -u
BD=$PWD/build/lead-bundle
K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
R=/tmp/runsB; mkdir -p $R $OUT/b
S=$OUT/b/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ)" > $S
# issue 10 item 5: 32768x32x32768 fp32 (was refused 'too large')
$K run --problem gemm --dtype fp32 --shape 32768x32x32768 --time 20s --seed 1 --runs-dir $R --name big > $OUT/b/run-big.log 2>&1
echo "32768x32x32768: rc=$?" >> $S; $K status $R/big >> $S 2>&1
# issue 12 cases, ${CASE_S:-25}s each, through kevo bench (ratios measured in the same worker)
cd $BD
C=""
for c in gemm-fp32-4096x4096x4096 gemm-fp32-6144x2048x3072 gemm-fp32-6001x5999x6007 gemm-fp32-384x384x262144 \
         gemm-bf16-4096x4096x4096 gemm-bf16-8192x8192x8192 gemm-bf16-4099x4097x4095 gemm-fp16-4099x4097x4095 \
         softmax-fp32-8192x4097 softmax-bf16-4096x50001 softmax-fp32-1024x262144 softmax-fp32-256x400000 softmax-bf16-1024x262144; do
  C="$C --case $c"
done
timeout 520 $K bench --suite $BD/suite.json $C --time ${CASE_S:-25}s --runs-dir $R/bench --out $OUT/b/bench > $OUT/b/bench.log 2>&1
echo "bench rc=$?" >> $S
tail -30 $OUT/b/bench.log >> $S
# long K: every 'wrong' outcome of the long-K case, with its detail
echo "long-K outcomes: $(grep -o '"outcome":"[a-z_]*"' $R/bench/gemm-fp32-384x384x262144/journal.jsonl | sort | uniq -c | tr '\n' ' ')" >> $S
grep '"outcome":"wrong"' $R/bench/gemm-fp32-384x384x262144/journal.jsonl | head -5 | cut -c1-500 >> $S
tar czf $OUT/b/runsB.tgz --exclude='*/sources/*' -C $R . 2>/dev/null
tar czf $OUT/callB.tgz -C $OUT b
