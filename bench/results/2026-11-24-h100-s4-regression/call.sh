#!/bin/bash
# lead call 1: regression of the run-record / wire / doctor refactors on the GPU
set -u
BD=$PWD/build/lead-bundle
K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
O=$OUT/l1; mkdir -p $O
S=$O/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" > $S
$K doctor > $O/doctor.log 2>&1; echo "doctor rc=$?" >> $S
grep -E "^ *(ok|FAIL|PASS)|baseline" $O/doctor.log | cut -c1-160 >> $S
# a GEMM run killed with -9 mid-run, resumed, replayed; softmax run replayed
$K run --problem gemm --dtype fp32 --shape 4096x4096x4096 --evals 80 --seed 4 --runs-dir /tmp/r --name gk --quiet > $O/run-gk.log 2>&1 &
P=$!; sleep 20; kill -9 $P 2>/dev/null; pkill -9 -f "kevo worker" 2>/dev/null; sleep 1
n1=$(grep -c '"type":"eval"' /tmp/r/gk/journal.jsonl)
$K resume /tmp/r/gk --quiet > $O/resume-gk.log 2>&1; echo "resume rc=$? (killed after $n1 evals)" >> $S
$K status /tmp/r/gk > $O/status-gk.log 2>&1; grep -iE "evaluations|best" $O/status-gk.log | head -4 >> $S
$K replay /tmp/r/gk > $O/replay-gk.log 2>&1; echo "replay gk rc=$?: $(head -2 $O/replay-gk.log | tr '\n' ' ')" >> $S
$K run --problem softmax --dtype bf16 --shape 4096x50001 --time 25s --seed 5 --runs-dir /tmp/r --name sm --quiet > $O/run-sm.log 2>&1; echo "run sm rc=$?" >> $S
$K status /tmp/r/sm > $O/status-sm.log 2>&1; grep -iE "evaluations|best|outcomes" $O/status-sm.log | head -4 >> $S
$K replay /tmp/r/sm > $O/replay-sm.log 2>&1; echo "replay sm rc=$?: $(head -1 $O/replay-sm.log)" >> $S
$K verify /tmp/r/sm --top 2 > $O/verify-sm.log 2>&1; echo "verify sm rc=$?" >> $S; tail -3 $O/verify-sm.log >> $S
# the GPU suite
( cd $BD && OUT=/tmp/gt KEVO=$K timeout 320 tests/gpu/run.sh ) > $O/gpu-test.log 2>&1
echo "gpu-test rc=$? $(grep -c '^PASS' /tmp/gt/summary.txt) PASS $(grep -c '^FAIL' /tmp/gt/summary.txt) FAIL" >> $S
grep '^FAIL' /tmp/gt/summary.txt >> $S
cp /tmp/gt/summary.txt $O/gpu-test-summary.txt 2>/dev/null
head -3 /tmp/r/gk/journal.jsonl | cut -c1-600 > $O/journal-head.txt
tar czf $OUT/l1.tgz -C $OUT l1
