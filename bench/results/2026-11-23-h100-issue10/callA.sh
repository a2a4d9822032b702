#!/bin/bash
# lead call A: issue 10 done-when checks on the H100
set -u
BD=$PWD/build/lead-bundle
K=$BD/kevo
export KEVO_CACHE_DIR=/tmp/kc
R=/tmp/runsA; mkdir -p $R $OUT/a
S=$OUT/a/summary.txt
echo "commit $(cat $BD/COMMIT) $(date -u +%FT%TZ)" > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit --format=csv >> $S 2>&1
# 1. the GPU suite (adversarial verdicts, module globals, templates at default points)
( cd $BD && OUT=/tmp/gt KEVO=$K timeout 260 tests/gpu/run.sh ) > $OUT/a/gpu-test.log 2>&1
echo "gpu-test rc=$? $(grep -c '^PASS' /tmp/gt/summary.txt) PASS $(grep -c '^FAIL' /tmp/gt/summary.txt) FAIL" >> $S
cp /tmp/gt/summary.txt $OUT/a/gpu-test-summary.txt 2>/dev/null
# 2. softmax 4096x4096 with --time 3m and no --generations: runs 3 minutes, no correct kernel cheat
t0=$(date +%s)
$K run --problem softmax --dtype fp32 --shape 4096x4096 --time 3m --seed 5 --runs-dir $R --name s4096 > $OUT/a/run-s4096.log 2>&1
echo "softmax 4096x4096 --time 3m: rc=$? wall $(( $(date +%s) - t0 )) s" >> $S
$K status $R/s4096 >> $S 2>&1
# 3. softmax 2048x2048 60 s
$K run --problem softmax --dtype fp32 --shape 2048x2048 --time 60s --seed 5 --runs-dir $R --name s2048 > $OUT/a/run-s2048.log 2>&1
$K status $R/s2048 >> $S 2>&1
for n in s4096 s2048; do echo "$n outcomes: $(grep -o '"outcome":"[a-z_]*"' $R/$n/journal.jsonl | sort | uniq -c | tr '\n' ' ')" >> $S; grep '"outcome":"cheat"' $R/$n/journal.jsonl | head -3 | cut -c1-400 >> $S; done
# 4. cluster of 16 blocks (softmax_unit CL=16 vs CL=8), fp32 256x400000
for cl in 8 16; do
  $K eval $BD/templates/softmax/softmax_unit.cu --problem softmax --dtype fp32 --shape 256x400000 \
     --param CL=$cl --param THREADS=512 --param REG=4 --param SMK=96 --param MINB=2 --param ASYNC=1 >> $OUT/a/cl16.log 2>&1
done
grep -h "softmax_unit" $OUT/a/cl16.log | cut -c1-300 >> $S
tar czf $OUT/a/runsA.tgz --exclude='*/sources/*' -C $R . /tmp/gt 2>/dev/null
tar czf $OUT/callA.tgz -C $OUT a
