#!/bin/bash
# lead H100 call 2 (session 8): kevo bench (with kevo verify of each best,
# 10 rounds) on the issue-12 GEMM cases other than 4096^3/8192^3 (call 1):
# fp32 square, rectangular, odd, long K; bf16/fp16 odd. CASES and T override.
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
N=${N:-c2}; L=$OUT/$N; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
CASES=${CASES:-"gemm-fp32-4096x4096x4096 gemm-fp32-6144x2048x3072 gemm-fp32-6001x5999x6007 gemm-fp32-384x384x262144 gemm-bf16-4099x4097x4095 gemm-fp16-4099x4097x4095"}
A=(); for c in $CASES; do A+=(--case $c); done
D=$(mktemp -d /tmp/kevo-b.XXXXXX)
( cd $BD && timeout ${TO:-560} $K bench "${A[@]}" --time ${T:-40s} --runs-dir $D --out $L/bench ) > $L/bench.log 2>&1
echo "bench rc=$? ($SECONDS s)" >> $S; cat $L/bench/*.md 2>/dev/null | grep -E "^\|" >> $S
for r in $D/*/; do n=$(basename $r); cp $r/verify.json $L/verify-$n.json 2>/dev/null; cp $r/best.json $L/best-$n.json 2>/dev/null
  $K status $r > $L/status-$n.txt 2>&1; done
tar czf $OUT/$N.tgz -C $OUT $N
cat $S
