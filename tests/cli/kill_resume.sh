# kill -9 at random moments, then resume: the resumed journal must equal an
# uninterrupted run with the same seed, with no evaluation lost or repeated.
. tests/cli/lib.inc
ROUNDS=${KILL_ROUNDS:-20}
ARGS="--evaluator test --problem gemm --shape 1000x1000x1000 --seed 7 \
      --generations 10 --islands 3 --population 8 --offspring 10 --quiet"
export KEVO_TEST_EVAL_US=1500
# recorded worker idle: the fill (engine_fill.c) sizes each generation's
# launch-only neighbours from the last one's, so resume must restore it
export KEVO_TEST_IDLE_MS=3 KEVO_TEST_PHASE_MS=200,2,3
$T run $ARGS --runs-dir "$SCRATCH" --name ref || { fail "reference run"; finish; }
grep -q '"mutator":"launch"' "$SCRATCH/ref/journal.jsonl" ||
    fail "the reference run has no fill (the test would not cover it)"
$CANON "$SCRATCH/ref/journal.jsonl" >"$SCRATCH/ref.canon"
total=$(wc -l <"$SCRATCH/ref.canon")
i=0
while [ $i -lt $ROUNDS ]; do
    i=$((i + 1))
    name=k$i
    $T run $ARGS --runs-dir "$SCRATCH" --name $name &
    pid=$!
    kills=0
    # one or two kills per round at random points (10..600 ms)
    for k in 1 2; do
        sleep "0.$(( ($(od -An -N2 -tu2 /dev/urandom) % 59) + 1 ))"
        if kill -9 $pid 2>/dev/null; then kills=$((kills + 1)); fi
        wait $pid 2>/dev/null
        if [ -d "$SCRATCH/$name" ]; then
            # made atomically: a run directory always has its manifest
            [ -f "$SCRATCH/$name/manifest.json" ] ||
                fail "round $i: a half-made run directory (no manifest)"
            $T resume "$SCRATCH/$name" --quiet &
        else # killed before the run existed: nothing to resume, run it
            $T run $ARGS --runs-dir "$SCRATCH" --name $name &
        fi
        pid=$!
    done
    wait $pid || { fail "round $i: final resume failed"; continue; }
    $CANON "$SCRATCH/$name/journal.jsonl" >"$SCRATCH/$name.canon"
    if cmp -s "$SCRATCH/ref.canon" "$SCRATCH/$name.canon"; then
        :
    else
        fail "round $i: resumed journal differs ($kills kills)"
        diff "$SCRATCH/ref.canon" "$SCRATCH/$name.canon" | head -5
    fi
    rm -rf "$SCRATCH/$name"
done
[ $FAILED = 0 ] && ok "resume after kill -9 equals the uninterrupted run, $ROUNDS rounds in a row ($total records)"
finish
