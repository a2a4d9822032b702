# The surrogate's forest with a PRNG a tree (spec forest_apart, issue 32,
# src/search/surrogate.c): the trees grow on the engine's CPUs at once,
# and the run's decisions do not depend on how many there are. The key is
# recorded; a run with forest_apart 0 (the one PRNG of runs made before
# it; a manifest without the key reads so) decides otherwise, and each
# replays identical.
. tests/cli/lib.inc
K="$KEVO"
ARGS="--evaluator test --problem softmax --shape 4096x4096 --seed 11 \
      --generations 5 --quiet"
export KEVO_TEST_IDLE_MS=5 KEVO_TEST_PHASE_MS=40,2,1
$T run $ARGS --runs-dir "$SCRATCH" --name a || { fail "setup run"; finish; }
# (on the first CPU this process may use)
cpu0=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
taskset -c "$cpu0" $T run $ARGS --runs-dir "$SCRATCH" --name one || fail "run on one CPU"
printf '{"forest_apart": 0}\n' >"$SCRATCH/fa0.json"
$T run $ARGS --spec "$SCRATCH/fa0.json" --runs-dir "$SCRATCH" --name z || fail "forest_apart 0 run"
for n in a one z; do $CANON "$SCRATCH/$n/journal.jsonl" >"$SCRATCH/$n.canon"; done
grep -Eq '"forest_apart":[[:space:]]*1' "$SCRATCH/a/manifest.json" &&
    grep -Eq '"forest_apart":[[:space:]]*0' "$SCRATCH/z/manifest.json" &&
    ok "forest_apart is 1 by default and recorded in the manifest" ||
    fail "manifest forest_apart"
if [ "$(nproc)" -lt 2 ]; then
    echo "SKIP one CPU against several: this process may use one CPU"
elif [ -s "$SCRATCH/a.canon" ] && cmp -s "$SCRATCH/a.canon" "$SCRATCH/one.canon"; then
    ok "the same decisions with the forest grown on one CPU and on $(nproc)"
else
    fail "the run on one CPU decided otherwise"
fi
! cmp -s "$SCRATCH/a.canon" "$SCRATCH/z.canon" &&
    ok "forest_apart 0 (one PRNG for all trees) decides otherwise" ||
    fail "forest_apart 0 made the same journal"
without_key forest_apart "$SCRATCH/z" "$SCRATCH/zk"
without_key forest_apart "$SCRATCH/a" "$SCRATCH/ak"
$K replay "$SCRATCH/a" 2>&1 | grep -q "^identical" &&
    $K replay "$SCRATCH/z" 2>&1 | grep -q "^identical" &&
    $K replay "$SCRATCH/zk" 2>&1 | grep -q "^identical" &&
    ! $K replay "$SCRATCH/ak" >/dev/null 2>&1 &&
    ok "both replay identical; a manifest without the key replays with one PRNG" ||
    fail "forest_apart replay"
finish
