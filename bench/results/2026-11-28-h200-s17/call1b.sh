#!/bin/bash
# call 1b (session 17, nvidia-h200-x4): call 1 stopped at its 600 s limit
# inside its second round (softmax head and --fill 0, both --pipeline 1
# runs): the same four runs again, 35 s each, killed at 80 s, with
# --json progress, a process tree and stacks of whatever still runs at
# 75 s; then tests/gpu/softmax_wave.sh (killed at 150 s); lscpu.
set -u
R=$PWD; W=/tmp/w1b; D=/tmp/d1b; rm -rf $W $D; mkdir -p $W $D
export LD_LIBRARY_PATH=$R/build/bundle
( sleep ${GUARD:-290}; tar czf $OUT/partial.tgz -C $W . ) & guard=$!
H=$R/build/bundle
{ date -u; nproc; lscpu; $H/kevo --version; which gdb eu-stack py-spy; } > $W/env.txt 2>&1
run1() { # slot label problem dtype shape [flags]
  local s=$1 lab=$2 p=$3 dt=$4 sh=$5; shift 5; local n=$p-$dt-$lab
  ( cd $H && CUDA_VISIBLE_DEVICES=$s KEVO_CACHE_DIR=$D/c-$n taskset -c $((16*s))-$((16*s+15)) \
      timeout -s KILL 80 ./kevo run --problem $p --dtype $dt --shape $sh --seed 11 --time 35s "$@" \
      --templates-dir $H/templates --runs-dir $D --name $n --json > $W/$n.json 2> $W/$n.err
    echo "exit $?" >> $W/$n.err
    timeout 30 ./kevo status $D/$n > $W/$n.status 2>&1
    gzip -c $D/$n/journal.jsonl > $W/$n.journal.jsonl.gz ) &
}
run1 0 head softmax fp32 4096x4096
run1 1 f0 softmax fp32 4096x4096 --fill 0
run1 2 p1 gemm fp32 4096x4096x4096 --pipeline 1
run1 3 p1 softmax fp32 4096x4096 --pipeline 1
sleep 75
{ ps -eo pid,ppid,stat,etime,pcpu,wchan:30,args --forest | grep -v "ps -eo"; nvidia-smi; } > $W/ps75.txt 2>&1
for p in $(pgrep -f "kevo run"); do
  echo "== $p $(tr '\0' ' ' < /proc/$p/cmdline)"; cat /proc/$p/wchan; echo
  for t in /proc/$p/task/*; do echo "$t $(cat $t/wchan) $(cat $t/stat | cut -d' ' -f3)"; done
  command -v gdb >/dev/null && timeout 20 gdb -batch -p $p -ex "thread apply all bt" 2>&1 | head -80
done > $W/stacks75.txt 2>&1
for p in $(pgrep -f "kevo.*worker\|kevo-worker\|worker"); do echo "== $p $(tr '\0' ' ' < /proc/$p/cmdline | head -c 200)"; done >> $W/stacks75.txt 2>&1
wait
( cd $R; CUDA_VISIBLE_DEVICES=0 KEVO=$H/kevo OUT=$W/B timeout -s KILL 150 sh tests/gpu/softmax_wave.sh > $W/B-wave.log 2>&1; echo "exit $?" >> $W/B-wave.log )
kill $guard 2>/dev/null; tar czf $OUT/call1b.tgz -C $W . ; ls -la $OUT
