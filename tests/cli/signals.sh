# SIGINT/SIGTERM stop cleanly (exit 130, resumable); a second SIGINT stops
# at once and the run is still resumable; both end with the same journal
# as an uninterrupted run.
. tests/cli/lib.inc
ARGS="--evaluator test --problem gemm --shape 512x384x200 --seed 3 \
      --generations 8 --islands 2 --population 6 --offspring 8 --quiet"
export KEVO_TEST_EVAL_US=3000
$T run $ARGS --runs-dir "$SCRATCH" --name ref || { fail "reference run"; finish; }
$CANON "$SCRATCH/ref/journal.jsonl" >"$SCRATCH/ref.canon"

for sig in INT TERM; do
    # (20 ms an evaluation and the signal sent once one is journalled, so
    # it lands inside the run however fast the machine)
    KEVO_TEST_EVAL_US=20000 $T run $ARGS --runs-dir "$SCRATCH" --name s$sig 2>"$SCRATCH/err$sig" &
    pid=$!
    await_evals "$SCRATCH/s$sig/journal.jsonl" 1
    kill -$sig $pid
    wait $pid; rc=$?
    if [ $rc = 130 ] && grep -q "stopping after the current evaluation" "$SCRATCH/err$sig"; then
        ok "SIG$sig stops after the current evaluation with exit 130"
    else
        fail "SIG$sig: exit $rc"; cat "$SCRATCH/err$sig"
    fi
    st=$($T status "$SCRATCH/s$sig")
    case "$st" in *"stopped, resumable"*) ok "status says a SIG$sig-stopped run is resumable";;
                  *) fail "status after SIG$sig: $st";; esac
    $T resume "$SCRATCH/s$sig" --quiet || fail "resume after SIG$sig"
    $CANON "$SCRATCH/s$sig/journal.jsonl" >"$SCRATCH/s$sig.canon"
    cmp -s "$SCRATCH/ref.canon" "$SCRATCH/s$sig.canon" \
        && ok "resume after SIG$sig gives the uninterrupted journal" \
        || fail "journal after SIG$sig differs"
done

# (each evaluation 2 s, so both signals land in one evaluation however
# soon generation 0 starts: with 0.4 s the first one's end fell between
# them on a faster machine, and the first SIGINT ended the run)
KEVO_TEST_EVAL_US=2000000 $T run $ARGS --runs-dir "$SCRATCH" --name twice 2>"$SCRATCH/err2" &
pid=$!
sleep 0.5
kill -INT $pid; sleep 0.1; kill -INT $pid
wait $pid; rc=$?
grep -q "stopped at once" "$SCRATCH/err2" && [ $rc = 130 ] \
    && ok "a second SIGINT stops at once" || { fail "second SIGINT: exit $rc"; cat "$SCRATCH/err2"; }
$T resume "$SCRATCH/twice" --quiet || fail "resume after two SIGINTs"
$CANON "$SCRATCH/twice/journal.jsonl" >"$SCRATCH/twice.canon"
cmp -s "$SCRATCH/ref.canon" "$SCRATCH/twice.canon" \
    && ok "resume after a hard stop gives the uninterrupted journal" \
    || fail "journal after two SIGINTs differs"
finish
