#!/bin/sh
# issue 14 item 2 on the H100: kevo run under mpirun -np 2, both ranks on
# the one GPU (end to end: proxy, serving rank, journal, replay); a
# single-process run of the same spec before it for reference.
B=build/mpih-bundle
D=$(mktemp -d /tmp/kevo-mpi.XXXXXX)   # never a warm machine's leftovers
set -x
id -u; command -v mpirun; mpirun --version | head -1; nvidia-smi -L
ldd $B/kevo | grep -E 'mpi|open-|hwloc|not found'
if ldd $B/kevo | grep -q 'not found'; then
    L=$(dirname "$(readlink -f "$(command -v mpirun)")")/../lib
    export LD_LIBRARY_PATH=$L:${LD_LIBRARY_PATH:-}
    ldd $B/kevo | grep -E 'mpi|not found'
fi
export KEVO_CACHE_DIR=/tmp/kc
A="--problem softmax --dtype fp32 --shape 4096x4096 --generations 0 --runs-dir $D --seed 5 --quiet"
R="--oversubscribe --bind-to none"
[ "$(id -u)" = 0 ] && R="$R --allow-run-as-root"
timeout 75 $B/kevo run $A --time 35s --name one; echo "one rc=$?"
timeout 90 mpirun $R -np 2 $B/kevo run $A --time 35s --name two; rc=$?
echo "two rc=$rc"
if [ $rc != 0 ] && [ ! -s $D/two/journal.jsonl ]; then
    rm -rf $D/two
    timeout 90 mpirun $R --mca pml ob1 --mca btl self,tcp -np 2 $B/kevo run $A --time 35s --name two
    echo "two (ob1/tcp) rc=$?"
fi
$B/kevo status $D/two
for n in one two; do
    echo "== $n: $(grep -c '"type":"eval"' $D/$n/journal.jsonl) evaluations, $(grep -c '"outcome":"ok"' $D/$n/journal.jsonl) ok; per gpu (= rank):"
    grep -o '"gpu":[0-9]*' $D/$n/journal.jsonl | sort | uniq -c
done
grep -A3 '"gpus"' $D/two/manifest.json | head -20
$B/kevo replay $D/two | tail -3
tar czf "$OUT/runs.tgz" -C "$D" one/manifest.json one/journal.jsonl two/manifest.json two/journal.jsonl
