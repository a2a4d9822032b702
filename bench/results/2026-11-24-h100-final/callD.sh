#!/bin/bash
set -u
BD=$PWD/build/lead-bundle
K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
mkdir -p $OUT/d; S=$OUT/d/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ)" > $S
t0=$(date +%s)
$K run --problem softmax --dtype fp32 --shape 1024x1000 --time 20s --seed 12345 --runs-dir /tmp/rd --name budget > $OUT/d/budget.log 2>&1
$K status /tmp/rd/budget >> $OUT/d/budget.log 2>&1
echo "budget run: $(( $(date +%s) - t0 )) s wall" >> $S; grep -E "generation|budget|evaluations" $OUT/d/budget.log | tail -4 >> $S
OUT=/tmp/et KEVO=$K timeout 430 tests/gpu/export_torch.sh > $OUT/d/export-torch.log 2>&1
echo "export_torch rc=$?" >> $S
grep -E "PASS|FAIL|skip" $OUT/d/export-torch.log | cut -c1-220 >> $S
