#!/bin/bash
# session 12 H100 call 9: make gpu-test's script (tests/gpu/run.sh) at the
# commit, then kevo bench on the two bf16 long-K cases (40 s a case).
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
L=$OUT/c9; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c9.tgz -C $OUT c9 2>/dev/null; }
( cd $BD && OUT=$L/gt KEVO=$K timeout 420 bash tests/gpu/run.sh > $L/gpu-test.log 2>&1; echo "gpu-test rc $? ($SECONDS s)" >> $S )
tail -4 $L/gpu-test.log >> $S; snap
D=$(mktemp -d /tmp/kevo-b.XXXXXX)
( cd $BD && timeout 170 $K bench --case gemm-bf16-512x512x32768 --case gemm-bf16-1024x1024x16384 --time 40s --runs-dir $D --out $L/bench ) > $L/bench.log 2>&1
echo "bench rc=$? ($SECONDS s)" >> $S; cat $L/bench/*.md 2>/dev/null | grep -E "^\|" >> $S
for r in $D/*/; do n=$(basename $r); cp $r/verify.json $L/verify-$n.json 2>/dev/null; cp $r/best.json $L/best-$n.json 2>/dev/null; done
rm -rf $L/gt/points 2>/dev/null; snap; tail -c 4000 $S
