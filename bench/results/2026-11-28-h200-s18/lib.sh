# lib.sh - shared by the session-18 calls: one() starts one kevo run in the
# background on a slot of the host, with a fresh compile cache: slot i (a
# number) = GPU i and its share of the CPUs (nproc / GPUs, in order);
# A = every GPU and CPU. A label ending in mpi2 runs mpirun -np 2.
# Then status, replay's first line, the manifest and the gzipped journal go
# to $W. Needs R, W, D, H (this commit's bundle, with kevo-mpi) set.
# waitruns waits for the runs started so far (never a bare `wait`: it
# would also wait for the call's guard timer).
PIDS=
NG=$(nvidia-smi -L | wc -l); NC=$(nproc); PER=$((NC / NG))
waitruns() { wait $PIDS; PIDS=; }
one() { # slot(0.. | A) label bundle problem dtype shape time [flags]
  local s=$1 lab=$2 bd=$3 p=$4 dt=$5 sh=$6 t=$7; shift 7
  local n=$p-$dt-$lab cpus devs
  case $s in A) cpus=0-$((NC - 1)); devs=$(seq -s, 0 $((NG - 1)));;
             *) cpus=$((PER * s))-$((PER * s + PER - 1)); devs=$s;; esac
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
summary() {
  for f in $W/*.status; do echo "== $(basename $f .status): $(grep -E 'evaluations:|throughput:|fill:|gpu:|best:' $f | tr -s ' ' | tr '\n' ' ')"; cat ${f%.status}.replay; done > $W/summary.txt
}
