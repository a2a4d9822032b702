#!/bin/bash
# session 28: is the 10-minute drift the profiler's, or the machine's after
# mpirun? Two softmax fp32 4096^2 runs at once on nvidia-h200-x2, each on
# one GPU and 16 of the 32 cores (taskset, --compilers 16), seed 11, a
# fresh compile cache each, one with kevo's default profiles and one with
# --profile 0. Every 15 s a snapshot of the load, the GPUs (clocks,
# temperature, memory, compute processes) and the kevo processes (RSS,
# threads, mapped regions, open files) goes to $W/TAG.snap.
# usage: drift.sh TAG SECONDS PROFGPU   (PROFGPU 0: the profiling run on
#   GPU 0 / cores 0-15, the other on GPU 1 / cores 16-31; 1: swapped)
set -u
R=$PWD; W=/tmp/wd; D=/tmp/dd; mkdir -p $W $D
B=$R/.dev-s28/bundle
export LD_LIBRARY_PATH=$B
tag=$1; T=$2; pg=$3
snap() {
  echo "== $(date -u +%T) $1"; cat /proc/loadavg
  nvidia-smi --query-gpu=index,temperature.gpu,clocks.sm,clocks.mem,power.draw,memory.used,utilization.gpu,clocks_throttle_reasons.active --format=csv,noheader
  nvidia-smi --query-compute-apps=pid,gpu_uuid,used_memory --format=csv,noheader
  for p in $(pgrep -x kevo; pgrep -f orted; pgrep -f prterun); do
    [ -r /proc/$p/status ] || continue
    printf '%s %s rss_kB=%s thr=%s maps=%s fds=%s cpu_ticks=%s\n' $p "$(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-60)" \
      "$(awk '/VmRSS/{print $2}' /proc/$p/status)" "$(awk '/Threads/{print $2}' /proc/$p/status)" \
      "$(wc -l < /proc/$p/maps)" "$(ls /proc/$p/fd | wc -l)" "$(awk '{print $14+$15}' /proc/$p/stat)"
  done
  ps -eo pid,ppid,psr,pcpu,rss,etimes,stat,comm --sort=-pcpu | head -12
}
launch() { # name gpu cores extra
  local n=$1 g=$2 c=$3; shift 3
  ( cd $W; KEVO_CACHE_DIR=$D/c-$n setsid nohup taskset -c $c \
      $B/kevo run --problem softmax --dtype fp32 --shape 4096x4096 --seed 11 --time ${T}s --compilers 16 --gpus $g \
      --templates-dir $B/templates --runs-dir $D --name $n --quiet "$@" \
      > $W/$n.log 2>&1 < /dev/null & echo $! > $W/$n.pid )
}
if [ $pg = 0 ]; then P="0 0-15"; N="1 16-31"; else P="1 16-31"; N="0 0-15"; fi
snap before > $W/$tag.snap 2>&1
launch $tag-prof $P
launch $tag-noprof $N --profile 0
for i in $(seq 1 $((T / 15 + 2))); do
  sleep 15; snap "t+$((i * 15))" >> $W/$tag.snap 2>&1
  kill -0 $(cat $W/$tag-prof.pid) 2>/dev/null || kill -0 $(cat $W/$tag-noprof.pid) 2>/dev/null || break
done
for n in $tag-prof $tag-noprof; do
  while kill -0 $(cat $W/$n.pid) 2>/dev/null; do sleep 1; done
  { echo "== $n"; $B/kevo status $D/$n; } >> $W/drift.status 2>&1
  python3 $R/bench/results/2026-11-30-h200x2-s28/drift.py $D/$n > $W/$n.drift.json 2>&1
  rm -rf $D/c-$n
done
snap after >> $W/$tag.snap 2>&1
