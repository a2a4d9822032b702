#!/bin/bash
# lead H100 call 4 (session 7): the four issue-12 bf16/fp16 GEMM bench cases (40 s), then bf16 4096^3 again for 150 s
# hgemm_packed: BT flag fix, BT with stream-K allowed, SK=3 out, no stream-K with FOLD
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
O=$OUT/b; mkdir -p $O; S=$O/summary.txt
D=$(mktemp -d /tmp/kevo-d.XXXXXX)
echo "commit $(cat $BD/COMMIT); $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" > $S
md5sum $BD/templates/gemm/hgemm_packed.cu >> $S
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
tar czf $OUT/all.tgz -C $OUT b
( cd $BD && $K bench --case gemm-bf16-4096x4096x4096 --time 150s --runs-dir $D/bench150 --out $O/bench150 ) > $O/bench150.log 2>&1
echo "bench150 rc=$? ($SECONDS s)" >> $S; cat $O/bench150/*.md 2>/dev/null | grep -E "^\|" >> $S
for r in $D/bench150/*/; do $K status $r >> $O/bench150-status.txt 2>&1; done
cat $S
tar czf $OUT/all.tgz -C $OUT b && rm -rf $OUT/b $OUT/b.tgz
