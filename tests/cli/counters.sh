# Hardware profiles in the loop, with the test evaluator's synthetic
# profiles (KEVO_TEST_PROFILE) and GPU-shaped evidence (KEVO_TEST_EVIDENCE):
# new bests and LLM rewrite parents are profiled once and journaled as
# "profile" records; the rewrite prompt shows the diagnosis, the raw
# counters, the journal's evidence and the resources of every launch;
# a copy baseline is stated in bytes/s; rewrites are asked once per
# template version; replay and kill -9 + resume take the profiles from the
# journal; restricted counters give one note and "not available" prompts;
# kevo status reports the profiling budget.
. tests/cli/lib.inc
. tests/cli/llm.inc
ARGS="--evaluator test --problem softmax --shape 512x1000 --seed 3 \
      --islands 2 --population 6 --offspring 8 --quiet"
export KEVO_TEST_EVIDENCE=1 KEVO_TEST_PROFILE=1
# prompts_with RUN TEXT: the user prompts of RUN's transcripts that hold TEXT
prompts_with() {
    for f in "$1"/llm/*.json; do
        python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
def walk(x):
    if isinstance(x,dict): [walk(v) for v in x.values()]
    elif isinstance(x,list): [walk(v) for v in x]
    elif isinstance(x,str) and sys.argv[2] in x: print(x)
walk(d)' "$f" "$2" 2>/dev/null
    done
}

# 0. --profile 0: no profile records, the same decisions (the journal
# without its profile records), recorded in the manifest
$T run $ARGS --generations 6 --runs-dir "$SCRATCH" --name p1 || fail "run for --profile"
$T run $ARGS --generations 6 --profile 0 --runs-dir "$SCRATCH" --name p0 || fail "run with --profile 0"
n1=$(grep -c '"type":"profile"' "$SCRATCH/p1/journal.jsonl")
n0=$(grep -c '"type":"profile"' "$SCRATCH/p0/journal.jsonl")
"$CANON" "$SCRATCH/p1/journal.jsonl" | grep -v '"type":"profile"' >"$SCRATCH/p1.canon"
"$CANON" "$SCRATCH/p0/journal.jsonl" >"$SCRATCH/p0.canon"
[ "$n1" -gt 0 ] && [ "$n0" = 0 ] && cmp -s "$SCRATCH/p1.canon" "$SCRATCH/p0.canon" &&
    grep -Eq '"profile":[[:space:]]*0' "$SCRATCH/p0/manifest.json" &&
    "$KEVO" replay "$SCRATCH/p0" 2>&1 | grep -q "^identical" &&
    ok "--profile 0: no profile ($n1 with the default), the same decisions, recorded; replays identical" ||
    fail "--profile 0 (profiles $n1 / $n0)"
# a manifest without the key (a run made before it) reads as 1: resumed,
# the run takes profiles again
sed -i -E 's/"profile":[[:space:]]*0,?//' "$SCRATCH/p0/manifest.json"
$T resume "$SCRATCH/p0" --generations 10 --quiet >/dev/null 2>&1 &&
    ! grep -q '"profile"' "$SCRATCH/p0/manifest.json" &&
    [ "$(grep -c '"type":"profile"' "$SCRATCH/p0/journal.jsonl")" -gt 0 ] &&
    ok "a manifest without 'profile' reads as 1: the resumed run takes profiles" ||
    fail "a manifest without 'profile' (profiles: $(grep -c '"type":"profile"' "$SCRATCH/p0/journal.jsonl"))"

# 1. a run with profiles
start_server tests/data/llm-answers/softmax
$T run $ARGS --generations 6 --template softmax_block \
    --llm "openai:test-model@http://127.0.0.1:$PORT/v1" \
    --llm-key-env KEVO_TEST_KEY --runs-dir "$SCRATCH" --name a \
    2>"$SCRATCH/a.err" || { fail "profiled run"; cat "$SCRATCH/a.err"; }
stop_server
J="$SCRATCH/a/journal.jsonl"
# every rewrite's parent has a profile record (taken as a parent, or
# earlier as a new best: a genome is profiled once)
unprof=0; nrw=0
for h in $(grep '"type":"llm"' "$J" | grep '"op":"llm_rewrite"' |
           grep -o '"parents":\["[0-9a-f]*"' | cut -d'"' -f4); do
    nrw=$((nrw + 1))
    grep '"type":"profile"' "$J" | grep -q "\"hash\":\"$h\"" || unprof=$((unprof + 1))
done
grep -q '"type":"profile".*"why":"best".*"available":true' "$J" &&
    [ "$nrw" -gt 0 ] && [ "$unprof" = 0 ] &&
    ok "new bests and LLM rewrite parents ($nrw) are profiled into the journal" ||
    fail "no best profile records, or $unprof of $nrw rewrite parents unprofiled"
n=$(grep '"type":"profile"' "$J" | grep -o '"hash":"[0-9a-f]*"' | sort | uniq -d | wc -l)
[ "$n" = 0 ] && ok "no genome is profiled twice" || fail "$n genomes profiled twice"
prompts_with "$SCRATCH/a" "Write a faster one" >"$SCRATCH/rewrite.txt"
grep -q 'memory-bound: DRAM 91 % of peak' "$SCRATCH/rewrite.txt" &&
    grep -q 'stalls: long scoreboard 48 %, wait 31 %, barrier 21 %' "$SCRATCH/rewrite.txt" &&
    grep -q 'launch 2 ([a-z_0-9]*): duration [0-9]* us; DRAM read 100 MB' "$SCRATCH/rewrite.txt" &&
    ok "the rewrite prompt shows the diagnosis and every launch's raw counters" ||
    { fail "rewrite prompt lacks the profile"; head -c 3000 "$SCRATCH/rewrite.txt"; }
grep -q 'journal (JSON[^)]*): {"baseline":"copy"' "$SCRATCH/rewrite.txt" &&
    ! grep -q '(none recorded)' "$SCRATCH/rewrite.txt" &&
    ok "the rewrite prompt holds the journal's evidence, not '(none recorded)'" ||
    fail "rewrite prompt evidence missing"
grep -q 'resources of launch 2 ([a-z_0-9]*): [0-9]* registers/thread' "$SCRATCH/rewrite.txt" &&
    ok "resources are shown per launch, the main kernel's included" ||
    fail "per-launch resources missing"
grep '"type":"llm"' "$J" | grep '"op":"llm_rewrite"' |
    grep -o '"parents":\["[0-9a-f]*"' | cut -d'"' -f4 >"$SCRATCH/rw.par"
: >"$SCRATCH/rw.tpl"
while read -r h; do
    grep "\"type\":\"eval\".*\"hash\":\"$h\"" "$J" | head -1 |
        sed 's/.*"template":"\([^"]*\)".*/\1/' >>"$SCRATCH/rw.tpl"
done <"$SCRATCH/rw.par"
[ -s "$SCRATCH/rw.tpl" ] &&
    [ "$(sort "$SCRATCH/rw.tpl" | uniq -d | wc -l)" = 0 ] &&
    ok "a rewrite is asked once per template version ($(wc -l <"$SCRATCH/rw.tpl") rewrites)" ||
    { fail "a template was asked for two rewrites"; cat "$SCRATCH/rw.tpl"; }
$T status "$SCRATCH/a" >"$SCRATCH/status.out" 2>&1
grep -q '^profiles: .*new best.*LLM parent.*% of the run (budget 3 %)' "$SCRATCH/status.out" &&
    grep -q '^rewrites: .*each asked once, at its best point' "$SCRATCH/status.out" &&
    ok "kevo status reports the profiles' budget and the rewrites' spread" ||
    { fail "status lacks profiles/rewrites"; cat "$SCRATCH/status.out"; }

"$KEVO" report "$SCRATCH/a" --quiet >/dev/null 2>&1
grep -q '^| 1 | [a-z_0-9]* | .*memory-bound: DRAM 91 % of peak' "$SCRATCH/a/report/report.md" &&
    grep -q 'roofline.dat' "$SCRATCH/a/report/plots/plots.gp" &&
    [ -s "$SCRATCH/a/report/plots/roofline.dat" ] &&
    ok "the report has a profile table of the best candidates and a roofline of them" ||
    fail "report lacks the profiles"

# 2. replay and resume take the profiles from the journal
"$KEVO" replay "$SCRATCH/a" >"$SCRATCH/replay.out" 2>&1 &&
    grep -q '^identical' "$SCRATCH/replay.out" &&
    ok "kevo replay of a profiled run is identical" ||
    { fail "replay of a profiled run"; cat "$SCRATCH/replay.out"; }
$T run $ARGS --generations 6 --template softmax_block \
    --llm "replay:$SCRATCH/a" --runs-dir "$SCRATCH" --name b 2>/dev/null ||
    fail "replay-provider run"
$CANON "$SCRATCH/b/journal.jsonl" | grep -v '"type":"llm"' >"$SCRATCH/b.canon"
bad=0
for at in 0.2 0.5; do
    rm -rf "$SCRATCH/k"
    KEVO_TEST_EVAL_US=3000 $T run $ARGS --generations 6 --template softmax_block \
        --llm "replay:$SCRATCH/a" --runs-dir "$SCRATCH" --name k 2>/dev/null &
    KPID=$!
    sleep $at
    kill -9 $KPID 2>/dev/null
    wait $KPID 2>/dev/null
    if [ -f "$SCRATCH/k/manifest.json" ]; then
        $T resume "$SCRATCH/k" --quiet 2>"$SCRATCH/k.err" ||
            { bad=1; cat "$SCRATCH/k.err"; continue; }
    else # killed before the run existed (a slow machine): run it whole
        rm -rf "$SCRATCH/k"
        $T run $ARGS --generations 6 --template softmax_block \
            --llm "replay:$SCRATCH/a" --runs-dir "$SCRATCH" --name k 2>/dev/null
    fi
    $CANON "$SCRATCH/k/journal.jsonl" | grep -v '"type":"llm"' >"$SCRATCH/k.canon"
    cmp -s "$SCRATCH/b.canon" "$SCRATCH/k.canon" || { bad=1; echo "killed at ${at}s: differs"; }
done
grep -q '"type":"profile"' "$SCRATCH/b.canon" && [ $bad = 0 ] &&
    ok "a profiled run killed and resumed journals the same profiles as an uninterrupted one" ||
    fail "resumed profiled run differs"

# 3. restricted counters: one note, the run goes on, prompts say so
start_server tests/data/llm-answers/softmax
KEVO_TEST_PROFILE=restricted $T run $(echo $ARGS | sed 's/--quiet//') --generations 6 --template softmax_block \
    --llm "openai:test-model@http://127.0.0.1:$PORT/v1" \
    --llm-key-env KEVO_TEST_KEY --runs-dir "$SCRATCH" --name r \
    >"$SCRATCH/r.out" 2>"$SCRATCH/r.err" || { fail "restricted run"; cat "$SCRATCH/r.err"; }
stop_server
[ "$(grep -c 'counters not available.*admin users.*the run goes on without profiles' "$SCRATCH/r.out" "$SCRATCH/r.err" | awk -F: '{s+=$2} END {print s}')" = 1 ] &&
    [ "$(grep -c '"type":"profile"' "$SCRATCH/r/journal.jsonl")" = 1 ] &&
    grep -q '"type":"gen","gen":5' "$SCRATCH/r/journal.jsonl" &&
    ok "restricted counters: one note at the first profile, one record, the run finishes" ||
    { fail "restricted counters"; cat "$SCRATCH/r.out" "$SCRATCH/r.err"; }
prompts_with "$SCRATCH/r" "Write a faster one" | grep -q 'not available: counters not available: cuptiProfilerGetCounterAvailability failed (CUPTI error 35)' &&
    ok "prompts of a run without counters say the profile is not available" ||
    fail "restricted prompt"
$T status "$SCRATCH/r" | grep -q '^profiles: *counters not available' &&
    ok "kevo status says why there are no profiles" || fail "status of restricted run"

# 3b. no process for the profiler (worker.h 11: a GPU in exclusive-process
# mode refuses the profiler's worker a context): as restricted counters,
# one note, one record, the run finishes, replay identical
KEVO_TEST_PROFILE=noworker $T run $(echo $ARGS | sed 's/--quiet//') --generations 6 \
    --runs-dir "$SCRATCH" --name nw >"$SCRATCH/nw.out" 2>"$SCRATCH/nw.err" ||
    { fail "run without a profiler's worker"; cat "$SCRATCH/nw.err"; }
[ "$(grep -c "the profiler's worker did not start.*DEVICE_UNAVAILABLE.*the run goes on without profiles" "$SCRATCH/nw.out" "$SCRATCH/nw.err" | awk -F: '{s+=$2} END {print s}')" = 1 ] &&
    [ "$(grep -c '"type":"profile"' "$SCRATCH/nw/journal.jsonl")" = 1 ] &&
    grep -q '"type":"gen","gen":5' "$SCRATCH/nw/journal.jsonl" &&
    ok "no profiler's worker: one note at the first profile, one record, the run finishes" ||
    { fail "no profiler's worker"; cat "$SCRATCH/nw.out" "$SCRATCH/nw.err"; }
$T status "$SCRATCH/nw" | grep -q "^profiles: *the profiler's worker did not start" &&
    "$KEVO" replay "$SCRATCH/nw" 2>&1 | grep -q "^identical" &&
    ok "kevo status says the profiler's worker did not start; replay identical" ||
    fail "status or replay of a run without a profiler's worker"

# 3c. profile_soon (eval.h): live, before the run's first profile, the
# evaluator is told once a generation that profiles will come (the GPU's
# profiler's worker then starts while generation 0 compiles), before the
# first batch; never with --profile 0, once a profile is taken, or in a
# replay; with several GPUs only the one that profiles is told
ps_log() { # NAME: the compile log's profile lines, their first positions
    awk '$1=="profile-soon"{s++; if(!fs)fs=NR} $1=="batch"&&!fb{fb=NR}
         $1=="profile"{p++; if(!fp)fp=NR}
         END{print s+0, p+0, (fs&&fs<fb&&(!fp||fs<fp))?"first":"late"}' "$1"
}
KEVO_TEST_COMPILE_LOG="$SCRATCH/ps1.log" $T run $ARGS --generations 6 \
    --runs-dir "$SCRATCH" --name ps1 || fail "run for profile_soon"
KEVO_TEST_COMPILE_LOG="$SCRATCH/ps0.log" $T run $ARGS --generations 6 \
    --profile 0 --runs-dir "$SCRATCH" --name ps0 || fail "run --profile 0 for profile_soon"
KEVO_TEST_GPUS=2 KEVO_TEST_COMPILE_LOG="$SCRATCH/ps2.log" $T run $ARGS \
    --gpus all --generations 6 --runs-dir "$SCRATCH" --name ps2 ||
    fail "two-GPU run for profile_soon"
set -- $(ps_log "$SCRATCH/ps1.log"); a1="$*"
set -- $(ps_log "$SCRATCH/ps2.log"); a2="$*"
n0=$(grep -c "^profile" "$SCRATCH/ps0.log")
# once before gen 0 (no profile yet) and before each generation until the
# first profile: as many as the generations that began without one
g1=$(python3 -c 'import json,sys
rs=[json.loads(l) for l in open(sys.argv[1])]
p=min([r["gen"] for r in rs if r.get("type")=="profile"] or [99])
print(p+1)' "$SCRATCH/ps1/journal.jsonl")
[ "${a1%% *}" = "$g1" ] && [ "${a1##* }" = first ] && [ "$n0" = 0 ] &&
    [ "${a2%% *}" = "$g1" ] && [ "${a2##* }" = first ] &&
    ok "profile_soon: before the first batch, until the first profile ($a1; two GPUs $a2; --profile 0: none)" ||
    fail "profile_soon: '$a1' (expected $g1 ... first), two GPUs '$a2', --profile 0 $n0"
: >"$SCRATCH/ps1r.log"
KEVO_TEST_COMPILE_LOG="$SCRATCH/ps1r.log" "$KEVO" replay "$SCRATCH/ps1" >/dev/null 2>&1
KEVO_TEST_COMPILE_LOG="$SCRATCH/ps1r.log" $T resume "$SCRATCH/ps1" --generations 9 \
    --quiet >/dev/null 2>&1 || fail "resume for profile_soon"
[ "$(grep -c '^profile-soon' "$SCRATCH/ps1r.log")" = 0 ] &&
    ok "profile_soon: not in a replay, nor in a resume with a profile taken" ||
    fail "profile_soon after a profile: $(grep -c '^profile-soon' "$SCRATCH/ps1r.log")"

# 4. the repair prompt of a compile error holds the compiler log (the
# evidence the GPU evaluator records; it was dropped before the prompt)
start_server tests/data/llm-answers/broken
$T run $ARGS --generations 3 --template softmax_block \
    --llm "openai:test-model@http://127.0.0.1:$PORT/v1" \
    --llm-key-env KEVO_TEST_KEY --runs-dir "$SCRATCH" --name f \
    2>"$SCRATCH/f.err" || { fail "broken-answer run"; cat "$SCRATCH/f.err"; }
stop_server
prompts_with "$SCRATCH/f" "failed in kevo. Fix it." >"$SCRATCH/repair.txt"
grep -q 'compiler log.*: {"log":"llm_[0-9a-f]*(41): error: identifier' "$SCRATCH/repair.txt" &&
    ok "the repair prompt holds the compiler log" ||
    { fail "repair prompt lacks the compiler log"; head -c 2000 "$SCRATCH/repair.txt"; }
finish
