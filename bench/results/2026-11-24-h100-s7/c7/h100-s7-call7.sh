#!/bin/bash
# lead H100 call 7 (session 7): kevo verify with the baseline timed after every round, on
# the bench's bf16 and fp16 4096^3 cases (40 s runs), 10 rounds, top 2
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
O=$OUT/v; mkdir -p $O; S=$O/summary.txt
D=$(mktemp -d /tmp/kevo-v.XXXXXX)
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" > $S
( cd $BD && $K bench --case gemm-bf16-4096x4096x4096 --case gemm-fp16-4096x4096x4096 --time 40s --runs-dir $D/bench --out $O/bench ) > $O/bench.log 2>&1
echo "bench rc=$? ($SECONDS s)" >> $S; cat $O/bench/*.md 2>/dev/null | grep -E "^\|" >> $S
tar czf $OUT/v.tgz -C $OUT v
for r in $D/bench/*/; do n=$(basename $r)
  $K verify $r --top 2 --reps 10 > $O/verify-$n.txt 2>&1; echo "verify $n rc=$? ($SECONDS s)" >> $S
  cp $r/verify.json $O/verify-$n.json 2>/dev/null
  grep -E "vs cublas|baseline|verified" $O/verify-$n.txt >> $S
done
cat $S
tar czf $OUT/v.tgz -C $OUT v && rm -rf $OUT/v
