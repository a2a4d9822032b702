#!/bin/bash
# lead H100 call 2 (session 6): (1) which hgemm_packed points with CLN/BT
# outside the measured corner fail (the first-generation points of the
# bench at 4585564, seed 1, built from the template before the corner
# constraint), at bf16 4099x4097x4095, 3 s watchdog;
# (2) the four issue-12 bf16/fp16 GEMM bench cases with the corner
# constraint in the bundle's template
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
O=$OUT/d; mkdir -p $O; S=$O/summary.txt
D=$(mktemp -d /tmp/kevo-d.XXXXXX)
echo "commit $(cat $BD/COMMIT) + corner constraint; $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" > $S
md5sum $BD/templates/gemm/hgemm_packed.cu >> $S
timeout 200 $K eval build/pts/p*.cu --problem gemm --dtype bf16 --shape 4099x4097x4095 --timeout-ms 3000 > $O/pts-4099.log 2>&1
echo "pts 4099 rc=$? ($SECONDS s)" >> $S
grep -E "^build/pts/p[0-9]+\.cu: " $O/pts-4099.log | cut -c1-200 >> $S
tar czf $OUT/d.tgz -C $OUT d
( cd $BD && $K bench --case gemm-bf16-4099x4097x4095 --case gemm-fp16-4099x4097x4095 --case gemm-bf16-4096x4096x4096 --case gemm-fp16-4096x4096x4096 --time 40s --runs-dir $D/bench --out $O/bench ) > $O/bench.log 2>&1
echo "bench rc=$? ($SECONDS s)" >> $S; cat $O/bench/*.md 2>/dev/null | grep -E "^\|" >> $S
for r in $D/bench/*/; do $K status $r >> $O/bench-status.txt 2>&1; python3 - $r >> $O/bench-outcomes.txt 2>&1 <<'PY'
import json,sys,collections
c=collections.Counter(); bad=[]
for l in open(sys.argv[1]+'/journal.jsonl'):
    r=json.loads(l)
    if r.get('type')=='eval':
        c[(r['template'],r['outcome'])]+=1
        if r['outcome'] in ('timeout','crashed','wrong'): bad.append((r['idx'],r['template'],r['outcome'],r['params']))
print(sys.argv[1], dict(c)); [print('  ',b) for b in bad]
PY
done
cat $O/bench-outcomes.txt >> $S
cat $S
tar czf $OUT/all.tgz -C $OUT d && rm -rf $OUT/d $OUT/d.tgz
