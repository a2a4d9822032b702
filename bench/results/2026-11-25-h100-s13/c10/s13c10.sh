#!/bin/bash
# session 13 H100 call 10 (bc11599, the session's final kernels): make
# gpu-test's script; kevo bench bf16/fp16 4099x4097x4095 (40 s a case).
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
L=$OUT/c10; mkdir -p $L; S=$L/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | head -1)" > $S
snap() { tar czf $OUT/c10.tgz -C $OUT c10 2>/dev/null; }
D=$(mktemp -d /tmp/kevo-b.XXXXXX)
( cd $BD && timeout 170 $K bench --case gemm-bf16-4099x4097x4095 --case gemm-fp16-4099x4097x4095 --time 40s --runs-dir $D --out $L/bench ) > $L/bench.log 2>&1
echo "bench rc=$? ($SECONDS s)" >> $S; cat $L/bench/*.md 2>/dev/null | grep -E "^\|" >> $S
for r in $D/*/; do n=$(basename $r); cp $r/best.json $L/best-$n.json 2>/dev/null; done; snap
( cd $BD && OUT=$L/gt KEVO=$K timeout 400 bash tests/gpu/run.sh > $L/gpu-test.log 2>&1; echo "gpu-test rc $? ($SECONDS s)" >> $S )
tail -4 $L/gpu-test.log >> $S; rm -rf $L/gt; snap; tail -c 4000 $S
