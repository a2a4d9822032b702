#!/bin/bash
# lead final call (session 5): the GPU suite at the final code (incl. the
# pdl expectation files), a mid-run kill -9 / resume / replay, and the
# issue-12 bf16/fp16 GEMM bench cases with the new template defaults
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
O=$OUT/f; mkdir -p $O; S=$O/summary.txt
D=$(mktemp -d /tmp/kevo-f.XXXXXX)
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" > $S
$K doctor > $O/doctor.log 2>&1; echo "doctor rc=$? $(grep -c '^PASS' $O/doctor.log) PASS lines" >> $S
( cd $BD && OUT=/tmp/gt KEVO=$K timeout 300 tests/gpu/run.sh ) > $O/gpu-test.log 2>&1
echo "gpu-test rc=$? $(grep -c '^PASS' /tmp/gt/summary.txt) PASS $(grep -c '^FAIL' /tmp/gt/summary.txt) FAIL" >> $S
grep '^FAIL' /tmp/gt/summary.txt >> $S; grep -i 'pdl' /tmp/gt/summary.txt >> $S
cp /tmp/gt/summary.txt $O/gpu-test-summary.txt 2>/dev/null
cp /tmp/gt/eval-gemm_pdl_*.log $O/ 2>/dev/null
$K run --problem gemm --dtype fp32 --shape 2048x2048x2048 --evals 300 --seed 8 --runs-dir $D --name kr --quiet > $O/kr-run.log 2>&1 &
P=$!; sleep 9; kill -9 $P; pkill -9 -f '__worker' ; sleep 1
n1=$(grep -c '"type":"eval"' $D/kr/journal.jsonl)
$K resume $D/kr --quiet > $O/kr-resume.log 2>&1; rc=$?
echo "kill -9 after $n1 of 300 evaluations; resume rc=$rc; now $(grep -c '"type":"eval"' $D/kr/journal.jsonl) evaluations" >> $S
$K replay $D/kr > $O/kr-replay.log 2>&1; echo "replay rc=$?: $(head -1 $O/kr-replay.log)" >> $S
( cd $BD && $K bench --case gemm-bf16-4099x4097x4095 --case gemm-fp16-4099x4097x4095 --case gemm-bf16-4096x4096x4096 --case gemm-fp16-4096x4096x4096 --time 40s --runs-dir $D/bench --out $O/bench ) > $O/bench.log 2>&1
echo "bench rc=$?" >> $S; cat $O/bench/*.md 2>/dev/null | grep -E "^\|" >> $S
tar czf $OUT/f.tgz -C $OUT f
