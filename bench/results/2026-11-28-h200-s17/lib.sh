# lib.sh - shared by call1-3.sh (session 17): one() starts one kevo run
# in the background on a slot of the 4-GPU host (0-3: that GPU and 16 CPUs;
# A / B: GPUs 0,1 / 2,3 and CPUs 0-31 / 32-63; all: every GPU and CPU),
# with a fresh compile cache; a label ending in mpi2 runs mpirun -np 2.
# Then status, replay's first line and the gzipped journal go to $W.
# Needs R, W, D, H (this commit's bundle, with kevo-mpi) set. waitruns
# waits for the runs started so far (a bare `wait` would also wait for the
# call's guard: what stopped call 1 at its time limit).
PIDS=
waitruns() { wait $PIDS; PIDS=; }
one() { # slot(0-3 | A | B) label bundle problem dtype shape time [flags]
  local s=$1 lab=$2 bd=$3 p=$4 dt=$5 sh=$6 t=$7; shift 7
  local n=$p-$dt-$lab cpus devs
  case $s in A) cpus=0-31; devs=0,1;; B) cpus=32-63; devs=2,3;; all) cpus=0-63; devs=0,1,2,3;; *) cpus=$((16*s))-$((16*s+15)); devs=$s;; esac
  local A="--problem $p --dtype $dt --shape $sh --seed 11 --time $t --templates-dir $bd/templates --runs-dir $D --name $n --quiet"
  ( cd $bd
    if [ "${lab%mpi2}" != "$lab" ]; then
      CUDA_VISIBLE_DEVICES=$devs KEVO_CACHE_DIR=$D/c-$n taskset -c $cpus timeout 300 mpirun $MR -np 2 -x KEVO_CACHE_DIR -x LD_LIBRARY_PATH -x CUDA_VISIBLE_DEVICES $H/kevo-mpi run $A "$@" > $W/$n.log 2>&1
    else
      CUDA_VISIBLE_DEVICES=$devs KEVO_CACHE_DIR=$D/c-$n taskset -c $cpus timeout 700 ./kevo run $A "$@" > $W/$n.log 2>&1
    fi
    echo "exit $?" >> $W/$n.log
    ./kevo status $D/$n > $W/$n.status 2>&1
    timeout 120 ./kevo replay $D/$n 2>&1 | head -1 > $W/$n.replay
    gzip -c $D/$n/journal.jsonl > $W/$n.journal.jsonl.gz; cp $D/$n/manifest.json $W/$n.manifest.json; rm -rf $D/c-$n ) &
  PIDS="$PIDS $!"
}
MR="--oversubscribe --bind-to none"; [ "$(id -u)" = 0 ] && MR="$MR --allow-run-as-root"
