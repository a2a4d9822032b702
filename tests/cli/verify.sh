# kevo verify without a GPU: bad run directories and options get clear
# errors, a good run gets "kevo verify needs a GPU" (exit 3) and no
# verify.json; every run's manifest carries the environment fingerprint.
. tests/cli/lib.inc
K="$KEVO"
$T run --evaluator test --problem gemm --shape 300x200x100 --seed 4 --generations 2 \
    --runs-dir "$SCRATCH" --name v --quiet || { fail "setup run"; finish; }

# the fingerprint: GPU part null with a reason (test evaluator), software
# and kevo parts, and a hash
M="$SCRATCH/v/manifest.json"
grep -q '"fingerprint":' "$M" && grep -q '"gpu_reason":[[:space:]]*"the evaluator test reported no GPU"' "$M" \
    && grep -q '"nvrtc":' "$M" && grep -q '"compile_options":' "$M" \
    && grep -q '"hash":[[:space:]]*"[0-9a-f]\{16\}"' "$M" \
    && ok "the manifest carries the environment fingerprint (GPU null with its reason)" \
    || { fail "manifest fingerprint"; cat "$M"; }

expect_fail "verify of a missing run directory says so" "is not a kevo run directory" \
    $K verify "$SCRATCH/nope"
expect_fail "verify --top 0 is refused" "--top: '0' is not an integer" $K verify "$SCRATCH/v" --top 0
expect_fail "verify --reps x is refused" "--reps: 'x' is not an integer" $K verify "$SCRATCH/v" --reps x
expect_fail "verify without a run directory is a usage error" "expected one run directory" $K verify
if [ ! -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ] && ! ldconfig -p | grep -q libcuda.so.1; then
    $K verify "$SCRATCH/v" >"$SCRATCH/out" 2>"$SCRATCH/err"; rc=$?
    [ $rc = 3 ] && grep -q "^kevo verify needs a GPU: " "$SCRATCH/err" && [ ! -e "$SCRATCH/v/verify.json" ] \
        && ok "verify without a GPU says it needs one (exit 3) and writes nothing" \
        || { fail "verify without a GPU: exit $rc"; cat "$SCRATCH/err"; }
fi
$K verify --help | grep -q "usage: kevo verify" && ok "verify --help" || fail "verify --help"

# A run made before the header line left out the launch-only params
# (tests/data/run-header-v1: softmax_warp, whose OCC is launch-only, by
# the test evaluator; its manifest has no spec key source_header, which
# reads as 0): verify rebuilds its sources as it recorded them (up to the
# GPU), and replay is identical.
if [ ! -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ] && ! ldconfig -p | grep -q libcuda.so.1; then
    cp -r tests/data/run-header-v1 "$SCRATCH/h1"
    $K verify "$SCRATCH/h1" >"$SCRATCH/out" 2>"$SCRATCH/err"; rc=$?
    [ $rc = 3 ] && grep -q "^kevo verify needs a GPU: " "$SCRATCH/err" \
        && ok "verify takes a run whose sources named the launch-only params in their first line" \
        || { fail "verify of an older run: exit $rc"; cat "$SCRATCH/err"; }
    $K replay "$SCRATCH/h1" >"$SCRATCH/out" 2>&1 && grep -q "^identical: 18 evaluations" "$SCRATCH/out" &&
        ok "replay of that run is identical (its manifest has no source_header: every param in the first line)" ||
        { fail "replay of a run recorded with the older first line"; cat "$SCRATCH/out"; }
    # the same run with one recorded source hash changed is refused
    sed 's/"source":"[0-9a-f]\{16\}"/"source":"0123456789abcdef"/' tests/data/run-header-v1/journal.jsonl >"$SCRATCH/h1/journal.jsonl"
    expect_fail "verify refuses a recorded source its template does not give" \
        "no longer gives the recorded source" $K verify "$SCRATCH/h1"
fi

# launch-only neighbours are one source: the first line names the
# compiled params only, so sources/ holds one file per compile
KEVO_TEST_IDLE_MS=5 KEVO_TEST_PHASE_MS=500,4,6 \
$T run --evaluator test --problem softmax --dtype fp32 --shape 64x300 --seed 3 \
    --generations 3 --population 4 --offspring 4 --islands 1 --template softmax_warp \
    --runs-dir "$SCRATCH" --name lo --quiet >/dev/null 2>&1 || fail "launch-only run"
python3 - "$SCRATCH/lo" <<'PY' && ok "points differing only in OCC share one source file (first line without OCC)" || fail "launch-only neighbours' sources"
import json, os, sys
d = sys.argv[1]
ev = [json.loads(l) for l in open(d + "/journal.jsonl")]
ev = [r for r in ev if r["type"] == "eval"]
groups, occs = {}, {}
for r in ev:
    p = dict(r["params"]); o = p.pop("OCC")
    k = json.dumps(p, sort_keys=True)
    groups.setdefault(k, set()).add(r["source"])
    occs.setdefault(k, set()).add(o)
occ = {r["params"]["OCC"] for r in ev}
# some compiled point was measured at several OCC values (the fill)
ok_fill = any(len(v) > 1 for v in occs.values())
files = os.listdir(d + "/sources")
first = open(d + "/sources/" + files[0]).readline()
ok = (ok_fill and len(occ) > 1 and all(len(s) == 1 for s in groups.values())
      and len(files) == len({r["source"] for r in ev})
      and "OCC" not in first and "WARPS=" in first)
if not ok:
    print(len(occ), [len(s) for s in groups.values()], len(files), first)
sys.exit(0 if ok else 1)
PY
finish
