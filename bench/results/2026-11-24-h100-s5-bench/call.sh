#!/bin/bash
# lead: issue-12 bench cases at the final templates (40 s a case), one table
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
O=$OUT/b$PART; mkdir -p $O; D=$(mktemp -d /tmp/kevo-b.XXXXXX)
A=""; for c in $CASES; do A="$A --case $c"; done
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ)" > $O/summary.txt
( cd $BD && $K bench $A --time 40s --runs-dir $D/bench --out $O/bench ) > $O/bench.log 2>&1
echo "bench rc=$?" >> $O/summary.txt; cat $O/bench/*.md 2>/dev/null | grep -E "^\|" >> $O/summary.txt
cat $O/summary.txt
tar czf $OUT/b$PART.tgz -C $OUT b$PART
