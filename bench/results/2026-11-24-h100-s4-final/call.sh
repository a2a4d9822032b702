#!/bin/bash
# lead call 2: the GPU suite at the final code, --gpus, mpirun -np 2 on one
# GPU, a mid-run kill -9 / resume / replay, and two issue-12 bench cases
set -u
BD=$PWD/build/lead-bundle; K=$BD/kevo
MB=$PWD/build/lead-mpi-bundle
export KEVO_CACHE_DIR=/tmp/kc
O=$OUT/l2; mkdir -p $O; S=$O/summary.txt
D=$(mktemp -d /tmp/kevo-l2.XXXXXX)
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" > $S
$K doctor > $O/doctor.log 2>&1; echo "doctor rc=$? $(grep -c '^PASS' $O/doctor.log) PASS lines" >> $S
( cd $BD && OUT=/tmp/gt KEVO=$K timeout 330 tests/gpu/run.sh ) > $O/gpu-test.log 2>&1
echo "gpu-test rc=$? $(grep -c '^PASS' /tmp/gt/summary.txt) PASS $(grep -c '^FAIL' /tmp/gt/summary.txt) FAIL" >> $S
grep '^FAIL' /tmp/gt/summary.txt >> $S; cp /tmp/gt/summary.txt $O/gpu-test-summary.txt 2>/dev/null
# mid-run kill -9, resume, replay (GEMM fp32, 300 evaluations)
$K run --problem gemm --dtype fp32 --shape 2048x2048x2048 --evals 300 --seed 7 --runs-dir $D --name kr --quiet > $O/kr-run.log 2>&1 &
P=$!; sleep 9; kill -9 $P; pkill -9 -f '__worker' ; sleep 1
n1=$(grep -c '"type":"eval"' $D/kr/journal.jsonl)
$K resume $D/kr --quiet > $O/kr-resume.log 2>&1; rc=$?
echo "kill -9 after $n1 of 300 evaluations; resume rc=$rc; now $(grep -c '"type":"eval"' $D/kr/journal.jsonl) evaluations" >> $S
$K replay $D/kr > $O/kr-replay.log 2>&1; echo "replay rc=$?: $(head -1 $O/kr-replay.log)" >> $S
# --gpus all on the one GPU, and mpirun -np 2 (both ranks on it)
A="--problem softmax --dtype fp32 --shape 4096x4096 --seed 5 --runs-dir $D --quiet"
$K run $A --time 30s --gpus all --name ga > $O/ga.log 2>&1; echo "--gpus all rc=$?" >> $S
$K status $D/ga 2>&1 | grep -iE "evaluations|throughput" >> $S
$K replay $D/ga > $O/ga-replay.log 2>&1; echo "replay ga rc=$?: $(head -1 $O/ga-replay.log)" >> $S
R="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && R="$R --allow-run-as-root"
echo "mpirun: $(mpirun --version 2>&1 | head -1); ldd: $(ldd $MB/kevo | grep -E 'libmpi|not found' | tr -s ' ' | tr '\n' ';')" >> $S
timeout 100 mpirun $R -np 2 $MB/kevo run $A --time 35s --name two > $O/mpi.log 2>&1; echo "mpirun -np 2 rc=$?" >> $S
$K status $D/two 2>&1 | grep -iE "evaluations|throughput" >> $S
echo "per rank: $(grep -o '"gpu":[0-9]*' $D/two/journal.jsonl | sort | uniq -c | tr -s ' ' | tr '\n' ';')" >> $S
$K replay $D/two > $O/mpi-replay.log 2>&1; echo "replay two rc=$?: $(head -1 $O/mpi-replay.log)" >> $S
# issue 12 follow-ups: fp32 odd shape (50541f6), softmax very long rows
( cd $BD && $K bench --case gemm-fp32-6001x5999x6007 --case softmax-fp32-256x400000 --time 25s --runs-dir $D/bench --out $O/bench ) > $O/bench.log 2>&1
echo "bench rc=$?" >> $S; cat $O/bench/*.md 2>/dev/null | grep -E "^\|" >> $S
tar czf $OUT/l2.tgz -C $OUT l2
