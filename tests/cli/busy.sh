# kevo status says how idle the GPUs were and when the run is
# compile-bound (issue 32), from the phase times in the journal: the test
# evaluator reports compile/check/timing ms (KEVO_TEST_PHASE_MS) and sleeps
# KEVO_TEST_EVAL_US per evaluation, so the run's wall time is known from
# below and the idle share has a floor the numbers prove.
. tests/cli/lib.inc
ARGS="--evaluator test --problem gemm --shape 300x200x100 --seed 2 --evals 40 --quiet"
# 20 ms of wall time per evaluation, 5 of them on the "GPU", 200 ms compile:
# idle >= 75 %, compile-bound
KEVO_TEST_EVAL_US=20000 KEVO_TEST_PHASE_MS=200,2,3 $T run $ARGS \
    --runs-dir "$SCRATCH" --name cb || fail "compile-bound run"
$T status "$SCRATCH/cb" >"$SCRATCH/s" || fail "status of the compile-bound run"
idle=$(sed -n 's/^gpu: *idle \([0-9]*\) % of .* on 1 GPU;.*/\1/p' "$SCRATCH/s")
[ -n "$idle" ] && [ "$idle" -ge 74 ] &&
    grep -q "compile-bound: 200 ms of compile a candidate against 5 ms on the GPU" "$SCRATCH/s" &&
    ok "status: a run whose compiles take 40x its GPU time is compile-bound, GPU idle $idle % (>= 75 % by construction)" ||
    { fail "status of a compile-bound run"; cat "$SCRATCH/s"; }
$T status "$SCRATCH/cb" --json >"$SCRATCH/j"
grep -q '"compile_bound":[[:space:]]*true' "$SCRATCH/j" && grep -q '"gpu_idle_pct":[[:space:]]*[0-9]' "$SCRATCH/j" &&
    ok "status --json has gpu_idle_pct and compile_bound" ||
    { fail "status --json idle fields"; cat "$SCRATCH/j"; }
# how busy the run kept its compile processes: 40 compiles of 200 ms in
# the run's time, over the 16 of --compilers 16; none for MPI ranks (each
# has its own pool), here a manifest edited to say so
KEVO_TEST_EVAL_US=20000 KEVO_TEST_PHASE_MS=200,2,3 $T run $ARGS --compilers 16 \
    --runs-dir "$SCRATCH" --name cb16 || fail "compile-bound run, 16 compilers"
$T status "$SCRATCH/cb16" >"$SCRATCH/s16"
$T status "$SCRATCH/cb16" --json >"$SCRATCH/j16"
want=$(python3 -c 'import json,sys
j=json.load(open(sys.argv[1])); f=j["evaluations"] * 0.200 / j["elapsed_s"]
assert j["compilers"] == 16 and abs(j["compile_busy_pct"] - 100 * f / 16) < 1e-6, j
print("%.1f compiles in flight on average of 16 compile processes (%.0f %% busy)" % (f, 100 * f / 16))' "$SCRATCH/j16")
[ -n "$want" ] && grep -qF "$want" "$SCRATCH/s16" &&
    ok "status: $want" || { fail "compile processes busy (want: $want)"; cat "$SCRATCH/s16"; }
python3 - "$SCRATCH/cb16/manifest.json" <<'PY' || fail "editing the manifest to MPI ranks"
import json, sys
m = json.load(open(sys.argv[1]))
m["environment"].setdefault("gpus", [{}])[0]["mpi_rank"] = 0
json.dump(m, open(sys.argv[1], "w"))
PY
$T status "$SCRATCH/cb16" >"$SCRATCH/s16m" 2>&1
grep -q "compiles in flight on average$" "$SCRATCH/s16m" &&
    ! grep -q "compile processes" "$SCRATCH/s16m" &&
    ok "status: no share of the compile processes for MPI ranks (a pool each)" ||
    { fail "status of an MPI manifest"; cat "$SCRATCH/s16m"; }
# a resume on other CPUs sizes its compile pool anew: each session's "gen"
# records say its pool (here 2 CPUs, then 1), and the share is of the
# pools weighted by each session's run time, a mean between the two (the
# manifest's 2 alone made it too low); a journal without them (kevo
# before) gives the first session's count, and both replay identical
if command -v taskset >/dev/null 2>&1 && taskset -c 0,1 true 2>/dev/null; then
    KEVO_TEST_EVAL_US=20000 KEVO_TEST_PHASE_MS=15,2,3 taskset -c 0,1 $T run $ARGS \
        --runs-dir "$SCRATCH" --name pool || fail "compile-bound run on 2 CPUs"
    KEVO_TEST_EVAL_US=20000 KEVO_TEST_PHASE_MS=15,2,3 taskset -c 0 $T resume \
        "$SCRATCH/pool" --evals 80 --quiet || fail "its resume on 1 CPU"
    $T status "$SCRATCH/pool" >"$SCRATCH/sp"
    $T status "$SCRATCH/pool" --json >"$SCRATCH/jp"
    want=$(python3 - "$SCRATCH/pool/journal.jsonl" "$SCRATCH/jp" <<'PY'
import json, sys
gens = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "gen"]
c = [g.get("compilers") for g in gens]
assert c[0] == 2 and c[-1] == 1 and c == sorted(c, reverse=True), c
j = json.load(open(sys.argv[2]))
t0 = pool = 0
for g in gens:
    pool += g["compilers"] * (g["t"] - t0)
    t0 = g["t"]
pool += c[-1] * (j["elapsed_s"] - t0)
mean = pool / j["elapsed_s"]
f = j["evaluations"] * 0.015 / j["elapsed_s"]
assert 1.05 < mean < 1.95 and abs(j["compilers"] - mean) < 1e-6, (mean, j["compilers"])
assert abs(j["compile_busy_pct"] - 100 * f / mean) < 1e-6, j
print("%.1f compiles in flight on average of %.1f compile processes "
      "(the sessions' mean, %.0f %% busy)" % (f, mean, 100 * f / mean))
PY
)
    [ -n "$want" ] && grep -qF "$want" "$SCRATCH/sp" &&
        "$KEVO" replay "$SCRATCH/pool" | grep -q "^identical: 80 evaluations" &&
        ok "status of a run resumed on 1 CPU of 2: $want" ||
        { fail "compile processes of a run resumed on other CPUs (want: $want)"; cat "$SCRATCH/sp"; }
    sed -i -E 's/,"compilers":[0-9]+//' "$SCRATCH/pool/journal.jsonl"
    $T status "$SCRATCH/pool" >"$SCRATCH/sp2"
    grep -q "compiles in flight on average of 2 compile processes ([0-9]* % busy)$" "$SCRATCH/sp2" &&
        "$KEVO" replay "$SCRATCH/pool" | grep -q "^identical: 80 evaluations" &&
        ok "status of a journal whose sessions did not say their pools: the manifest's 2 CPUs; it replays identical" ||
        { fail "compile processes of a journal without them"; cat "$SCRATCH/sp2"; }
else
    echo "skip a resume on other CPUs (no taskset, or fewer than 2 CPUs)"
fi
# 10 ms of GPU phases in 10 ms of wall time, 1 ms compile: not compile-bound
KEVO_TEST_EVAL_US=10000 KEVO_TEST_PHASE_MS=1,4,6 $T run $ARGS \
    --runs-dir "$SCRATCH" --name gb || fail "GPU-bound run"
$T status "$SCRATCH/gb" >"$SCRATCH/s2"
$T status "$SCRATCH/gb" --json >"$SCRATCH/j2"
grep -q '^gpu: *idle [0-9]* % of .* on 1 GPU$' "$SCRATCH/s2" &&
    grep -q '"compile_bound":[[:space:]]*false' "$SCRATCH/j2" &&
    ok "status: a run whose compiles are shorter than its GPU phases is not called compile-bound" ||
    { fail "status of a GPU-bound run"; cat "$SCRATCH/s2"; }
# two GPUs: the idle share is of the run's time x 2
KEVO_TEST_EVAL_US=20000 KEVO_TEST_PHASE_MS=200,2,3 $T run $ARGS --gpus 0,1 \
    --runs-dir "$SCRATCH" --name two || fail "two-GPU run"
$T status "$SCRATCH/two" >"$SCRATCH/s3"
grep -q '^gpu: *idle [0-9]* % of .* on 2 GPUs; compile-bound' "$SCRATCH/s3" &&
    ok "status counts the GPUs the journal's results came from" ||
    { fail "status of a two-GPU run"; cat "$SCRATCH/s3"; }
# the workers' recorded waits for a job (worker_idle, 10 ms a result here:
# 400 ms in all) are the lower bound of the idle time: status gives their
# share of the run's time x GPUs beside the upper bound; a run without
# them (cb above) gives none
KEVO_TEST_EVAL_US=20000 KEVO_TEST_PHASE_MS=200,2,3 KEVO_TEST_IDLE_MS=10 $T run $ARGS \
    --fill 0 --runs-dir "$SCRATCH" --name w || fail "run with recorded waits"
$T status "$SCRATCH/w" >"$SCRATCH/s5"
$T status "$SCRATCH/w" --json >"$SCRATCH/j5"
got=$(sed -n 's/^gpu: *idle [0-9]* % of .* on 1 GPU (the worker waited for a job \([0-9]*\) %).*/\1/p' "$SCRATCH/s5")
want=$(python3 -c 'import json,sys
j=json.load(open(sys.argv[1])); w=100 * j["evaluations"] * 0.010 / j["elapsed_s"]
print("%.1f" % w if abs(w - int(sys.argv[2])) <= 0.51 else "no")' "$SCRATCH/j5" "${got:-0}" 2>/dev/null)
[ -n "$got" ] && [ "$got" -gt 0 ] && [ -n "$want" ] && [ "$want" != no ] &&
    grep -q '"gpu_wait_pct":[[:space:]]*[0-9]' "$SCRATCH/j5" &&
    ! grep -q "waited for a job" "$SCRATCH/s" && ! grep -q "gpu_wait_pct" "$SCRATCH/j" &&
    ok "status gives the workers' recorded wait for jobs ($got % = 40 x 10 ms of the run's time), and none where nothing recorded it" ||
    { fail "status of recorded waits (want $want %)"; cat "$SCRATCH/s5" "$SCRATCH/j5"; }
# a journal someone edited to a wait beyond the run's time (hostile run
# directory): the share stays at most 100 %, status does not fail
sed -i -E 's/"worker_idle":10/"worker_idle":1e300/g' "$SCRATCH/w/journal.jsonl"
$T status "$SCRATCH/w" >"$SCRATCH/s6" 2>&1 &&
    grep -q "^gpu: .*(the worker waited for a job 100 %)" "$SCRATCH/s6" &&
    ok "status: a recorded wait of 1e300 ms reads as 100 %, no more" ||
    { fail "status of an edited wait"; cat "$SCRATCH/s6"; }
# a run without phase times (an evaluator that records none) says nothing
# about idleness rather than "idle 100 %"
$T run $ARGS --runs-dir "$SCRATCH" --name none || fail "plain run"
$T status "$SCRATCH/none" >"$SCRATCH/s4"
$T status "$SCRATCH/none" --json >"$SCRATCH/j4"
! grep -q "^gpu:" "$SCRATCH/s4" && ! grep -q "gpu_idle_pct" "$SCRATCH/j4" &&
    ok "status says nothing of idleness for a journal without phase times" ||
    { fail "status of a run without phase times"; cat "$SCRATCH/s4"; }
# the CPUs a run may use are those of its affinity mask (taskset, cpusets,
# Slurm): the manifest says 1 under a one-CPU mask, whatever the machine has
if command -v taskset >/dev/null 2>&1; then
    taskset -c 0 $T run $ARGS --runs-dir "$SCRATCH" --name one_cpu 2>/dev/null &&
        grep -Eq '"cpus":[[:space:]]*1([[:space:],}]|$)' "$SCRATCH/one_cpu/manifest.json" &&
        ok "under taskset -c 0 the run counts 1 usable CPU" ||
        { fail "cpus under taskset -c 0"; grep -o '"cpus":[^,}]*' "$SCRATCH/one_cpu/manifest.json"; }
fi
# the jobs line: where a job's round trip went, from the worker's job and
# round trip each GPU result records (here 6 and 7 ms, check + timing 5):
# 1 ms in messages; none without them (the runs above)
KEVO_TEST_PHASE_MS=200,2,3 KEVO_TEST_TRIP_MS=6,7 $T run $ARGS \
    --fill 0 --runs-dir "$SCRATCH" --name jobs || fail "run with round trips"
$T status "$SCRATCH/jobs" >"$SCRATCH/s7"
$T status "$SCRATCH/jobs" --json >"$SCRATCH/j7"
grep -q "^jobs: *7.00 ms from a job's send to its answer: 6.00 in the worker (checks and timing 5.00), 1.00 in messages$" "$SCRATCH/s7" &&
    grep -q '"round_trip_ms":[[:space:]]*7' "$SCRATCH/j7" && grep -q '"worker_ms":[[:space:]]*6' "$SCRATCH/j7" &&
    ! grep -q "^jobs:" "$SCRATCH/s5" && ! grep -q '"jobs"' "$SCRATCH/j5" &&
    ok "status: a job's 7 ms round trip is 6 in the worker (5 checks and timing) and 1 in messages; no jobs line without round trips" ||
    { fail "status jobs line"; cat "$SCRATCH/s7" "$SCRATCH/j7"; }
# an edited journal whose job outlasts its round trip: those results are
# left out, status does not fail
sed -i -E 's/"job":6/"job":1e300/' "$SCRATCH/jobs/journal.jsonl"
$T status "$SCRATCH/jobs" >"$SCRATCH/s8" 2>&1 && ! grep -q "^jobs:" "$SCRATCH/s8" &&
    ok "status: results whose job outlasts its round trip (an edited journal) are left out of the jobs line" ||
    { fail "status of edited round trips"; cat "$SCRATCH/s8"; }
# drift: the GPU phases of the first fifth of a run's timed results
# against the last fifth (a measurement that slows down over a long run:
# bench/results/2026-11-29-h200-s25). A journal edited to 3 ms timing, 11
# reps and 4 collects of 0.42 ms in the first fifth, 30 ms, 28 reps and 8
# collects of 4.2 ms in the last, 100 ms and 50 reps in between (check 2
# ms throughout); failed results (a check, no timing: as on a GPU) are not
# timed ones, however many there are in each fifth
KEVO_TEST_PHASE_MS=200,2,3 $T run $ARGS --evals 200 \
    --fill 0 --runs-dir "$SCRATCH" --name drift || fail "run for the drift"
python3 - "$SCRATCH/drift/journal.jsonl" <<'PY' || fail "editing the drift journal"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ev = [r for r in rows if r.get("type") == "eval"]
fifth = len(ev) // 5
n = [0, 0]
for i, r in enumerate(ev):
    k = 0 if i < fifth else 2 if i >= len(ev) - fifth else 1
    if r.get("outcome") != "ok" or (k == 1 and i % 3 == 0):
        r["ms"]["time"] = 0  # failed, or (in between) counted as failed
        r["reps"] = 0
        continue
    if k != 1:
        n[k // 2] += 1
    r["ms"]["time"] = [3, 100, 30][k]
    r["reps"] = [11, 50, 28][k]
    evd = r.get("evidence") or {}
    evd["collects"] = [4, 20, 8][k]
    evd.setdefault("phase_ms", {})["collect"] = [1.68, 500, 33.6][k]
    r["evidence"] = evd
assert min(n) >= 20, n
open(sys.argv[1], "w").write("".join(json.dumps(r) + "\n" for r in rows))
PY
$T status "$SCRATCH/drift" >"$SCRATCH/s9"
$T status "$SCRATCH/drift" --json >"$SCRATCH/j9"
grep -q "^drift: *check + timing 5.0 ms a timed candidate (11.0 reps, 0.42 ms a collect) in the first fifth of the results, 32.0 ms (28.0 reps, 4.20 ms a collect) in the last$" "$SCRATCH/s9" &&
    python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))["drift"]
assert abs(d["last_fifth"]["collect_ms"] - 4.2) < 1e-9 and d["first_fifth"]["reps"] == 11, d' "$SCRATCH/j9" &&
    ! grep -q "^drift:" "$SCRATCH/s" &&
    ok "status: the GPU phases of the first fifth of the timed results against the last (5.0 against 32.0 ms a candidate, collect 0.42 against 4.20 ms), failed ones left out; none for a run of 40 results" ||
    { fail "status drift line"; cat "$SCRATCH/s9" "$SCRATCH/j9"; }
# a journal someone edited to absurd phases (hostile run directory):
# status does not fail and prints no inf or nan
sed -E -e 's/"time": ?30([,}])/"time": 1e300\1/' -e 's/"collects": ?8([,}])/"collects": 1e300\1/' \
    -e 's/"reps": ?28([,}])/"reps": -5\1/' "$SCRATCH/drift/journal.jsonl" >"$SCRATCH/j.edit" &&
    [ "$(grep -c '"collects": 1e300' "$SCRATCH/j.edit")" -ge 20 ] &&
    cp "$SCRATCH/j.edit" "$SCRATCH/drift/journal.jsonl" || fail "editing the drift journal to absurd values"
$T status "$SCRATCH/drift" >"$SCRATCH/s10" 2>&1 &&
    $T status "$SCRATCH/drift" --json >"$SCRATCH/j10" 2>&1 &&
    ! grep -Eiwq "inf|nan" "$SCRATCH/s10" && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$SCRATCH/j10" &&
    ok "status of a journal edited to absurd timings, collects and reps: no failure, no inf or nan" ||
    { fail "status of an edited drift journal"; cat "$SCRATCH/s10"; }
# and the throughput line's means leave the absurd timing out (it printed
# a 300-digit mean): every number on it is short
grep -q "^throughput: .*timing [0-9.]* ms" "$SCRATCH/s10" &&
    ! grep "^throughput:" "$SCRATCH/s10" | grep -Eq "[0-9]{10}" &&
    ok "status: a timing edited to 1e300 ms reads as not recorded in the throughput line" ||
    { fail "throughput line of an edited journal"; grep "^throughput:" "$SCRATCH/s10" | cut -c1-200; }
finish
