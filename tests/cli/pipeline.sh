# The pipeline (issue 32, run option "pipeline"): generation g+1 is bred
# before g is measured and handed to the evaluator's prefetch; the journal
# stays a function of the seed (replay identical, kill -9 / resume in
# tests/cli/kill_resume.sh runs with it), no candidate is handed over
# twice, and a manifest without the key (a run made before it) replays as
# it was made: without the pipeline.
. tests/cli/lib.inc
K="$KEVO"
ARGS="--evaluator test --problem gemm --shape 300x200x100 --seed 3 \
      --generations 8 --islands 2 --population 6 --offspring 8 --quiet"
export KEVO_TEST_COMPILE_LOG="$SCRATCH/p.log"
$T run $ARGS --pipeline 1 --runs-dir "$SCRATCH" --name p || { fail "setup run"; finish; }
J="$SCRATCH/p/journal.jsonl"
grep -Eq '"pipeline":[[:space:]]*1' "$SCRATCH/p/manifest.json" &&
    ok "a run with --pipeline 1 records it in its manifest" ||
    fail "manifest lacks \"pipeline\":1"
$K replay "$SCRATCH/p" >"$SCRATCH/out" 2>&1 && grep -q "^identical" "$SCRATCH/out" &&
    ok "a pipelined run replays identical" || { fail "replay"; cat "$SCRATCH/out"; }

# the compile log against the journal: every prefetched genome is new
# (in no batch and no prefetch before), is evaluated later, once, and in
# the generation after the one whose batch follows its prefetch
if python3 - "$SCRATCH/p.log" "$J" >"$SCRATCH/n" <<'PY'
import json, sys
log = [l.split() for l in open(sys.argv[1])]
gen = {}
for l in open(sys.argv[2]):
    r = json.loads(l)
    if r["type"] == "eval":
        assert r["hash"] not in gen, "evaluated twice: " + r["hash"]
        gen[r["hash"]] = r["gen"]
seen, pre, batches = set(), {}, {}
for i, (what, src, g) in enumerate(log):
    if what == "prefetch":
        assert g not in seen, "prefetched again or after its batch: " + g
        pre[g] = i
    else:
        assert g not in batches, "in two batches: " + g
        batches[g] = i
    seen.add(g)
assert len(pre) > 0, "nothing prefetched"
for g, i in pre.items():
    assert g in batches and batches[g] > i, "prefetched, never evaluated: " + g
    # handed over before the batch of the generation before it started
    before = [j for h, j in batches.items() if gen[h] == gen[g] - 1]
    assert i < min(before), "prefetch of gen %d after gen %d began" % (gen[g], gen[g] - 1)
n_gen = max(gen.values()) + 1
got = sorted({gen[g] for g in pre})
assert got == list(range(2, n_gen)), got   # gens 2.. (1 is bred after 0)
print(len(pre), "prefetched of", len(gen))
PY
then ok "each genome is prefetched once, before the generation ahead of it is measured, and evaluated once ($(cat "$SCRATCH/n"))"
else fail "the compile log does not show one prefetch per genome ahead of its generation"
fi

# --pipeline 0: bred after each generation, nothing prefetched
: >"$SCRATCH/p.log"
$T run $ARGS --runs-dir "$SCRATCH" --name b || fail "run without --pipeline"
grep -Eq '"pipeline":[[:space:]]*0' "$SCRATCH/b/manifest.json" && ! grep -q "^prefetch" "$SCRATCH/p.log" &&
    [ "$(grep -c '^batch' "$SCRATCH/p.log")" = "$(grep -c '"type":"eval"' "$SCRATCH/b/journal.jsonl")" ] &&
    ok "the pipeline is off by default: 0 recorded, nothing prefetched" || fail "default pipeline"
cmp -s "$J" "$SCRATCH/b/journal.jsonl" && fail "the pipeline changed no decision (the test proves nothing)"
$K replay "$SCRATCH/b" 2>&1 | grep -q "^identical" &&
    ok "a run without the pipeline replays identical" || fail "replay of --pipeline 0"
expect_fail "a pipeline other than 0 or 1 is refused" "--pipeline" \
    $T run $ARGS --pipeline 2 --runs-dir "$SCRATCH" --name x

# a manifest without the key is a run made before it: replayed without
# the pipeline (identical for a run made so), divergent for a pipelined one
for r in b p; do without_key pipeline "$SCRATCH/$r" "$SCRATCH/o$r"; done
grep -q pipeline "$SCRATCH/ob/manifest.json" && fail "the key is still there"
$K replay "$SCRATCH/ob" 2>&1 | grep -q "^identical" &&
    ok "a manifest without 'pipeline' (an older run) replays identical" ||
    fail "old-manifest replay"
$K replay "$SCRATCH/op" >"$SCRATCH/out" 2>&1 &&
    fail "a pipelined journal replays identical without the pipeline" ||
    ok "without the key the pipeline is off: a pipelined journal is divergent"

# stopped by its evaluation budget, resumed with larger ones: the resume
# and its replay agree. Generation 0 has 105 children, the others 16:
# --evals 150 cuts generation 3 (bred during 2) to 13 and leaves nothing
# to breed during 3; 170 cuts generation 5 (bred during 4) to 4.
: >"$SCRATCH/p.log"
$T run $ARGS --pipeline 1 --generations 0 --evals 150 --runs-dir "$SCRATCH" --name e &&
    $T resume "$SCRATCH/e" --evals 170 --quiet &&
    $T resume "$SCRATCH/e" --evals 200 --quiet || fail "run --evals, resume --evals"
$K replay "$SCRATCH/e" >"$SCRATCH/out" 2>&1 && grep -q "^identical: 200 evaluations" "$SCRATCH/out" &&
    ok "a pipelined run resumed twice with larger --evals replays identical" ||
    { fail "pipelined --evals resume replay"; cat "$SCRATCH/out"; }

# stopped inside a generation the budget cut (the GPU fails on the 143rd
# evaluation, the 6th of generation 3's 13), resumed with a larger budget:
# the cut generation is finished as it was bred and the replay agrees
BUD="$ARGS --pipeline 1 --generations 0"
KEVO_TEST_GPU_FAIL=0:143 $T run $BUD --gpus 0 --evals 150 --runs-dir "$SCRATCH" --name f 2>/dev/null
[ "$(grep -c '"type":"eval","gen":3,' "$SCRATCH/f/journal.jsonl")" = 5 ] ||
    fail "the failing GPU did not stop the run inside generation 3"
$T resume "$SCRATCH/f" --evals 170 --quiet || fail "resume --evals 170 after the failure"
$K replay "$SCRATCH/f" >"$SCRATCH/out" 2>&1 && grep -q "^identical: 170 evaluations" "$SCRATCH/out" &&
    [ "$(grep -c '"type":"eval","gen":3,' "$SCRATCH/f/journal.jsonl")" = 13 ] &&
    ok "stopped inside a budget-cut generation and resumed with a larger budget: replays identical" ||
    { fail "resume inside a cut generation"; cat "$SCRATCH/out"; }

# several GPUs (the fan-out of test evaluators): prefetch passes through,
# same journal as one GPU
: >"$SCRATCH/p.log"
$T run $ARGS --pipeline 1 --gpus 0,1 --runs-dir "$SCRATCH" --name g || fail "run --gpus 0,1"
canon() { $CANON "$1" | sed -E 's/,"gpu":[0-9]+//'; }
canon "$J" >"$SCRATCH/p.canon"
canon "$SCRATCH/g/journal.jsonl" >"$SCRATCH/g.canon"
grep -q "^prefetch" "$SCRATCH/p.log" && cmp -s "$SCRATCH/p.canon" "$SCRATCH/g.canon" &&
    ok "the fan-out passes prefetch on; two GPUs make one GPU's journal" ||
    { fail "fan-out pipeline"; diff "$SCRATCH/p.canon" "$SCRATCH/g.canon" | head -5; }
finish
