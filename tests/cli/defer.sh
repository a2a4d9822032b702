# Deferred candidates (issue 32, spec key "defer", src/engine/engine_defer.c):
# the evaluator may hand back unmeasured up to an eighth of a batch (those
# whose compile has not ended when the rest is measured); the engine
# journals a "defer" record for each and makes it a first child of the
# next generation. The test evaluator defers about one candidate in
# KEVO_TEST_DEFER of a batch. Replay, kill -9 / resume and old manifests
# stay exact; a run that may not defer refuses a journal that did.
. tests/cli/lib.inc
K="$KEVO"
ARGS="--evaluator test --problem softmax --shape 4096x4096 --seed 5 \
      --generations 7 --islands 2 --population 8 --offspring 16 --quiet"
export KEVO_TEST_DEFER=4
$T run $ARGS --runs-dir "$SCRATCH" --name d || { fail "setup run"; finish; }
J="$SCRATCH/d/journal.jsonl"
grep -Eq '"defer":[[:space:]]*1' "$SCRATCH/d/manifest.json" &&
    ok "deferral is on by default and recorded in the manifest" ||
    fail "manifest lacks \"defer\":1"

# from the journal alone: each generation defers at most an eighth of its
# children; a deferred candidate is one of the next generation's first
# children (in its deferral order) and is measured there or deferred again,
# never measured twice; the last generation's deferred ones are left
python3 - "$J" >"$SCRATCH/cnt" 2>"$SCRATCH/err" <<'PY' &&
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
ev = [r for r in rs if r["type"] == "eval"]
df = [r for r in rs if r["type"] == "defer"]
gens = sorted({r["gen"] for r in ev + df})
seen = set()
for r in ev:
    assert r["hash"] not in seen, "measured twice: " + r["hash"]
    seen.add(r["hash"])
carried = 0
for g in gens:
    kids = [r for r in ev + df if r["gen"] == g]
    kids.sort(key=lambda r: r["idx"])
    assert [r["idx"] for r in kids] == list(range(len(kids))), "gen %d idx" % g
    d = [r for r in kids if r["type"] == "defer"]
    assert len(d) <= len(kids) // 8, "gen %d: %d of %d deferred" % (g, len(d), len(kids))
    prev = [r["hash"] for r in df if r["gen"] == g - 1]
    assert [r["hash"] for r in kids[:len(prev)]] == prev, "gen %d: the deferred are not its first children" % g
    carried += len(prev)
last = [r for r in df if r["gen"] == gens[-1]]
assert carried > 0 and len(df) == carried + len(last), (len(df), carried)
print(len(df), "deferrals,", carried, "carried")
PY
    ok "at most an eighth of a generation is deferred; each becomes one of the next generation's first children and is measured once ($(cat "$SCRATCH/cnt"))" ||
    { fail "deferrals in the journal"; cat "$SCRATCH/err"; }
$K replay "$SCRATCH/d" >"$SCRATCH/out" 2>&1 && grep -q "^identical" "$SCRATCH/out" &&
    ok "a run with deferrals replays identical" || { fail "replay"; cat "$SCRATCH/out"; }
nd=$(grep -c '"type":"defer"' "$J")
$K status "$SCRATCH/d" >"$SCRATCH/st" 2>&1 &&
    grep -q "^evaluations: *$(grep -c '"type":"eval"' "$J") " "$SCRATCH/st" &&
    grep -q "^deferred: *$nd times" "$SCRATCH/st" &&
    $K status --json "$SCRATCH/d" | grep -Eq "\"deferred\":[[:space:]]*$nd[,}]" &&
    ok "status counts measured candidates only, and says how often one was deferred ($nd)" ||
    { fail "status"; cat "$SCRATCH/st"; }

# an evaluator that does not defer, and the pipeline, make no defer record
env -u KEVO_TEST_DEFER $T run $ARGS --runs-dir "$SCRATCH" --name nd &&
    $T run $ARGS --pipeline 1 --runs-dir "$SCRATCH" --name pd || fail "runs without deferral"
! grep -q '"type":"defer"' "$SCRATCH/nd/journal.jsonl" &&
    ! grep -q '"type":"defer"' "$SCRATCH/pd/journal.jsonl" &&
    ok "no deferral from an evaluator that does not defer, nor with the pipeline" ||
    fail "defer records without deferral"
pts() { grep -o '"type":"eval","gen":[0-9]*,"idx":[0-9]*,"island":[0-9]*,"hash":"[0-9a-f]*"' "$1"; }
pts "$J" >"$SCRATCH/d.pts"; pts "$SCRATCH/nd/journal.jsonl" >"$SCRATCH/nd.pts"
cmp -s "$SCRATCH/d.pts" "$SCRATCH/nd.pts" && fail "deferrals changed no decision (the test proves nothing)"

# stopped by --evals (a generation cut by the budget defers some of its
# children: it was cut all the same), resumed with a larger budget: the
# resume and its replay agree
$T run $ARGS --generations 0 --evals 300 --runs-dir "$SCRATCH" --name e &&
    $T resume "$SCRATCH/e" --evals 420 --quiet || fail "run --evals, resume --evals"
$K replay "$SCRATCH/e" >"$SCRATCH/out" 2>&1 && grep -q "^identical: 420 evaluations" "$SCRATCH/out" &&
    grep -q '"type":"defer"' "$SCRATCH/e/journal.jsonl" &&
    ok "a run with deferrals stopped by --evals and resumed with a larger one replays identical" ||
    { fail "--evals resume replay"; cat "$SCRATCH/out"; }

# kill -9 inside generations (once the journal holds N records) and
# resume: the journal of the uninterrupted run. The deferrals recorded
# before the kill count against the resumed batch's allowance.
$CANON "$J" >"$SCRATCH/d.canon"
inside=0
for n in 60 150 215 300 450; do
    KEVO_TEST_EVAL_US=2000 $T run $ARGS --runs-dir "$SCRATCH" --name k$n &
    pid=$!
    w=0
    while [ $w -lt 400 ] && [ "$(cat "$SCRATCH/k$n/journal.jsonl" 2>/dev/null | wc -l)" -lt $n ]; do
        sleep 0.02; w=$((w + 1))
    done
    kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
    tail -1 "$SCRATCH/k$n/journal.jsonl" 2>/dev/null | grep -q '"type":"gen"' ||
        ! grep -q '"type":"defer"' "$SCRATCH/k$n/journal.jsonl" 2>/dev/null || inside=$((inside + 1))
    # the killed journal replays as far as it goes (the deferred children
    # not measured yet were children, not evaluations)
    [ ! -s "$SCRATCH/k$n/journal.jsonl" ] ||
        $K replay "$SCRATCH/k$n" 2>&1 | grep -q "^identical" ||
        { fail "kill at $n records: the killed journal does not replay"; $K replay "$SCRATCH/k$n" 2>&1 | head -2; }
    if [ -d "$SCRATCH/k$n" ]; then $T resume "$SCRATCH/k$n" --quiet
    else $T run $ARGS --runs-dir "$SCRATCH" --name k$n; fi || fail "kill at $n records: resume"
    $CANON "$SCRATCH/k$n/journal.jsonl" >"$SCRATCH/k$n.canon"
    cmp -s "$SCRATCH/d.canon" "$SCRATCH/k$n.canon" ||
        { fail "kill at $n records: the resumed journal differs"; diff "$SCRATCH/d.canon" "$SCRATCH/k$n.canon" | head -4; }
done
[ -s "$SCRATCH/d.canon" ] && [ $inside -ge 2 ] ||
    fail "the kills did not land inside generations that had deferred ($inside)"
[ $FAILED = 0 ] && ok "kill -9 inside generations: the killed journal replays, and resume makes the uninterrupted run's journal, deferrals included ($inside kills after a deferral, inside a generation)"

# stopped by --time inside a generation and resumed: no more deferrals
# than the generation allows, and the replay is identical
KEVO_TEST_EVAL_US=2000 $T run $ARGS --generations 0 --time 1s --runs-dir "$SCRATCH" --name t &&
    KEVO_TEST_EVAL_US=2000 $T resume "$SCRATCH/t" --time 2s --quiet || fail "run --time, resume --time"
$K replay "$SCRATCH/t" >"$SCRATCH/out" 2>&1 && grep -q "^identical" "$SCRATCH/out" &&
    grep -q '"type":"defer"' "$SCRATCH/t/journal.jsonl" &&
    ok "a run with deferrals stopped by --time and resumed replays identical" ||
    { fail "--time resume"; cat "$SCRATCH/out"; }

# a manifest without the key is a run made before it: no deferral, so a
# journal without defer records replays identical and one with them is
# divergent (a recording such a run cannot have made)
for r in nd d; do without_key defer "$SCRATCH/$r" "$SCRATCH/o$r"; done
$K replay "$SCRATCH/ond" 2>&1 | grep -q "^identical" &&
    ok "a manifest without 'defer' (an older run) replays identical" ||
    fail "old-manifest replay"
$K replay "$SCRATCH/od" >"$SCRATCH/out" 2>&1; rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q "^divergent at record .*cannot do" "$SCRATCH/out" &&
    ok "without the key a journal's defer records are a divergence that says why" ||
    { fail "old manifest, journal with deferrals (rc $rc)"; cat "$SCRATCH/out"; }

# an edited defer record (another genome) is a divergence, not a crash
cp -r "$SCRATCH/d" "$SCRATCH/e"
python3 - "$SCRATCH/e/journal.jsonl" <<'PY'
import json, sys
p = sys.argv[1]; rs = [json.loads(l) for l in open(p)]
for r in rs:
    if r["type"] == "defer":
        r["hash"] = "%016x" % (int(r["hash"], 16) ^ 1); break
open(p, "w").write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rs))
PY
$K replay "$SCRATCH/e" >"$SCRATCH/out" 2>&1; rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q "divergent" "$SCRATCH/out" &&
    ok "an edited defer record is reported as a divergence" ||
    { fail "edited defer record (rc $rc)"; cat "$SCRATCH/out"; }

# a journal that defers more than an eighth of a generation is a
# recording kevo cannot have made: a divergence that says so
cp -r "$SCRATCH/d" "$SCRATCH/m"
python3 - "$SCRATCH/m/journal.jsonl" <<'PY'
import json, sys
p = sys.argv[1]; rs = [json.loads(l) for l in open(p)]
n = 0
for i, r in enumerate(rs):
    if r["type"] == "eval" and r["gen"] == 0 and n < 60:
        rs[i] = {"type": "defer", "gen": 0, "idx": r["idx"], "hash": r["hash"], "t": r["t"]}
        n += 1
open(p, "w").write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rs))
PY
$K replay "$SCRATCH/m" >"$SCRATCH/out" 2>&1; rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q "^divergent at record .*more of this generation's candidates than an eighth" "$SCRATCH/out" &&
    ok "a journal deferring more than an eighth of a generation is refused, saying why" ||
    { fail "too many deferrals (rc $rc)"; cat "$SCRATCH/out"; }
# the time budget ends a generation on time: the evaluator measures
# nothing after it and hands back deferred ("end") every candidate not
# measured by then, beyond the allowance; the generation is finished (its
# gen record ends the journal), replay is identical, and a resume with a
# larger budget measures those first. Gen 0 (about 195 candidates at
# 20 ms each) outlasts the 2 s budget, so the deadline falls inside it.
KEVO_TEST_EVAL_US=20000 $T run $ARGS --generations 0 --time 2s --runs-dir "$SCRATCH" --name end ||
    fail "run --time 2s"
python3 - "$SCRATCH/end/journal.jsonl" >"$SCRATCH/cnt" 2>"$SCRATCH/err" <<'PY' &&
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
assert rs[-1]["type"] == "gen", "the journal does not end with a gen record"
end = [r for r in rs if r["type"] == "defer" and r.get("end") is True]
assert end, "no deferral at the time budget"
g = end[0]["gen"]
assert all(r["gen"] == g for r in end), "end deferrals in several generations"
mine = [r for r in rs if r["type"] in ("eval", "defer") and r["gen"] == g]
k = mine.index(end[0])
assert any(r["type"] == "eval" for r in mine[k:]), "no result measured out of order after an end deferral"
print(len(end))
PY
    ok "stopped by --time: every candidate not measured by then is deferred at the end (those measured out of order behind it are recorded), and that generation's record ends the journal ($(cat "$SCRATCH/cnt") deferred)" ||
    { fail "end deferrals"; cat "$SCRATCH/err"; }
$K status "$SCRATCH/end" >"$SCRATCH/out" 2>&1 &&
    grep -q "^unmeasured: .*not measured by the time budget" "$SCRATCH/out" &&
    grep -q "finished (time budget)" "$SCRATCH/out" &&
    ok "status says how many candidates the time budget left unmeasured" ||
    { fail "status after end deferrals"; cat "$SCRATCH/out"; }
$K replay "$SCRATCH/end" 2>&1 | grep -q "^identical" &&
    ok "a run ended on time replays identical" || fail "end replay"
# resumed with an evaluation budget smaller than what the time budget left
# unmeasured: exactly the budget is measured (the first of them), the rest
# stay carried and a resume with a larger budget measures them first
cp -r "$SCRATCH/end" "$SCRATCH/endev"
n0=$(grep -c '"type":"eval"' "$SCRATCH/endev/journal.jsonl")
nd=$(grep -c '"end":true' "$SCRATCH/endev/journal.jsonl")
nall=$(grep '"type":"defer"' "$SCRATCH/endev/journal.jsonl" | grep -vc '"dropped":true')
KEVO_TEST_EVAL_US=2000 $T resume "$SCRATCH/endev" --time 120s --evals $((n0 + 3)) --quiet ||
    fail "resume --evals +3"
n1=$(grep -c '"type":"eval"' "$SCRATCH/endev/journal.jsonl")
$K status "$SCRATCH/endev" 2>&1 | grep -q "finished (evaluation budget)" &&
    [ "$n1" = $((n0 + 3)) ] && [ "$nd" -gt 3 ] &&
    $K replay "$SCRATCH/endev" 2>&1 | grep -q "^identical" &&
    ok "resumed with --evals 3 more than measured, after $nd were left unmeasured at the time budget: exactly 3 measured, replay identical" ||
    fail "resume --evals after end deferrals: $n0 -> $n1 evaluations ($nd left at the end)"
KEVO_TEST_EVAL_US=2000 $T resume "$SCRATCH/endev" --time 120s --evals $((n0 + nall + 5)) --quiet ||
    fail "resume --evals more"
python3 - "$SCRATCH/endev/journal.jsonl" $((n0 + nall + 5)) 2>"$SCRATCH/err" <<'PY' &&
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
g = min(r["gen"] for r in rs if r["type"] == "defer" and r.get("end") is True)
d = [r["hash"] for r in rs if r["type"] == "defer" and r["gen"] == g and not r.get("dropped")]
later = [r["hash"] for r in rs if r["type"] in ("eval", "defer") and r["gen"] > g]
assert later[:len(d)] == d, "the candidates deferred when the time ran out are not the first ones after it, in order"
n = sum(r["type"] == "eval" for r in rs)
assert n == int(sys.argv[2]), f"{n} evaluations, want the budget's {sys.argv[2]}"
PY
    $K replay "$SCRATCH/endev" 2>&1 | grep -q "^identical" &&
    ok "...and a resume with a larger budget measures the rest of them first; replay identical" ||
    { fail "the carried rest after --evals"; cat "$SCRATCH/err"; }
# resumed with time to spare (a loaded machine may take seconds to
# replay and breed): the generation after the one that ended is its last
G0=$(python3 -c 'import json, sys
print(max(json.loads(l)["gen"] for l in open(sys.argv[1]) if json.loads(l)["type"] == "gen"))' "$SCRATCH/end/journal.jsonl")
KEVO_TEST_EVAL_US=20000 $T resume "$SCRATCH/end" --time 120s --generations $((G0 + 2)) --quiet ||
    fail "resume --time 120s"
python3 - "$SCRATCH/end/journal.jsonl" 2>"$SCRATCH/err" <<'PY' &&
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
end = [r for r in rs if r["type"] == "defer" and r.get("end") is True]
g = end[0]["gen"]
d = [r["hash"] for r in rs if r["type"] == "defer" and r["gen"] == g]
e = {r["hash"] for r in end if r["gen"] == g}
nxt = [r for r in rs if r["type"] in ("eval", "defer") and r["gen"] == g + 1]
assert [r["hash"] for r in nxt[:len(d)]] == d, "the deferred are not the next generation's first children"
assert any(r["type"] == "eval" and r["hash"] in e for r in nxt), "none left at the end was measured"
PY
    ok "resumed with a larger budget, the next generation measures the candidates left at the end first" ||
    { fail "resume after end deferrals"; cat "$SCRATCH/err"; }
$K replay "$SCRATCH/end" 2>&1 | grep -q "^identical" &&
    ok "and the resumed run replays identical" || fail "end resume replay"
$K status "$SCRATCH/end" --json >"$SCRATCH/st.json" 2>&1
python3 - "$SCRATCH/end/journal.jsonl" "$SCRATCH/st.json" 2>"$SCRATCH/err" <<'PY' &&
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
st = json.load(open(sys.argv[2]))
g = max(r["gen"] for r in rs if r["type"] in ("eval", "defer"))
want = sum(1 for r in rs if r["type"] == "defer" and r.get("end") is True and r["gen"] == g)
assert st["deferred_at_end"] == want, (st["deferred_at_end"], want)
PY
    ok "after the resume, status counts as unmeasured only the last generation's end deferrals" ||
    { fail "status unmeasured after resume"; cat "$SCRATCH/err"; }

finish
