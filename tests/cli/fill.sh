# The GPU fill (issue 32, run option "fill", src/engine/engine_fill.c):
# after the bred children, a generation measures launch-only neighbours of
# island members and archive elites, then of the run's other ok points
# (no compile), as many as FILL_SHARE (0.8) x the last
# generation's worker idle time holds, at most 8 per bred child (spec
# fill_per_bred). The test
# evaluator records KEVO_TEST_IDLE_MS of worker idle and
# KEVO_TEST_PHASE_MS of check/timing per result, so the size of every
# generation's fill follows from the journal; replay and resume stay exact,
# and a manifest without the key (a run made before it) replays without it.
. tests/cli/lib.inc
K="$KEVO"
ARGS="--evaluator test --problem gemm --shape 4096x4096x4096 --seed 5 \
      --generations 6 --islands 2 --population 8 --offspring 16 --quiet"
export KEVO_TEST_PHASE_MS=500,4,6
KEVO_TEST_IDLE_MS=5 $T run $ARGS --runs-dir "$SCRATCH" --name f || { fail "setup run"; finish; }
J="$SCRATCH/f/journal.jsonl"
grep -Eq '"fill":[[:space:]]*1' "$SCRATCH/f/manifest.json" &&
    ok "the fill is on by default and recorded in the manifest" ||
    fail "manifest lacks \"fill\":1"

# every generation's fill against the rule, from the journal alone: as
# many as the rule gives (in at least one generation) or fewer when the
# members' launch-only neighbours run out; each another point of a
# measured point's binary (spec fill_grid 1, the default: any other
# combination of its launch-only values; 0: one of them changed)
check() { # $1 journal, $2 idle ms, $3 check+timing ms, $4 fill_grid (1); PIPE=1: a --pipeline 1 run; FPB: fill_per_bred (8)
python3 - "$1" "$2" "$3" "$BUILD/kevo" "${4:-1}" "${FPB:-8}" <<'PY'
import json, os, subprocess, sys
idle, gpu = float(sys.argv[2]), float(sys.argv[3])
fpb = int(sys.argv[6])
grid = sys.argv[5] == "1"
multi = 0
ev = [json.loads(l) for l in open(sys.argv[1])]
ev = [r for r in ev if r["type"] == "eval"]
lo = json.loads(subprocess.check_output([sys.argv[4], "list", "--json"]))
lo = {t["name"]: set(t.get("launch_only", [])) for t in lo["templates"]}
by = {r["hash"]: r for r in ev}
gens = sorted({r["gen"] for r in ev})
last = last2 = None
pipe = os.environ.get("PIPE") == "1"
total = full = 0
for g in gens:
    rs = [r for r in ev if r["gen"] == g]
    fill = [r for r in rs if r["mutator"] == "launch"]
    bred = [r for r in rs if r["mutator"] != "launch"]
    # the fill comes after the bred children
    assert all(r["idx"] >= len(bred) for r in fill), "gen %d: fill not last" % g
    # with the pipeline (PIPE=1) generation g >= 2 is bred before g - 1
    # is measured: its fill is sized by g - 2, the last one finished then
    sized = last2 if pipe and g >= 2 else last
    if sized is None or g == 0:
        want = 0
    else:
        n, nf = len(sized), sum(r["mutator"] == "launch" for r in sized)
        want = min(int(0.8 * (n * idle + nf * gpu) / gpu), fpb * len(bred))
    # fewer only when the members have no more unmeasured neighbours
    assert len(fill) <= want, "gen %d: %d fill children, want %d" % (g, len(fill), want)
    full += len(fill) == want > 0
    for r in fill:   # a neighbour of a measured point, in launch-only params
        p = by.get(r["parents"][0])
        assert p is not None and p["gen"] < g, "parent not measured before"
        assert p["template"] == r["template"]
        diff = {k for k in r["params"] if r["params"][k] != p["params"][k]}
        assert diff and diff <= lo[r["template"]], (diff, r["template"])
        assert grid or len(diff) == 1, (diff, r["template"])
        multi += len(diff) > 1
    total += len(fill)
    last2, last = last, rs
assert total > 0 and full > 0, (total, full)
assert not grid or multi > 0, "no fill child changed two launch-only params"
print(total, "of", len(ev))
PY
}
check "$J" 5 10 >"$SCRATCH/n" 2>"$SCRATCH/err" &&
    ok "each generation's fill has the size the last one's idle time gives and holds launch-only neighbours of measured points ($(cat "$SCRATCH/n") evaluations)" ||
    { fail "the fill's size or its children"; cat "$SCRATCH/err"; }
# fill_grid 0 (what runs made before it recorded; a manifest without the
# key reads so): a fill child changes one launch-only param of its parent
printf '{"fill_grid": 0}\n' >"$SCRATCH/g0.json"
KEVO_TEST_IDLE_MS=5 $T run $ARGS --spec "$SCRATCH/g0.json" --runs-dir "$SCRATCH" --name g0 || fail "fill_grid 0 run"
check "$SCRATCH/g0/journal.jsonl" 5 10 0 >/dev/null 2>"$SCRATCH/err" &&
    ! check "$SCRATCH/g0/journal.jsonl" 5 10 1 >/dev/null 2>&1 &&
    ! check "$J" 5 10 0 >/dev/null 2>&1 &&
    grep -Eq '"fill_grid":[[:space:]]*0' "$SCRATCH/g0/manifest.json" &&
    grep -Eq '"fill_grid":[[:space:]]*1' "$SCRATCH/f/manifest.json" &&
    ok "fill_grid 0: each fill child one launch-only param away from its parent; the default's run has children two or more away" ||
    { fail "fill_grid 0"; cat "$SCRATCH/err"; }
without_key fill_grid "$SCRATCH/g0" "$SCRATCH/g0k"
without_key fill_grid "$SCRATCH/f" "$SCRATCH/fk"
$K replay "$SCRATCH/g0k" 2>&1 | grep -q "^identical" &&
    ! $K replay "$SCRATCH/fk" >/dev/null 2>&1 &&
    ok "a manifest without fill_grid replays with the fill one param away" ||
    fail "fill_grid legacy manifest"
# fill_per_bred: the cap per bred child. With 50 ms of idle recorded a
# result the rule asks for ~4 fill children per result of the generation
# before, far past 2 per bred child: the run with fill_per_bred 2 holds
# exactly 2 per bred child where the members' neighbours last, which the
# rule with 8 would not give; a manifest without the key reads 8
printf '{"fill_per_bred": 2}\n' >"$SCRATCH/fpb.json"
KEVO_TEST_IDLE_MS=50 $T run $ARGS --spec "$SCRATCH/fpb.json" --runs-dir "$SCRATCH" --name fpb || fail "fill_per_bred 2 run"
KEVO_TEST_IDLE_MS=50 $T run $ARGS --runs-dir "$SCRATCH" --name fpb8 || fail "fill_per_bred 8 run"
FPB=2 check "$SCRATCH/fpb/journal.jsonl" 50 10 >"$SCRATCH/cnt" 2>"$SCRATCH/err" &&
    ! check "$SCRATCH/fpb/journal.jsonl" 50 10 >/dev/null 2>&1 &&
    check "$SCRATCH/fpb8/journal.jsonl" 50 10 >/dev/null 2>&1 &&
    ! FPB=2 check "$SCRATCH/fpb8/journal.jsonl" 50 10 >/dev/null 2>&1 &&
    grep -Eq '"fill_per_bred":[[:space:]]*2' "$SCRATCH/fpb/manifest.json" &&
    grep -Eq '"fill_per_bred":[[:space:]]*8' "$SCRATCH/fpb8/manifest.json" &&
    $K replay "$SCRATCH/fpb" 2>&1 | grep -q "^identical" &&
    ok "fill_per_bred 2: at most 2 fill children per bred child, as many in some generation ($(cat "$SCRATCH/cnt")); the default's run has more; replays identical" ||
    { fail "fill_per_bred 2"; cat "$SCRATCH/err"; }
without_key fill_per_bred "$SCRATCH/fpb8" "$SCRATCH/fpbk"
without_key fill_per_bred "$SCRATCH/fpb" "$SCRATCH/fpb2k"
$K replay "$SCRATCH/fpbk" 2>&1 | grep -q "^identical" &&
    ! $K replay "$SCRATCH/fpb2k" >/dev/null 2>&1 &&
    ok "a manifest without fill_per_bred replays with 8 per bred child" ||
    fail "fill_per_bred legacy manifest"
for v in 0 65; do
    printf '{"fill_per_bred": %s}\n' $v >"$SCRATCH/fpbv.json"
    $T run $ARGS --spec "$SCRATCH/fpbv.json" --runs-dir "$SCRATCH" --name fpbv$v >"$SCRATCH/out" 2>&1 &&
        fail "fill_per_bred $v accepted" ||
        { grep -q "fill_per_bred" "$SCRATCH/out" && ok "fill_per_bred $v is refused, naming the key" ||
          { fail "fill_per_bred $v's error"; cat "$SCRATCH/out"; }; }
done
$K status "$SCRATCH/f" | grep -q "^fill: *$(cut -d' ' -f1 "$SCRATCH/n") evaluations" &&
    ok "status counts the fill's evaluations" || fail "status fill line"
$K replay "$SCRATCH/f" >"$SCRATCH/out" 2>&1 && grep -q "^identical" "$SCRATCH/out" &&
    ok "a run with the fill replays identical" || { fail "replay"; cat "$SCRATCH/out"; }

# no idle time recorded, or --fill 0: no fill, and the decisions differ
$T run $ARGS --runs-dir "$SCRATCH" --name ni || fail "run without idle time"
KEVO_TEST_IDLE_MS=5 $T run $ARGS --fill 0 --runs-dir "$SCRATCH" --name z || fail "run --fill 0"
! grep -q '"mutator":"launch"' "$SCRATCH/ni/journal.jsonl" &&
    ! grep -q '"mutator":"launch"' "$SCRATCH/z/journal.jsonl" &&
    grep -Eq '"fill":[[:space:]]*0' "$SCRATCH/z/manifest.json" &&
    ok "no fill without idle time or with --fill 0" || fail "fill without idle / --fill 0"
pts() { grep -o '"type":"eval","gen":[0-9]*,"idx":[0-9]*,"island":[0-9]*,"hash":"[0-9a-f]*"' "$1"; }
pts "$SCRATCH/ni/journal.jsonl" >"$SCRATCH/ni.pts"; pts "$SCRATCH/z/journal.jsonl" >"$SCRATCH/z.pts"
[ -s "$SCRATCH/z.pts" ] && cmp -s "$SCRATCH/ni.pts" "$SCRATCH/z.pts" &&
    ok "--fill 0 with idle time makes the decisions of a run without idle time" ||
    fail "--fill 0 changed decisions"
pts "$J" >"$SCRATCH/f.pts"
cmp -s "$SCRATCH/f.pts" "$SCRATCH/z.pts" && fail "the fill changed no decision (the test proves nothing)"
expect_fail "a fill other than 0 or 1 is refused" "--fill" \
    $T run $ARGS --fill 2 --runs-dir "$SCRATCH" --name x

# a manifest without the key is a run made before it: replayed without
# the fill (identical for one made so; divergent for one with it)
for r in z f; do without_key fill "$SCRATCH/$r" "$SCRATCH/o$r"; done
$K replay "$SCRATCH/oz" 2>&1 | grep -q "^identical" &&
    ok "a manifest without 'fill' (an older run) replays identical" ||
    fail "old-manifest replay"
$K replay "$SCRATCH/of" >/dev/null 2>&1 &&
    fail "a journal with the fill replays identical without it" ||
    ok "without the key the fill is off: a journal with it is divergent"

# stopped by --evals inside a generation, resumed with a larger budget,
# and the pipeline: the resume and its replay agree
KEVO_TEST_IDLE_MS=5 $T run $ARGS --generations 0 --evals 300 --runs-dir "$SCRATCH" --name e &&
    KEVO_TEST_IDLE_MS=5 $T resume "$SCRATCH/e" --evals 420 --quiet || fail "run --evals, resume --evals"
$K replay "$SCRATCH/e" >"$SCRATCH/out" 2>&1 && grep -q "^identical: 420 evaluations" "$SCRATCH/out" &&
    grep -q '"mutator":"launch"' "$SCRATCH/e/journal.jsonl" &&
    ok "a run with the fill resumed with a larger --evals replays identical" ||
    { fail "fill --evals resume replay"; cat "$SCRATCH/out"; }
KEVO_TEST_IDLE_MS=5 $T run $ARGS --pipeline 1 --runs-dir "$SCRATCH" --name p || fail "run --pipeline 1"
PIPE=1 check "$SCRATCH/p/journal.jsonl" 5 10 >/dev/null 2>"$SCRATCH/err" &&
    $K replay "$SCRATCH/p" 2>&1 | grep -q "^identical" &&
    ok "with the pipeline the fill follows the same rule and replays identical" ||
    { fail "fill with the pipeline"; cat "$SCRATCH/err"; }

# a journal is foreign input: absurd recorded idle times (1e300 ms, as
# a hand-edited or damaged run directory may hold) size no more than 4
# fill children per bred one, and the run goes on
KEVO_TEST_IDLE_MS=5 $T run $ARGS --generations 3 --runs-dir "$SCRATCH" --name h || fail "setup for the edited journal"
sed -i -E 's/"worker_idle":5/"worker_idle":1e300/g' "$SCRATCH/h/journal.jsonl"
KEVO_TEST_IDLE_MS=5 $T resume "$SCRATCH/h" --generations 4 --quiet &&
python3 - "$SCRATCH/h/journal.jsonl" <<'PY' && ok "absurd recorded idle times: the fill stays at 8 per bred child and the resumed run goes on" || fail "fill from an edited journal"
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
g3 = [r for r in rs if r["type"] == "eval" and r["gen"] == 3]
fill = sum(r["mutator"] == "launch" for r in g3)
assert g3 and 0 < fill <= 8 * (len(g3) - fill), (len(g3), fill)
PY

# when the members' and elites' neighbours are measured, the fill takes
# those of the run's other ok points: on softmax (only softmax_bulk has
# launch-only params, BPS and DROP) the members' alone ran dry in
# generation 3 (80 of 144); now generations 1-3 each get their full size,
# and the run replays identical
KEVO_TEST_IDLE_MS=5 $T run --evaluator test --problem softmax --shape 4096x4096 --seed 5 \
    --generations 4 --islands 2 --population 8 --offspring 16 --quiet \
    --runs-dir "$SCRATCH" --name s || fail "softmax run"
python3 - "$SCRATCH/s/journal.jsonl" <<'PY' 2>"$SCRATCH/err" &&
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
ev = [r for r in ev if r["type"] == "eval"]
last = None
for g in range(4):
    rs = [r for r in ev if r["gen"] == g]
    nf = sum(r["mutator"] == "launch" for r in rs)
    if last:
        lf = sum(r["mutator"] == "launch" for r in last)
        want = min(int(0.8 * (len(last) * 5 + lf * 10) / 10), 8 * (len(rs) - nf))
        assert nf == want > 0, (g, nf, want)
    last = rs
PY
    $K replay "$SCRATCH/s" 2>&1 | grep -q "^identical" &&
    ok "the fill draws on the run's other ok points once the members' neighbours are measured: softmax's generations 1-3 each get their full size" ||
    { fail "fill from the run's ok points"; cat "$SCRATCH/err"; }

# two GPUs (the fan-out of test evaluators, each recording the same idle
# time): one GPU's journal
KEVO_TEST_IDLE_MS=5 $T run $ARGS --gpus 0,1 --runs-dir "$SCRATCH" --name g || fail "run --gpus 0,1"
canon() { $CANON "$1" | sed -E 's/,"gpu":[0-9]+//'; }
canon "$J" >"$SCRATCH/f.canon"
canon "$SCRATCH/g/journal.jsonl" >"$SCRATCH/g.canon"
cmp -s "$SCRATCH/f.canon" "$SCRATCH/g.canon" &&
    ok "two GPUs make one GPU's journal with the fill" ||
    { fail "fan-out fill"; diff "$SCRATCH/f.canon" "$SCRATCH/g.canon" | head -5; }
# generation 0's fill (spec fill0, 2 by default): up to 8 launch-only neighbours of each
# of its points, optional: measured while compiles run, dropped when the
# rest is measured ("defer" records with "dropped"). KEVO_TEST_DROP makes
# the test evaluator one that can drop: it drops those with an odd genome
# hash; without it (an evaluator that cannot drop) a run records fill0 0.
grep -Eq '"fill0":[[:space:]]*0' "$SCRATCH/f/manifest.json" &&
    ! grep -q '"dropped"' "$J" &&
    ok "an evaluator that cannot drop records fill0 0 and no drop" ||
    fail "fill0 without set_drop"
KEVO_TEST_DROP=1 $T run $ARGS --runs-dir "$SCRATCH" --name z0 || fail "fill0 run"
grep -Eq '"fill0":[[:space:]]*2' "$SCRATCH/z0/manifest.json" || fail "manifest lacks \"fill0\":2"
python3 - "$SCRATCH/z0/journal.jsonl" >"$SCRATCH/cnt" 2>"$SCRATCH/err" <<'PY' &&
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
g0 = [r for r in rs if r["type"] in ("eval", "defer") and r["gen"] == 0]
init = [r for r in g0 if r["type"] == "eval" and r["mutator"] != "launch"]
fill = [r for r in g0 if r["type"] == "eval" and r["mutator"] == "launch"]
drop = [r for r in rs if r["type"] == "defer" and r.get("dropped") and r["gen"] == 0]
assert fill and drop, "no fill or no drop in generation 0"
hi = max(r["idx"] for r in init)
assert all(r["idx"] > hi for r in fill + drop), "the fill is not after the points"
par = {r["hash"] for r in init}
assert all(r["parents"][0] in par for r in fill), "a fill child's parent is not a point of generation 0"
assert all(int(r["hash"], 16) % 2 == 1 for r in drop), "dropped one the evaluator measured"
assert all(int(r["hash"], 16) % 2 == 0 for r in fill), "measured one the evaluator dropped"
assert len(fill) + len(drop) <= 8 * len(init)
per = {}
for r in fill:
    per[r["parents"][0]] = per.get(r["parents"][0], 0) + 1
print(len(fill), len(drop), max(per.values()))
PY
    ok "generation 0 holds launch-only neighbours of its points after them, the ones not reached dropped ($(cat "$SCRATCH/cnt") measured / dropped)" ||
    { fail "fill0 journal"; cat "$SCRATCH/err"; }
$K replay "$SCRATCH/z0" 2>&1 | grep -q "^identical" &&
    $K status "$SCRATCH/z0" 2>&1 | grep -q "optional ones not reached .*dropped" &&
    ok "a run with generation 0's fill replays identical, and status counts the dropped" ||
    fail "fill0 replay or status"
# fill0 1 (what runs made at b060d89..4d3595c recorded): at most 4 a point,
# where the default's run gave some point more
most0() {
python3 - "$1" <<'PY'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
per = {}
for r in rs:
    if r["type"] == "eval" and r["gen"] == 0 and r["mutator"] == "launch":
        per[r["parents"][0]] = per.get(r["parents"][0], 0) + 1
print(max(per.values()))
PY
}
printf '{"fill0": 1}\n' >"$SCRATCH/f01.json"
KEVO_TEST_DROP=1 $T run $ARGS --spec "$SCRATCH/f01.json" --runs-dir "$SCRATCH" --name z01 || fail "fill0 1 run"
m1=$(most0 "$SCRATCH/z01/journal.jsonl") m2=$(most0 "$SCRATCH/z0/journal.jsonl")
[ -n "$m1" ] && [ "$m1" -le 4 ] && [ "$m2" -gt 4 ] &&
    $K replay "$SCRATCH/z01" 2>&1 | grep -q "^identical" &&
    ok "fill0 1: at most 4 launch-only neighbours a point in generation 0 ($m1; the default's run $m2), replays identical" ||
    fail "fill0 1: $m1 a point (default $m2)"
# the spare fill (spec fill_spare, 2 by default): every later generation
# also holds, after its planned fill, up to fill_spare halves of it more
# (at least half its bred children), the next best rated, optional:
# measured while compiles run, the rest dropped. The planned fill's size
# keeps its rule, counting the spare ones measured as fill.
grep -Eq '"fill_spare":[[:space:]]*2' "$SCRATCH/z0/manifest.json" &&
    grep -Eq '"fill_spare":[[:space:]]*0' "$SCRATCH/f/manifest.json" &&
    ok "fill_spare is on with an evaluator that can drop, recorded 0 with one that cannot" ||
    fail "fill_spare in the manifests"
spare() { # $1 journal, $2 idle ms, $3 check+timing ms, $4 fill_spare,
          # $5 "exact": some generation holds as many as the rule allows
python3 - "$1" "$2" "$3" "$4" "${5:-}" <<'PY'
import json, sys
idle, gpu, halves = float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
exact = sys.argv[5] == "exact"
full = not exact
rs = [json.loads(l) for l in open(sys.argv[1])]
ev = [r for r in rs if r["type"] == "eval"]
dr = [r for r in rs if r["type"] == "defer" and r.get("dropped")]
last = None
spared = dropped = 0
for g in sorted({r["gen"] for r in ev}):
    e = [r for r in ev if r["gen"] == g]
    d = [r for r in dr if r["gen"] == g]
    bred = [r for r in e if r["mutator"] != "launch"]
    fill = [r for r in e if r["mutator"] == "launch"]
    if g > 0:
        n, nf = len(last), sum(r["mutator"] == "launch" for r in last)
        want = min(int(0.8 * (n * idle + nf * gpu) / gpu), 8 * len(bred))
        most = min(max(want * halves // 2, len(bred) // 2), 8 * len(bred) - want)
        req = [r for r in fill if r["idx"] < len(bred) + want]
        opt = [r for r in fill if r["idx"] >= len(bred) + want]
        assert len(req) <= want, (g, len(req), want)
        # the spare ones come after the planned fill: when some are
        # dropped, the planned fill was whole
        assert not d or len(req) == want, (g, len(req), want)
        assert all(r["idx"] >= len(bred) + want for r in d), "dropped a planned one"
        assert len(opt) + len(d) <= most, (g, len(opt), len(d), most)
        full |= len(opt) + len(d) == most
        # the test evaluator drops the optional ones with an odd hash
        assert all(int(r["hash"], 16) % 2 == 1 for r in d)
        assert all(int(r["hash"], 16) % 2 == 0 for r in opt)
        spared += len(opt)
        dropped += len(d)
    last = e
assert spared > 0 and dropped > 0, (spared, dropped)
assert full, "no generation held as many spare ones as the rule allows"
print(spared, dropped)
PY
}
# (generation 0's fill at 4 a point, fill0 1, and the fill one launch-only
# param away, fill_grid 0, as when these sizes were set)
printf '{"fill0": 1, "fill_grid": 0}\n' >"$SCRATCH/f01s.json"
KEVO_TEST_DROP=1 KEVO_TEST_IDLE_MS=1 $T run $ARGS --spec "$SCRATCH/f01s.json" --runs-dir "$SCRATCH" --name sp || fail "spare fill run"
spare "$SCRATCH/sp/journal.jsonl" 1 10 2 >"$SCRATCH/cnt" 2>"$SCRATCH/err" &&
    $K replay "$SCRATCH/sp" 2>&1 | grep -q "^identical" &&
    ok "later generations hold spare launch-only neighbours after the planned fill, optional, the ones not reached dropped ($(cat "$SCRATCH/cnt") measured / dropped); the run replays identical" ||
    { fail "spare fill"; cat "$SCRATCH/err"; }
# fill_spare 1 (what runs made at 2c2de0f..3d0ac44 recorded): half as many
printf '{"fill_spare": 1, "fill0": 1, "fill_grid": 0}\n' >"$SCRATCH/half.json"
KEVO_TEST_DROP=1 KEVO_TEST_IDLE_MS=1 $T run $ARGS --spec "$SCRATCH/half.json" --runs-dir "$SCRATCH" --name sph ||
    fail "spare fill 1 run"
spare "$SCRATCH/sph/journal.jsonl" 1 10 1 >"$SCRATCH/cnt" 2>"$SCRATCH/err" &&
    ! spare "$SCRATCH/sp/journal.jsonl" 1 10 1 >/dev/null 2>&1 &&
    $K replay "$SCRATCH/sph" 2>&1 | grep -q "^identical" &&
    ok "fill_spare 1: half as many spare ones ($(cat "$SCRATCH/cnt") measured / dropped), replays identical; the default's run has more" ||
    { fail "spare fill 1"; cat "$SCRATCH/err"; }
# fill_spare 4: twice as many (a run's spare ones within twice the
# planned fill, and more of them than the rule for 2 allows; 64 bred
# children a generation, so that 8 per bred child does not cap them)
printf '{"fill_spare": 4, "fill0": 1, "fill_grid": 0}\n' >"$SCRATCH/twice.json"
KEVO_TEST_DROP=1 KEVO_TEST_IDLE_MS=1 $T run $ARGS --offspring 64 --generations 4 \
    --spec "$SCRATCH/twice.json" --runs-dir "$SCRATCH" --name sp4 ||
    fail "spare fill 4 run"
spare "$SCRATCH/sp4/journal.jsonl" 1 10 4 exact >"$SCRATCH/cnt" 2>"$SCRATCH/err" &&
    ! spare "$SCRATCH/sp4/journal.jsonl" 1 10 2 >/dev/null 2>&1 &&
    $K replay "$SCRATCH/sp4" 2>&1 | grep -q "^identical" &&
    ok "fill_spare 4: twice as many spare ones ($(cat "$SCRATCH/cnt") measured / dropped), more than 2 allows; replays identical" ||
    { fail "spare fill 4"; cat "$SCRATCH/err"; }
printf '{"fill_spare": 5}\n' >"$SCRATCH/five.json"
$T run $ARGS --spec "$SCRATCH/five.json" --runs-dir "$SCRATCH" --name sp5 >"$SCRATCH/out" 2>&1 &&
    fail "fill_spare 5 accepted" ||
    { grep -q "fill_spare" "$SCRATCH/out" && ok "fill_spare 5 is refused, naming the key" ||
      { fail "fill_spare 5's error"; cat "$SCRATCH/out"; }; }
# without the key (a run made before it) the replay breeds no spare ones:
# divergent for this journal
without_key fill_spare "$SCRATCH/sp" "$SCRATCH/osp"
$K replay "$SCRATCH/osp" >"$SCRATCH/out" 2>&1 &&
    fail "a journal with spare fill replays identical without fill_spare" ||
    ok "without the key the spare fill is off: a journal with it is divergent"
canon "$SCRATCH/z0/journal.jsonl" >"$SCRATCH/z0.canon"
for n in 40 160 700; do
    KEVO_TEST_DROP=1 KEVO_TEST_EVAL_US=3000 $T run $ARGS --runs-dir "$SCRATCH" --name zk$n &
    pid=$!
    w=0
    while [ $w -lt 400 ] && [ "$(cat "$SCRATCH/zk$n/journal.jsonl" 2>/dev/null | wc -l)" -lt $n ]; do
        sleep 0.02; w=$((w + 1))
    done
    kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
    # the killed journal replays as it is (a generation it ends inside is
    # bred with the run's own budget, as the run bred it)
    [ -d "$SCRATCH/zk$n" ] && ! $K replay "$SCRATCH/zk$n" 2>&1 | grep -q "^identical" &&
        fail "fill0 kill at $n records: the killed journal does not replay identical"
    if [ -d "$SCRATCH/zk$n" ]; then KEVO_TEST_DROP=1 $T resume "$SCRATCH/zk$n" --quiet
    else KEVO_TEST_DROP=1 $T run $ARGS --runs-dir "$SCRATCH" --name zk$n; fi || fail "fill0 kill at $n: resume"
    canon "$SCRATCH/zk$n/journal.jsonl" >"$SCRATCH/zk$n.canon"
    cmp -s "$SCRATCH/z0.canon" "$SCRATCH/zk$n.canon" ||
        { fail "fill0 kill at $n records: the resumed journal differs"; diff "$SCRATCH/z0.canon" "$SCRATCH/zk$n.canon" | head -4; }
done
[ $FAILED = 0 ] && ok "kill -9 inside generation 0 and after it, and resume: the uninterrupted run's journal, drops included"
# an --evals budget that cuts generation 0's fill: the replay budgets
# what the run had (a drop is no child the budget cut)
KEVO_TEST_DROP=1 KEVO_TEST_IDLE_MS=5 $T run $ARGS --generations 0 --evals 300 --runs-dir "$SCRATCH" --name zb ||
    fail "fill0 --evals 300"
$K replay "$SCRATCH/zb" >"$SCRATCH/out" 2>&1 && grep -q "^identical" "$SCRATCH/out" &&
    grep -q '"dropped"' "$SCRATCH/zb/journal.jsonl" &&
    ok "a run whose --evals cuts generation 0's fill replays identical" ||
    { fail "fill0 --evals replay"; cat "$SCRATCH/out"; }
# an --evals budget that cuts a later generation with drops (spare ones),
# resumed with a larger one: the cut generation records its budget (its
# dropped children were children), so the whole replays identical
KEVO_TEST_DROP=1 KEVO_TEST_IDLE_MS=1 $T run $ARGS --generations 0 --evals 557 --runs-dir "$SCRATCH" --name zc &&
    KEVO_TEST_DROP=1 KEVO_TEST_IDLE_MS=1 $T resume "$SCRATCH/zc" --evals 1000 --quiet ||
    fail "spare --evals run and resume"
$K replay "$SCRATCH/zc" >"$SCRATCH/out" 2>&1 && grep -q "^identical: 1000 evaluations" "$SCRATCH/out" &&
    grep -q '"evals_budget":557' "$SCRATCH/zc/journal.jsonl" &&
    ok "a generation cut by --evals with dropped spare ones records its budget; resumed with a larger one, the run replays identical" ||
    { fail "spare --evals resume replay"; cat "$SCRATCH/out"; }
# killed inside generation 0 and resumed through the fan-out (--gpus 0; it
# cannot drop, and defers some of the optional ones: they are dropped)
KEVO_TEST_DROP=1 KEVO_TEST_EVAL_US=3000 $T run $ARGS --runs-dir "$SCRATCH" --name zg &
pid=$!
w=0
while [ $w -lt 400 ] && [ "$(cat "$SCRATCH/zg/journal.jsonl" 2>/dev/null | wc -l)" -lt 40 ]; do
    sleep 0.02; w=$((w + 1))
done
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
if [ -d "$SCRATCH/zg" ]; then
    KEVO_TEST_DEFER=30 $T resume "$SCRATCH/zg" --gpus 0 --quiet >"$SCRATCH/out" 2>&1 &&
        $K replay "$SCRATCH/zg" 2>&1 | grep -q "^identical" &&
        ok "killed inside generation 0 and resumed through the fan-out (--gpus 0: it cannot drop, and defers optional ones, which are dropped): the run ends and replays identical" ||
        { fail "fill0 resume on the fan-out"; cat "$SCRATCH/out"; }
else
    fail "fill0: the run to kill made no run directory"
fi

# a drop of a candidate that was not optional is a divergence that says so
cp -r "$SCRATCH/z0" "$SCRATCH/zx"
python3 - "$SCRATCH/zx/journal.jsonl" <<'PY'
import json, sys
p = sys.argv[1]; rs = [json.loads(l) for l in open(p)]
for i, r in enumerate(rs):
    if r["type"] == "eval" and r["gen"] == 0 and r["mutator"] != "launch":
        rs[i] = {"type": "defer", "gen": 0, "idx": r["idx"], "hash": r["hash"], "dropped": True, "t": r["t"]}
        break
open(p, "w").write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rs))
PY
$K replay "$SCRATCH/zx" >"$SCRATCH/out" 2>&1; rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q "^divergent at record .*drops a candidate that was not optional" "$SCRATCH/out" &&
    ok "a journal dropping a bred candidate is refused, saying why" ||
    { fail "drop of a bred candidate (rc $rc)"; cat "$SCRATCH/out"; }
# a binary with more launch-only points than FILL_GRID_MAX (512): each
# measured point offers the 512 after its own, so the points of one
# binary together reach all of it (softmax_block with GRID 0..31 and a
# launch-only PAD 0..31: 7 x 32 x 32 = 7168 points a binary; from the
# first point on only, no fill child would lie past the 512th)
mkdir -p "$SCRATCH/tgrid/softmax"
cp -r templates/include "$SCRATCH/tgrid/"
sed -e "s|^// kevo: param GRID 0 1 2 3 4 8 default=0|// kevo: param GRID $(seq -s ' ' 0 31) default=0\n// kevo: param PAD $(seq -s ' ' 0 31) default=0|" \
    -e 's|^// kevo: grid GRID ? min(ROWS, GRID \* SMS) : ROWS$|// kevo: grid GRID ? min(ROWS, GRID * SMS) : ROWS + 0 * PAD|' \
    templates/softmax/softmax_block.cu >"$SCRATCH/tgrid/softmax/softmax_block.cu"
KEVO_TEST_DROP=1 KEVO_TEST_IDLE_MS=5 $T run --evaluator test --problem softmax --shape 4096x4096 --seed 5 \
    --generations 4 --templates-dir "$SCRATCH/tgrid" --runs-dir "$SCRATCH" --name tg --quiet &&
python3 - "$SCRATCH/tg/journal.jsonl" <<'PY' >"$SCRATCH/cnt" 2>"$SCRATCH/err" &&
import json, sys
occ = [0, 2, 3, 4, 6, 8, 12]
rs = [json.loads(l) for l in open(sys.argv[1])]
fl = [r for r in rs if r["type"] == "eval" and r["mutator"] == "launch"]
assert all("PAD" in r["params"] for r in fl) and fl
pos = [(occ.index(r["params"]["OCC"]) * 32 + r["params"]["GRID"]) * 32 + r["params"]["PAD"] for r in fl]
far = sum(p >= 1024 for p in pos)
assert far > 0, (len(fl), max(pos))
print(far, len(fl))
PY
    $K replay "$SCRATCH/tg" 2>&1 | grep -q "^identical" &&
    ok "a binary of 7168 launch-only points: its measured points offer the 512 after each, reaching past the first 512 ($(cat "$SCRATCH/cnt") fill children past the 1024th point); replays identical" ||
    { fail "fill over a grid past FILL_GRID_MAX"; cat "$SCRATCH/err"; }

# the spare's compile rule (spec fill_compile, 1 by default): a generation
# also gets as many spare ones as the GPU measures while its compiles run
# (the distinct binaries its bred children need that the run has not
# measured x the run's mean compile ms / the compile processes each
# result records, over the last generation's check+timing ms an
# evaluation), less the planned fill, the bred children whose binary the
# run has and those compiles. KEVO_TEST_COMPILERS=N records N compile
# processes and the compile time only for a source's first result.
cspare() { # $1 journal, $2 idle ms, $3 check+timing ms, $4 compile ms,
           # $5 compilers, $6 fill_spare
python3 - "$@" <<'PY'
import json, sys
idle, gpu, cms, procs = (float(x) for x in sys.argv[2:6])
halves = int(sys.argv[6])
rs = [json.loads(l) for l in open(sys.argv[1])]
ev = [r for r in rs if r["type"] == "eval"]
dr = [r for r in rs if r["type"] == "defer" and r.get("dropped")]
assert not [r for r in rs if r["type"] == "defer" and not r.get("dropped")]
seen, last, by_rule = set(), None, 0
for g in sorted({r["gen"] for r in ev}):
    e = [r for r in ev if r["gen"] == g]
    d = [r for r in dr if r["gen"] == g]
    bred = [r for r in e if r["mutator"] != "launch"]
    if g > 0:
        n, nf = len(last), sum(r["mutator"] == "launch" for r in last)
        want = min(int(0.8 * (n * idle + nf * gpu) / gpu), 8 * len(bred))
        old = max(want * halves // 2, len(bred) // 2)
        need = {r["source"] for r in bred if r["source"] not in seen}
        ready = sum(r["source"] in seen for r in bred)
        comp = len(need) * cms / procs / gpu - (want + ready + len(need))
        comp = 0 if comp < 1 else int(comp)
        most = min(max(old, comp), 8 * len(bred) - want)
        got = sum(r["mutator"] == "launch" and r["idx"] >= len(bred) + want
                  for r in e) + len(d)
        assert got == most, (g, got, most, old, comp)
        by_rule += old < comp == most
    seen |= {r["source"] for r in e}
    last = e
assert by_rule > 0, "the compile rule sized no generation"
print(by_rule)
PY
}
# seed 6: a run in which the rule itself (not the old spare, nor the cap
# of 8 a bred child) sizes some generations; every generation is checked
# against the whole rule either way
CR="--evaluator test --problem softmax --shape 4096x4096 --seed 6 --islands 2 --population 8 --offspring 64 --quiet"
printf '{"fill_spare": 1}\n' >"$SCRATCH/cr.json"
printf '{"fill_spare": 1, "fill_compile": 0}\n' >"$SCRATCH/cr0.json"
export KEVO_TEST_DROP=1 KEVO_TEST_IDLE_MS=0.1 KEVO_TEST_PHASE_MS=300,1,1 KEVO_TEST_COMPILERS=12
$T run $CR --generations 6 --spec "$SCRATCH/cr.json" --runs-dir "$SCRATCH" --name cr || fail "compile rule run"
$T run $CR --generations 6 --spec "$SCRATCH/cr0.json" --runs-dir "$SCRATCH" --name cr0 || fail "fill_compile 0 run"
$T run $CR --generations 3 --spec "$SCRATCH/cr.json" --runs-dir "$SCRATCH" --name crr &&
    $T resume "$SCRATCH/crr" --generations 6 --quiet || fail "compile rule run, resumed"
cspare "$SCRATCH/cr/journal.jsonl" 0.1 2 300 12 1 >"$SCRATCH/cnt" 2>"$SCRATCH/err" &&
    grep -Eq '"fill_compile":[[:space:]]*1' "$SCRATCH/cr/manifest.json" &&
    $K replay "$SCRATCH/cr" 2>&1 | grep -q "^identical" &&
    $CANON "$SCRATCH/cr/journal.jsonl" >"$SCRATCH/cr.canon" &&
    $CANON "$SCRATCH/crr/journal.jsonl" >"$SCRATCH/crr.canon" &&
    cmp -s "$SCRATCH/cr.canon" "$SCRATCH/crr.canon" &&
    ok "a generation whose compiles outlast its required candidates gets spare ones for them ($(cat "$SCRATCH/cnt") of 5 sized by the compile rule); replays identical, a resume makes the same journal" ||
    { fail "spare compile rule"; cat "$SCRATCH/err"; }
spare "$SCRATCH/cr0/journal.jsonl" 0.1 2 1 >/dev/null 2>&1 &&
    ! spare "$SCRATCH/cr/journal.jsonl" 0.1 2 1 >/dev/null 2>&1 &&
    grep -Eq '"fill_compile":[[:space:]]*0' "$SCRATCH/cr0/manifest.json" &&
    $K replay "$SCRATCH/cr0" 2>&1 | grep -q "^identical" &&
    ok "fill_compile 0: the spare by fill_spare alone (the compile rule's run has more than it allows)" ||
    fail "fill_compile 0"
# a manifest without the key (a run made before it) reads as 0
python3 - "$SCRATCH/cr0/manifest.json" <<'PY'
import json, sys
p = sys.argv[1]; m = json.load(open(p)); del m["spec"]["fill_compile"]
open(p, "w").write(json.dumps(m, indent=2))
PY
$K replay "$SCRATCH/cr0" 2>&1 | grep -q "^identical" &&
    ok "a manifest without fill_compile replays with the spare by fill_spare alone" ||
    fail "fill_compile legacy manifest"
unset KEVO_TEST_DROP KEVO_TEST_IDLE_MS KEVO_TEST_COMPILERS
export KEVO_TEST_PHASE_MS=500,4,6
finish
