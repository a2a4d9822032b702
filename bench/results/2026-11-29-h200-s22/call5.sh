#!/bin/bash
# session 22, call 5 (nvidia-h200, 1 GPU, 16 cores): HEAD ("fill0": generation
# 0 measures launch-only neighbours of its points while compiles run;
# after the fixes that call 4 led to)
# against bd5872d ("end", call 3's; no 1281cf3 run: device time) on
# softmax fp32 4096^2 and fp32 GEMM 4096^3, T s each (default 35), seed 11, a fresh
# compile cache per run, one run at a time. The run directories come back whole (replay and
# status run on a CPU: no GPU needed); each run's --json progress is
# stamped with the seconds since its process started (*.events).
set -u
R=$PWD; W=/tmp/w5; D=/tmp/d5; rm -rf $W $D; mkdir -p $W $D
N=$R/.dev-s22/bundle; P=/tmp/end; mkdir -p $P && cp -a $N/. $P/ && cp $R/.dev-s22/kevo-end $P/kevo

export LD_LIBRARY_PATH=$N
{ date -u; uname -r; nvidia-smi --query-gpu=index,name,driver_version,uuid --format=csv; nproc; $N/kevo --version; $P/kevo --version; } > $W/env.txt 2>&1
stamp() { python3 -u -c 'import sys,time
t0=float(sys.argv[1])
for l in sys.stdin: sys.stdout.write("%.3f %s" % (time.time()-t0, l))' "$1"; }
T=${T:-35}s
one() { # label bundle problem dtype shape [flags]
  local lab=$1 bd=$2 p=$3 dt=$4 sh=$5; shift 5; local n=$p-$dt-$lab
  ( cd $bd; t0=$(date +%s.%N)
    KEVO_CACHE_DIR=$D/c-$n timeout 300 ./kevo run --problem $p --dtype $dt --shape $sh --seed 11 --time $T --templates-dir $bd/templates --runs-dir $D --name $n --json "$@" 2>&1 | stamp $t0 > $W/$n.events
    echo "exit ${PIPESTATUS[0]} wall $(python3 -c "import time;print(round(time.time()-$t0,3))")" >> $W/$n.events )
}
S="softmax fp32 4096x4096"; G="gemm fp32 4096x4096x4096"
one fill0 $N $S; one end $P $S
one fill0 $N $G; one end $P $G
for n in {softmax,gemm}-fp32-{fill0,end}; do [ -d $D/$n ] && tar czf $W/$n.run.tgz -C $D $n; done
tar czf $OUT/call5.tgz -C $W . ; ls -la $OUT
