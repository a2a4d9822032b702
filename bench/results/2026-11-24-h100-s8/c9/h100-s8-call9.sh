#!/bin/bash
# lead H100 call 9 (session 8): kevo bench with verify's launch-by-launch
# pairing against the baseline (89fc2af): bf16/fp16 4096^3 and bf16 8192^3
# (40 s), softmax fp32 8192x4097 and the layernorm user problem (20 s).
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c9; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | head -1)" > $S
D=$(mktemp -d /tmp/kevo-b.XXXXXX)
( cd $BD && timeout 250 $K bench --case gemm-bf16-4096x4096x4096 --case gemm-fp16-4096x4096x4096 \
   --case gemm-bf16-8192x8192x8192 --time 40s --runs-dir $D --out $L/bench ) > $L/bench.log 2>&1
echo "bench rc=$? ($SECONDS s)" >> $S; cat $L/bench/*.md 2>/dev/null | grep -E "^\|" >> $S
( cd $BD && timeout 150 $K bench --case softmax-fp32-8192x4097 --case layernorm --time 20s --runs-dir $D --out $L/bench2 ) > $L/bench2.log 2>&1
echo "bench2 rc=$? ($SECONDS s)" >> $S; cat $L/bench2/*.md 2>/dev/null | grep -E "^\|" >> $S
grep -h "launch by launch\|timed after every round\|not paired" $L/bench.log $L/bench2.log >> $S
for r in $D/*/; do n=$(basename $r); cp $r/verify.json $L/verify-$n.json 2>/dev/null; cp $r/best.json $L/best-$n.json 2>/dev/null; done
tar czf $OUT/c9.tgz -C $OUT c9
cat $S
