# Several GPUs from one coordinator (--gpus), with the test evaluator as
# one independent instance per GPU: the same journal decisions as one GPU
# (the per-result "gpu" member aside), a GPU that dies mid-run is reported
# and its work redistributed, kill -9 / resume, kevo replay, bad lists.
. tests/cli/lib.inc
ROUNDS=${KILL_ROUNDS:-5}
ARGS="--evaluator test --problem gemm --shape 1000x1000x1000 --seed 11 \
      --generations 8 --islands 3 --population 8 --offspring 10 --quiet"
export KEVO_TEST_EVAL_US=1000
# the journal without wall-clock members and without "gpu"
canon() { $CANON "$1" | sed -E 's/,"gpu":[0-9]+//'; }

$T run $ARGS --runs-dir "$SCRATCH" --name one || { fail "one-GPU run"; finish; }
canon "$SCRATCH/one/journal.jsonl" >"$SCRATCH/one.canon"
total=$(grep -c '"type":"eval"' "$SCRATCH/one/journal.jsonl")
grep -q '"gpu":' "$SCRATCH/one/journal.jsonl" &&
    fail "a run without --gpus records no gpu member"

$T run $ARGS --gpus 0,1,2 --runs-dir "$SCRATCH" --name three 2>"$SCRATCH/err" ||
    { fail "--gpus 0,1,2 run"; cat "$SCRATCH/err"; finish; }
canon "$SCRATCH/three/journal.jsonl" >"$SCRATCH/three.canon"
if cmp -s "$SCRATCH/one.canon" "$SCRATCH/three.canon"; then
    ok "--gpus 0,1,2 makes the same journal as one GPU ($total evaluations; gpu member aside)"
else
    fail "--gpus 0,1,2 journal differs from one GPU"
    diff "$SCRATCH/one.canon" "$SCRATCH/three.canon" | head -5
fi
used=$(grep -o '"gpu":[0-9]*' "$SCRATCH/three/journal.jsonl" | sort -u | tr '\n' ' ')
n_rec=$(grep '"type":"eval"' "$SCRATCH/three/journal.jsonl" | grep -c '"gpu":[012][,}]')
[ "$used" = '"gpu":0 "gpu":1 "gpu":2 ' ] && [ "$n_rec" = "$total" ] &&
    ok "every evaluation records which of the three GPUs measured it, all three used" ||
    fail "gpu members: '$used', $n_rec of $total records"
flat() { tr -d ' \t\n' <"$1"; }
flat "$SCRATCH/three/manifest.json" | grep -q '"gpus":\[{"gpu":0,"label":"gpu0"},{"gpu":1,.*{"gpu":2,' &&
    flat "$SCRATCH/three/manifest.json" | grep -q '"gpus":"0,1,2"' &&
    ok "the manifest keeps the GPU list in the spec and one entry per GPU in the environment" ||
    fail "manifest lacks the GPU list"

$T run $ARGS --gpus 0 --runs-dir "$SCRATCH" --name zero &&
    canon "$SCRATCH/zero/journal.jsonl" | cmp -s - "$SCRATCH/one.canon" &&
    ok "--gpus 0 (the fan-out over one GPU) makes the same journal" ||
    fail "--gpus 0 journal differs"

KEVO_TEST_GPUS=2 $T run $ARGS --gpus all --generations 1 --runs-dir "$SCRATCH" --name all &&
    flat "$SCRATCH/all/manifest.json" | grep -q '"gpus":\[{"gpu":0,"label":"gpu0"},{"gpu":1,"label":"gpu1"}\]' &&
    ok "--gpus all uses every GPU there is (2 here)" || fail "--gpus all"

# GPU 1 dies at its 30th evaluation: reported, its candidate measured
# elsewhere, GPU 1 dropped, the run ends normally with the same journal
if KEVO_TEST_GPU_FAIL=1:30 $T run $ARGS --gpus 0,1,2 --runs-dir "$SCRATCH" --name dies 2>"$SCRATCH/err"; then
    canon "$SCRATCH/dies/journal.jsonl" | cmp -s - "$SCRATCH/one.canon" &&
        ok "a GPU that dies mid-run: the run goes on with the others, same journal" ||
        fail "journal after a GPU died differs"
    grep -q "gpu 1 failed on candidate" "$SCRATCH/err" &&
        grep -q "gpu 1 failed 3 times in a row: dropped, 2 left" "$SCRATCH/err" &&
        ok "the dead GPU is reported on stderr and dropped" ||
        { fail "no report of the dead GPU"; cat "$SCRATCH/err"; }
    g1=$(grep -c '"gpu":1[,}]' "$SCRATCH/dies/journal.jsonl")
    [ "$g1" -le 29 ] && ok "the dead GPU measured nothing after it died ($g1 before)" ||
        fail "gpu 1 has $g1 results"
else
    fail "run with a dying GPU failed"; cat "$SCRATCH/err"
fi

# the same with --json: the failure is also a progress event on stdout
ARGS_J=$(echo "$ARGS" | sed 's/--quiet/--json/')
if KEVO_TEST_GPU_FAIL=2:10 $T run $ARGS_J --gpus 0,1,2 --generations 2 --runs-dir "$SCRATCH" \
       --name dies_json >"$SCRATCH/out" 2>"$SCRATCH/err"; then
    grep -q '^{"event":"gpu","message":"gpu 2 failed 3 times in a row: dropped, 2 left"}$' "$SCRATCH/out" &&
        [ "$(grep -c 'kevo: gpu 2 failed 3 times' "$SCRATCH/err")" = 1 ] &&
        ok "with --json a dead GPU is a progress event on stdout and one line on stderr" ||
        { fail "--json report of a dead GPU"; grep gpu "$SCRATCH/out" "$SCRATCH/err" | head; }
else
    fail "--json run with a dying GPU failed"; cat "$SCRATCH/err"
fi

# the only GPU dies: the run stops with an error and resumes on a good one
if KEVO_TEST_GPU_FAIL=0:40 $T run $ARGS --gpus 0 --runs-dir "$SCRATCH" --name lone 2>"$SCRATCH/err"; then
    fail "a run whose only GPU died succeeded"
elif grep -q "no evaluator left (gpu 0 failed" "$SCRATCH/err"; then
    ok "with no GPU left the run fails and says why"
    $T resume "$SCRATCH/lone" --quiet --gpus 1,2 &&
        canon "$SCRATCH/lone/journal.jsonl" | cmp -s - "$SCRATCH/one.canon" &&
        ok "...and resumes on two other GPUs (resume --gpus 1,2) to the same journal, nothing lost or repeated" ||
        fail "resume after the last GPU died"
    grep '"type":"eval"' "$SCRATCH/lone/journal.jsonl" | tail -n 3 | grep -q '"gpu":[12][,}]' &&
        ok "...where GPUs 1 and 2 measured the rest" || fail "resume --gpus not used"
else
    fail "the error does not say no GPU is left"; cat "$SCRATCH/err"
fi

# kill -9 at random moments of a three-GPU run, then resume
i=0
while [ $i -lt $ROUNDS ]; do
    i=$((i + 1))
    name=k$i
    $T run $ARGS --gpus 0,1,2 --runs-dir "$SCRATCH" --name $name &
    pid=$!
    sleep "0.$(( ($(od -An -N2 -tu2 /dev/urandom) % 50) + 5 ))"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    if [ -d "$SCRATCH/$name" ]; then
        $T resume "$SCRATCH/$name" --quiet || { fail "round $i: resume failed"; continue; }
    else
        $T run $ARGS --gpus 0,1,2 --runs-dir "$SCRATCH" --name $name ||
            { fail "round $i: run failed"; continue; }
    fi
    canon "$SCRATCH/$name/journal.jsonl" | cmp -s - "$SCRATCH/one.canon" ||
        { fail "round $i: resumed three-GPU journal differs"; }
    [ $i = 1 ] && cp -r "$SCRATCH/$name" "$SCRATCH/resumed"
    rm -rf "$SCRATCH/$name"
done
[ $FAILED = 0 ] && ok "kill -9 / resume of a three-GPU run equals one GPU, $ROUNDS rounds"

# Ctrl-C reaches the coordinator, not the GPU threads: it stops after the
# evaluations under way (exit 130) and the run resumes to the same journal.
# (20 ms an evaluation, about 2 s for the run, and the signal sent once
# the journal holds an evaluation: after a fixed 0.4 s a faster build
# had already finished)
KEVO_TEST_EVAL_US=20000 $T run $ARGS --gpus 0,1,2 --runs-dir "$SCRATCH" --name sigint 2>"$SCRATCH/err" &
pid=$!
await_evals "$SCRATCH/sigint/journal.jsonl" 1
kill -INT $pid
wait $pid; rc=$?
if [ $rc = 130 ] && grep -q "stopping after the current evaluation" "$SCRATCH/err"; then
    $T resume "$SCRATCH/sigint" --quiet &&
        canon "$SCRATCH/sigint/journal.jsonl" | cmp -s - "$SCRATCH/one.canon" &&
        ok "SIGINT stops a three-GPU run with exit 130; resume gives the same journal" ||
        fail "resume after SIGINT of a three-GPU run"
else
    fail "SIGINT of a three-GPU run: exit $rc"; cat "$SCRATCH/err"
fi

# profiles (new bests) are taken on a multi-GPU run too, the same ones as
# on one GPU (the fan-out passes profile requests to its first live GPU)
KEVO_TEST_PROFILE=1 $T run $ARGS --runs-dir "$SCRATCH" --name p1 2>"$SCRATCH/err" &&
    KEVO_TEST_PROFILE=1 $T run $ARGS --gpus 0,1 --runs-dir "$SCRATCH" --name p2 2>>"$SCRATCH/err" ||
    { fail "profiled runs"; cat "$SCRATCH/err"; }
np1=$(grep -c '"type":"profile"' "$SCRATCH/p1/journal.jsonl")
canon "$SCRATCH/p1/journal.jsonl" | grep '"type":"profile"' >"$SCRATCH/p1.prof"
canon "$SCRATCH/p2/journal.jsonl" | grep '"type":"profile"' >"$SCRATCH/p2.prof"
[ "$np1" -gt 0 ] && cmp -s "$SCRATCH/p1.prof" "$SCRATCH/p2.prof" &&
    ok "--gpus 0,1 takes the same $np1 profiles as one GPU" ||
    { fail "profiles of a two-GPU run ($np1 on one GPU)"; diff "$SCRATCH/p1.prof" "$SCRATCH/p2.prof" | head -4; }

# kevo replay reproduces the decisions of a multi-GPU run
n_gen=$(grep -c '"type":"gen"' "$SCRATCH/three/journal.jsonl")
"$KEVO" replay "$SCRATCH/three" >"$SCRATCH/out" 2>&1 &&
    grep -q "^identical: $total evaluations, $n_gen generations" "$SCRATCH/out" &&
    ok "kevo replay of the three-GPU run is identical" ||
    { fail "replay of the three-GPU run"; cat "$SCRATCH/out"; }
"$KEVO" replay "$SCRATCH/dies" >"$SCRATCH/out" 2>&1 &&
    ok "kevo replay of the run whose GPU died is identical" ||
    { fail "replay of the run with a dead GPU"; cat "$SCRATCH/out"; }

# the time budget ends a generation on time across GPUs too (the fan-out's
# set_deadline): nothing starts after it, every candidate not measured by
# then is deferred at the end, the generation is finished, the replay is
# identical, and a resume with a larger budget measures those first.
# Generation 0 (about 100 candidates at 100 ms on two GPUs) outlasts 2 s.
END_ARGS="--evaluator test --problem gemm --shape 1000x1000x1000 --seed 11 \
          --islands 2 --population 40 --offspring 40 --quiet"
t0=$(date +%s%N)
KEVO_TEST_EVAL_US=100000 $T run $END_ARGS --generations 0 --time 2s --gpus 0,1 \
    --runs-dir "$SCRATCH" --name end || fail "--gpus 0,1 run --time 2s"
t1=$(date +%s%N)
ended_on_two "$SCRATCH/end/journal.jsonl" >"$SCRATCH/cnt" 2>"$SCRATCH/err" &&
    ok "--gpus 0,1 stopped by --time: the generation ends with the candidates not measured by then deferred at the end ($(cat "$SCRATCH/cnt"))" ||
    { fail "end deferrals on two GPUs"; cat "$SCRATCH/err"; }
# the budget is 2 s; start-up, breeding and the 100 ms under way come on
# top (a loaded machine: generous)
[ $(( (t1 - t0) / 1000000 )) -lt 6000 ] &&
    ok "...and the run ended near its budget ($(( (t1 - t0) / 1000000 )) ms)" ||
    fail "a 2 s run on two GPUs took $(( (t1 - t0) / 1000000 )) ms"
"$KEVO" replay "$SCRATCH/end" 2>&1 | grep -q "^identical" &&
    ok "...and replays identical" || fail "replay of a two-GPU run ended on time"
G0=$(grep '"type":"gen"' "$SCRATCH/end/journal.jsonl" | tail -n 1 | sed -E 's/.*"gen":([0-9]+).*/\1/')
KEVO_TEST_EVAL_US=2000 $T resume "$SCRATCH/end" --gpus 0,1 --time 120s \
    --generations $((G0 + 2)) --quiet || fail "resume --gpus 0,1 --time 120s"
python3 - "$SCRATCH/end/journal.jsonl" 2>"$SCRATCH/err" <<'PY' &&
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
end = [r for r in rs if r["type"] == "defer" and r.get("end") is True]
g = end[0]["gen"]
d = [r["hash"] for r in rs if r["type"] == "defer" and r["gen"] == g]
nxt = [r for r in rs if r["type"] in ("eval", "defer") and r["gen"] == g + 1]
assert [r["hash"] for r in nxt[:len(d)]] == d, "the deferred are not the next generation's first children"
PY
    "$KEVO" replay "$SCRATCH/end" 2>&1 | grep -q "^identical" &&
    ok "resumed on two GPUs with time to spare, the next generation measures them first; replay identical" ||
    { fail "resume after end deferrals on two GPUs"; cat "$SCRATCH/err"; }

# bad lists: clear errors, nothing run
expect_fail "--gpus with a GPU named twice is refused" "GPU 1 is named twice" \
    $T run $ARGS --gpus 1,1 --runs-dir "$SCRATCH" --name bad1
expect_fail "--gpus that is not a list is refused" "--gpus 'x': expected 'all' or GPU numbers" \
    $T run $ARGS --gpus x --runs-dir "$SCRATCH" --name bad2
expect_fail "--gpus past the last GPU is refused" "there is no GPU 9 (4 found" \
    $T run $ARGS --gpus 0,9 --runs-dir "$SCRATCH" --name bad3
expect_fail "--gpus with --simulate is refused" "--gpus and --simulate: a simulated run uses no GPU" \
    $T run --simulate "$SCRATCH/one" --gpus 0,1 --runs-dir "$SCRATCH" --name bad5
if [ ! -e /dev/nvidiactl ]; then # the real kevo, here without a driver
    "$KEVO" run --problem gemm --shape 64x64x64 --gpus 0,1 --runs-dir "$SCRATCH" \
        --name nodev 2>"$SCRATCH/err"
    rc=$?
    [ $rc = 3 ] && grep -q "GPU 0: no NVIDIA driver" "$SCRATCH/err" && [ ! -d "$SCRATCH/nodev" ] &&
        ok "kevo run --gpus without a driver: exit 3, the GPU named, no run directory" ||
        { fail "kevo --gpus without a driver (exit $rc)"; cat "$SCRATCH/err"; }
fi
printf '{"problem":"gemm","shape":"64x64x64","gpus":3}\n' >"$SCRATCH/bad.json"
expect_fail "a spec whose gpus is a number is refused with file and line" \
    "bad.json:1: 'gpus' must be" $T run --spec "$SCRATCH/bad.json" --evaluator test \
    --runs-dir "$SCRATCH" --name bad4
finish
