# kevo run / resume as one MPI job (src/mpi/, make MPI=1) under Open MPI's
# mpirun with the test evaluator, 2 to 4 ranks on this host: the journal's
# decisions equal a single-process run with the same seed and budget (the
# per-result "gpu", the rank that measured it, aside) and every rank
# measured some of them (1 ms per evaluation, so each takes a share); a
# rank whose evaluator dies is reported and its work goes to the others,
# with the same journal; kill -9 of the coordinator or of a serving rank
# ends the job, and `kevo resume` under mpirun (with another rank count)
# continues with nothing lost or repeated; `kevo replay` (no MPI) proves
# the decisions. Run by `make mpi-test`; skipped by tests/run-cli.sh's
# plain build.
. tests/cli/lib.inc
if ! command -v mpirun >/dev/null 2>&1 || ! ldd "$T" 2>/dev/null | grep -q libmpi; then
    echo "skip mpi.sh: $T is not an MPI build or mpirun is missing (make mpi-test)"
    exit 0
fi
MPIRUN="mpirun --oversubscribe --bind-to none"
[ "$(id -u)" = 0 ] && MPIRUN="$MPIRUN --allow-run-as-root"
# deferral and optional candidates off where journals are compared: under
# MPI a batch's last candidates are given back when nothing moved for
# 100 ms, which a loaded machine can cause at any time, and which optional
# ones are measured before the rest is depends on timing (each has its own
# case below)
printf '{"defer": 0, "fill0": 0, "fill_spare": 0}\n' >"$SCRATCH/nodefer.json"
ARGS="--evaluator test --problem gemm --shape 1000x1000x1000 --seed 11 \
      --generations 8 --islands 3 --population 8 --offspring 10 --quiet \
      --spec $SCRATCH/nodefer.json"
# the journal without wall-clock members and without the measuring rank
canon() { $CANON "$1" | sed 's/,"gpu":[0-9]*//'; }

# the proxy and the serve loop on their own (tests/tools/mpi_proxy.c)
if $MPIRUN -np 3 "$BUILD/tests/mpi_proxy" >"$SCRATCH/proxy.out" 2>&1; then
    grep '^ok' "$SCRATCH/proxy.out"
else
    fail "mpi_proxy"; cat "$SCRATCH/proxy.out"
fi

$T run $ARGS --runs-dir "$SCRATCH" --name ref || { fail "reference run"; finish; }
canon "$SCRATCH/ref/journal.jsonl" >"$SCRATCH/ref.canon"
total=$(grep -c '"type":"eval"' "$SCRATCH/ref.canon")

for np in 2 3 4; do
    if ! KEVO_TEST_EVAL_US=1000 $MPIRUN -np $np $T run $ARGS --runs-dir "$SCRATCH" --name np$np \
            >"$SCRATCH/np$np.out" 2>&1; then
        fail "mpirun -np $np kevo run"; tail -20 "$SCRATCH/np$np.out"; continue
    fi
    canon "$SCRATCH/np$np/journal.jsonl" >"$SCRATCH/np$np.canon"
    if cmp -s "$SCRATCH/ref.canon" "$SCRATCH/np$np.canon"; then
        ok "mpirun -np $np: the journal equals the single-process run ($total evaluations)"
    else
        fail "mpirun -np $np: the journal differs from the single-process run"
        diff "$SCRATCH/ref.canon" "$SCRATCH/np$np.canon" | head -5
    fi
    r=0 missing=""
    while [ $r -lt $np ]; do
        grep -q "\"gpu\":$r[,}]" "$SCRATCH/np$np/journal.jsonl" || missing="$missing $r"
        r=$((r + 1))
    done
    [ -z "$missing" ] && ok "mpirun -np $np: every rank measured candidates (journal 'gpu' = rank)" \
        || fail "mpirun -np $np: ranks$missing measured nothing"
done
# new bests are profiled under mpirun as in one process (rank 0's GPU
# profiles, through its queue and the fan-out)
if KEVO_TEST_PROFILE=1 $T run $ARGS --runs-dir "$SCRATCH" --name pref >/dev/null 2>&1 &&
        KEVO_TEST_PROFILE=1 KEVO_TEST_EVAL_US=1000 $MPIRUN -np 2 $T run $ARGS \
            --runs-dir "$SCRATCH" --name pnp2 >"$SCRATCH/pnp2.out" 2>&1; then
    canon "$SCRATCH/pref/journal.jsonl" | grep '"type":"profile"' >"$SCRATCH/pref.prof"
    canon "$SCRATCH/pnp2/journal.jsonl" | grep '"type":"profile"' >"$SCRATCH/pnp2.prof"
    [ -s "$SCRATCH/pref.prof" ] && cmp -s "$SCRATCH/pref.prof" "$SCRATCH/pnp2.prof" &&
        ok "mpirun -np 2 takes the same profiles as one process" ||
        fail "mpirun -np 2 profiles differ from one process ($(wc -l <"$SCRATCH/pref.prof") there)"
else
    fail "profiled mpirun"; tail -5 "$SCRATCH/pnp2.out"
fi
# ranks sharing a host share the GPU list the launcher gave them
if CUDA_VISIBLE_DEVICES=3,5 $MPIRUN -np 2 $T run $ARGS --runs-dir "$SCRATCH" \
        --name vis >/dev/null 2>&1 &&
        grep -q '"cuda_visible_devices":[[:space:]]*"5"' "$SCRATCH/vis/manifest.json"; then
    ok "CUDA_VISIBLE_DEVICES=3,5 and two ranks on one host: rank 1 takes GPU 5"
else
    fail "rank 1 did not take the second listed GPU"; grep -A8 '"gpus"' "$SCRATCH/vis/manifest.json" | tail -8
fi

# one candidate at a time per rank instead of a queue of 8: same journal
if KEVO_TEST_EVAL_US=1000 KEVO_MPI_DEPTH=1 $MPIRUN -np 3 $T run $ARGS \
        --runs-dir "$SCRATCH" --name depth1 >"$SCRATCH/depth1.out" 2>&1 &&
        canon "$SCRATCH/depth1/journal.jsonl" | cmp -s "$SCRATCH/ref.canon" -; then
    ok "a queue depth of 1 per rank: the same journal"
else
    fail "KEVO_MPI_DEPTH=1: the journal differs or the run failed"; tail "$SCRATCH/depth1.out"
fi
grep -q '"mpi_rank":[[:space:]]*1,' "$SCRATCH/np2/manifest.json" &&
    grep -q '"host":[[:space:]]*"' "$SCRATCH/np2/manifest.json" &&
    ok "the manifest lists each rank with its host" ||
    { fail "the manifest lacks the serving rank"; grep gpus "$SCRATCH/np2/manifest.json"; }

expect_fail "srun's tasks without an MPI process manager are refused" \
    "without an MPI process manager" \
    env SLURM_STEP_NUM_TASKS=4 $T run $ARGS --runs-dir "$SCRATCH" --name slurm
[ ! -e "$SCRATCH/slurm" ] && ok "... before anything is written" || fail "srun refusal wrote a run"

# a rank whose evaluator dies after 4 evaluations (the test evaluator's
# KEVO_TEST_GPU_FAIL for its GPU 0): reported, its work redistributed
GARGS="$ARGS --gpus 0"
$T run $GARGS --runs-dir "$SCRATCH" --name gref >/dev/null 2>&1 &&
    canon "$SCRATCH/gref/journal.jsonl" >"$SCRATCH/gref.canon" || fail "--gpus 0 reference run"
if KEVO_TEST_EVAL_US=1000 $MPIRUN -np 2 $T run $GARGS --runs-dir "$SCRATCH" --name dies : \
        -np 1 env KEVO_TEST_GPU_FAIL=0:5 $T run $GARGS --runs-dir "$SCRATCH" \
        --name dies >"$SCRATCH/dies.out" 2>&1; then
    canon "$SCRATCH/dies/journal.jsonl" >"$SCRATCH/dies.canon"
    cmp -s "$SCRATCH/gref.canon" "$SCRATCH/dies.canon" &&
        ok "a rank whose GPU dies: same journal, its work done by the other ranks" ||
        { fail "a rank whose GPU dies: the journal differs"; diff "$SCRATCH/gref.canon" "$SCRATCH/dies.canon" | head -5; }
    [ "$(grep -c "^kevo: rank 2 (.*): .*; its work goes to the other ranks" "$SCRATCH/dies.out")" = 1 ] &&
        ok "rank 0 reports the failing rank, once" ||
        { fail "no report of the failing rank"; cat "$SCRATCH/dies.out"; }
    n2=$(grep -c '"gpu":2[,}]' "$SCRATCH/dies/journal.jsonl")
    [ "$n2" -le 4 ] && ok "the failing rank measured only what it finished ($n2)" ||
        fail "the failing rank has $n2 results"
else
    fail "mpirun with a failing rank"; tail -20 "$SCRATCH/dies.out"
fi

# a pid of the job's rank $2 among mpirun $1's processes ('' if none yet)
rank_pid() {
    for p in $(pgrep -P "$1"); do
        if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null |
                grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
            echo "$p"; return
        fi
    done
}
# kill -9 of rank $1 once the journal holds $2 records, then resume under
# mpirun -np $3
kill_round() {
    name=kill$1-$3
    KEVO_TEST_EVAL_US=20000 $MPIRUN -np 3 $T run $ARGS --runs-dir "$SCRATCH" \
        --name $name >"$SCRATCH/$name.out" 2>&1 &
    job=$!
    w=0
    while [ $w -lt 400 ] && [ "$(cat "$SCRATCH/$name/journal.jsonl" 2>/dev/null | wc -l)" -lt $2 ]; do
        sleep 0.05; w=$((w + 1))
    done
    pid=$(rank_pid $job $1)
    [ -n "$pid" ] && kill -9 "$pid"
    wait $job && { fail "kill -9 of rank $1: the job did not fail (killed: '$pid')"; return; }
    [ -f "$SCRATCH/$name/manifest.json" ] || { fail "kill -9 of rank $1: no run yet"; return; }
    n=$(grep -c '"type":"eval"' "$SCRATCH/$name/journal.jsonl")
    if ! $MPIRUN -np $3 $T resume "$SCRATCH/$name" --quiet >"$SCRATCH/$name.res" 2>&1; then
        fail "mpirun -np $3 kevo resume after kill -9 of rank $1"; tail "$SCRATCH/$name.res"; return
    fi
    canon "$SCRATCH/$name/journal.jsonl" >"$SCRATCH/$name.canon"
    cmp -s "$SCRATCH/ref.canon" "$SCRATCH/$name.canon" &&
        ok "kill -9 of rank $1 after $n of $total evaluations, resume with $3 ranks: the journal equals the uninterrupted run" ||
        { fail "kill -9 of rank $1, resume with $3 ranks: the journal differs"; diff "$SCRATCH/ref.canon" "$SCRATCH/$name.canon" | head -5; }
    R="$SCRATCH/$name"
}
kill_round 0 10 3
kill_round 1 130 2
kill_round 0 230 1
if [ -n "${R:-}" ] && "$KEVO" replay "$R" >"$SCRATCH/replay.out" 2>&1 &&
        grep -q "^identical: $total evaluations" "$SCRATCH/replay.out"; then
    ok "kevo replay (no MPI) of a killed and resumed MPI run: identical"
else
    fail "kevo replay of the MPI run"; cat "$SCRATCH/replay.out"
fi

# the time budget across ranks: each batch carries the time left, the
# ranks (and rank 0's own queue) measure nothing after it and hand back
# the rest unmeasured ("deferred" in the RESULT), so the generation ends
# with end deferrals as on one GPU; replay is identical. Generation 0
# (about 100 candidates at 100 ms on two ranks) outlasts 3 s.
END_ARGS="--evaluator test --problem gemm --shape 1000x1000x1000 --seed 11 \
          --islands 2 --population 40 --offspring 40 --quiet"
t0=$(date +%s%N)
KEVO_TEST_EVAL_US=100000 $MPIRUN -np 2 $T run $END_ARGS --generations 0 --time 3s \
    --runs-dir "$SCRATCH" --name end >"$SCRATCH/end.out" 2>&1 ||
    { fail "mpirun -np 2 kevo run --time 3s"; tail "$SCRATCH/end.out"; }
t1=$(date +%s%N)
ended_on_two "$SCRATCH/end/journal.jsonl" >"$SCRATCH/cnt" 2>"$SCRATCH/err" &&
    ok "mpirun -np 2 stopped by --time: the generation ends with the candidates not measured by then deferred at the end ($(cat "$SCRATCH/cnt")), $(( (t1 - t0) / 1000000 )) ms in all" ||
    { fail "end deferrals under MPI"; cat "$SCRATCH/err"; }
"$KEVO" replay "$SCRATCH/end" 2>&1 | grep -q "^identical" &&
    ok "...and replays identical (no MPI)" || fail "replay of an MPI run ended on time"

# deferral under MPI: a rank's queue cannot say which of its candidates
# are compiled, so once nothing is pending, at most an eighth of the batch
# is out and nothing moved for 100 ms, rank 0 gives them back (a CANCEL)
# and they come back deferred, the next generation's first children. At
# 300 ms a candidate on each of two ranks, some 100 ms of every 300 pass
# with no result (about 8 s in all). Without optional candidates: at the
# tail they keep the ranks measuring (the case after this one).
printf '{"fill0": 0, "fill_spare": 0}\n' >"$SCRATCH/nofill.json"
DEF_ARGS="--evaluator test --problem gemm --shape 1000x1000x1000 --seed 11 \
          --template sgemm_tiled --islands 1 --population 16 --offspring 16 \
          --generations 2 --quiet --spec $SCRATCH/nofill.json"
KEVO_TEST_EVAL_US=300000 $MPIRUN -np 2 $T run $DEF_ARGS --runs-dir "$SCRATCH" \
    --name def >"$SCRATCH/def.out" 2>&1 ||
    { fail "mpirun -np 2 kevo run (deferral)"; tail "$SCRATCH/def.out"; }
python3 - "$SCRATCH/def/journal.jsonl" >"$SCRATCH/cnt" 2>"$SCRATCH/err" <<'PY' &&
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
d = [r for r in rs if r["type"] == "defer" and not r.get("end") and not r.get("dropped")]
assert d, "nothing deferred"
g = d[0]["gen"]
mine = [r for r in d if r["gen"] == g]
n = sum(r["type"] in ("eval", "defer") and r["gen"] == g for r in rs)
assert 8 * len(mine) <= n, f"{len(mine)} of {n} deferred, more than an eighth"
nxt = [r["hash"] for r in rs if r["type"] in ("eval", "defer") and r["gen"] == g + 1]
assert nxt[:len(mine)] == [r["hash"] for r in mine], "not the next generation's first"
print(len(d))
PY
    ok "mpirun -np 2: a generation's last candidates still at the ranks are given back deferred ($(cat "$SCRATCH/cnt")), at most an eighth, the next generation's first" ||
    { fail "deferral under MPI"; cat "$SCRATCH/err"; }
"$KEVO" replay "$SCRATCH/def" 2>&1 | grep -q "^identical" &&
    ok "...and replays identical (no MPI)" || fail "replay of an MPI run with deferrals"

# optional candidates under MPI (fill0, fill_spare; src/gpu/holdorder.c):
# rank 0 hands one out only once its source has a binary (a result of it
# came back), one at a time, while a required one is still at a rank; the
# ones not measured when the rest is are dropped (those a rank holds are
# given back): generation 0 holds launch-only neighbours of its points,
# some measured or dropped, no required candidate is dropped, and the
# replay is identical
OPT_ARGS="--evaluator test --problem gemm --shape 1000x1000x1000 --seed 11 \
          --islands 2 --population 8 --offspring 16 --generations 3 --quiet"
KEVO_TEST_IDLE_MS=5 KEVO_TEST_EVAL_US=20000 $MPIRUN -np 2 $T run $OPT_ARGS \
    --runs-dir "$SCRATCH" --name opt >"$SCRATCH/opt.out" 2>&1 ||
    { fail "mpirun -np 2 kevo run (optional candidates)"; tail "$SCRATCH/opt.out"; }
grep -Eq '"fill0":[[:space:]]*2' "$SCRATCH/opt/manifest.json" &&
    grep -Eq '"fill_spare":[[:space:]]*2' "$SCRATCH/opt/manifest.json" &&
python3 - "$SCRATCH/opt/journal.jsonl" >"$SCRATCH/cnt" 2>"$SCRATCH/err" <<'PY' &&
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
ev = [r for r in rs if r["type"] == "eval"]
dr = [r for r in rs if r["type"] == "defer" and r.get("dropped")]
init = [r for r in ev if r["gen"] == 0 and r["mutator"] != "launch"]
hi = max(r["idx"] for r in init)
fill0 = [r for r in ev + dr if r["gen"] == 0 and r["idx"] > hi]
assert fill0, "generation 0 has no optional candidate"
byh = {r["hash"]: r for r in ev}
assert all(r["mutator"] == "launch" for r in ev if r["gen"] == 0 and r["idx"] > hi)
# a dropped one is an optional one: in generation 0 after its points
assert all(r["gen"] > 0 or r["idx"] > hi for r in dr), "a point of generation 0 dropped"
print(len([r for r in fill0 if r["type"] == "eval"]), len(dr))
PY
    ok "mpirun -np 2: optional candidates go out and the ones not reached are dropped ($(cat "$SCRATCH/cnt") measured in generation 0 / dropped)" ||
    { fail "optional candidates under MPI"; cat "$SCRATCH/err"; }
"$KEVO" replay "$SCRATCH/opt" 2>&1 | grep -q "^identical" &&
    ok "...and replays identical (no MPI)" || fail "replay of an MPI run with optional candidates"
finish
