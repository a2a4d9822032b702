# The options table (src/run/options.c) and the engine's run ends:
# 64-bit seeds stored exactly and resumed identically (issue 28.2),
# compound durations (29.12), resume --evals after an --evals end
# replaying identical (29.13), --json events with fields, end reasons and
# the ratio in progress lines (29.14).
. tests/cli/lib.inc
K="$KEVO"
BASE="--evaluator test --problem gemm --shape 300x200x100 --islands 2 \
      --population 6 --offspring 8 --quiet"

# ---- 28.2: seeds past 2^53 round-trip exactly
for s in 9007199254740991 9007199254740993 18446744073709551615; do
    $T run $BASE --seed $s --generations 2 --runs-dir "$SCRATCH" --name s$s ||
        { fail "run with seed $s"; continue; }
    if $T status "$SCRATCH/s$s" | grep -q "seed $s\$" &&
       $T status --json "$SCRATCH/s$s" | grep -q "\"seed\":[[:space:]]*\"$s\""; then
        ok "seed $s comes back exactly from the manifest"
    else
        fail "seed $s is not stored exactly"
        grep seed "$SCRATCH/s$s/manifest.json"
    fi
done
$CANON "$SCRATCH/s9007199254740991/journal.jsonl" >"$SCRATCH/a.canon"
$CANON "$SCRATCH/s9007199254740993/journal.jsonl" >"$SCRATCH/b.canon"
cmp -s "$SCRATCH/a.canon" "$SCRATCH/b.canon" &&
    fail "seeds 2^53-1 and 2^53+1 made the same run" ||
    ok "seeds 2^53-1 and 2^53+1 make different runs"
# a spec file may give it as a string; a number past 2^53 is refused
printf '{"seed": "9007199254740993"}\n' >"$SCRATCH/seed.json"
$T run $BASE --spec "$SCRATCH/seed.json" --generations 1 --runs-dir "$SCRATCH" \
    --name fromspec && $T status "$SCRATCH/fromspec" | grep -q "seed 9007199254740993$" &&
    ok "a spec's seed as a string of digits is read exactly" ||
    fail "spec seed as a string"
printf '{"seed": 9007199254740993}\n' >"$SCRATCH/seed2.json"
expect_fail "a spec's seed past 2^53 as a JSON number is refused with its line" \
    "seed2.json:1: 'seed' must be an integer in [0, 18446744073709551615] (past 2^53 as a string" \
    $T run $BASE --spec "$SCRATCH/seed2.json" --runs-dir "$SCRATCH" --name x
expect_fail "--seed past 2^64 is refused" \
    "--seed: '18446744073709551616' is not an integer in [0, 18446744073709551615]" \
    $T run $BASE --seed 18446744073709551616 --runs-dir "$SCRATCH" --name x
# an old manifest (seed as a JSON number) keeps loading
sed 's/"seed":[^,]*,/"seed":\t4503599627370497,/' "$SCRATCH/s9007199254740991/manifest.json" \
    >"$SCRATCH/m" && mkdir -p "$SCRATCH/old" && cp -r "$SCRATCH/s9007199254740991/." "$SCRATCH/old/" &&
    cp "$SCRATCH/m" "$SCRATCH/old/manifest.json" &&
    $T status "$SCRATCH/old" | grep -q "seed 4503599627370497$" &&
    ok "a manifest with the seed as a JSON number loads" || fail "old manifest seed"

# a run with seed 2^53+1 resumed after its generation budget writes the
# journal of the uninterrupted run, and replays identical
S=9007199254740993
$T run $BASE --seed $S --generations 9 --runs-dir "$SCRATCH" --name whole ||
    fail "uninterrupted run"
$T run $BASE --seed $S --generations 4 --runs-dir "$SCRATCH" --name parts &&
    $T resume "$SCRATCH/parts" --generations 9 --quiet || fail "run and resume"
$CANON "$SCRATCH/whole/journal.jsonl" >"$SCRATCH/whole.canon"
$CANON "$SCRATCH/parts/journal.jsonl" >"$SCRATCH/parts.canon"
if cmp -s "$SCRATCH/whole.canon" "$SCRATCH/parts.canon"; then
    ok "a resumed run with seed 2^53+1 equals the uninterrupted one"
else
    fail "resumed run with seed 2^53+1 differs"
    diff "$SCRATCH/whole.canon" "$SCRATCH/parts.canon" | head -3
fi
$K replay "$SCRATCH/parts" >"$SCRATCH/out" 2>&1 && grep -q "^identical" "$SCRATCH/out" &&
    ok "and replays identical" || { fail "replay of the resumed run"; cat "$SCRATCH/out"; }
# and killed with -9 mid-run, then resumed: the same journal
KEVO_TEST_EVAL_US=1500 $T run $BASE --seed $S --generations 9 --runs-dir "$SCRATCH" \
    --name killed &
pid=$!
sleep 0.4
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
if [ -f "$SCRATCH/killed/manifest.json" ]; then
    $T resume "$SCRATCH/killed" --quiet || fail "resume after kill -9"
else
    $T run $BASE --seed $S --generations 9 --runs-dir "$SCRATCH" --name killed
fi
$CANON "$SCRATCH/killed/journal.jsonl" >"$SCRATCH/killed.canon"
cmp -s "$SCRATCH/whole.canon" "$SCRATCH/killed.canon" &&
    ok "killed with -9 and resumed, seed 2^53+1: the uninterrupted journal" ||
    { fail "kill -9 and resume with seed 2^53+1"; diff "$SCRATCH/whole.canon" "$SCRATCH/killed.canon" | head -3; }

# ---- 29.12: compound durations wherever a duration is read
$T run $BASE --seed 1 --time 7h50m --generations 1 --runs-dir "$SCRATCH" --name dur &&
    grep -q '"time":	28200' "$SCRATCH/dur/manifest.json" &&
    ok "--time 7h50m is 7 h 50 min" || { fail "--time 7h50m"; grep '"time"' "$SCRATCH/dur/manifest.json"; }
$T resume "$SCRATCH/dur" --time 1d2h --generations 2 --quiet &&
    ok "resume --time 1d2h" || fail "resume --time 1d2h"
printf '{"time": "2m30s"}\n' >"$SCRATCH/t.json"
$T run $BASE --spec "$SCRATCH/t.json" --generations 1 --runs-dir "$SCRATCH" --name durspec &&
    grep -q '"time":	150' "$SCRATCH/durspec/manifest.json" &&
    ok "a spec's \"time\": \"2m30s\"" || fail "spec time 2m30s"
expect_fail "a bad duration says why" \
    "--time: '7h50x' is not a duration: unknown unit 'x'" \
    $T run $BASE --time 7h50x --runs-dir "$SCRATCH" --name x
expect_fail "units out of order are refused" "largest first" \
    $T run $BASE --time 30m1h --runs-dir "$SCRATCH" --name x
printf '{"time": "1h30"}\n' >"$SCRATCH/t2.json"
expect_fail "a spec's bad duration names file, line and why" \
    "t2.json:1: 'time': '1h30' is not a duration" \
    $T run $BASE --spec "$SCRATCH/t2.json" --runs-dir "$SCRATCH" --name x

# ---- 29.13: resume --evals after a run that ended on --evals replays
# identical (its last generation stays as cut as it was); so do
# extensions by generations, and a second --evals extension
$T run $BASE --seed 5 --evals 37 --runs-dir "$SCRATCH" --name ev &&
    $T resume "$SCRATCH/ev" --evals 60 --quiet &&
    $T resume "$SCRATCH/ev" --evals 90 --quiet || fail "run --evals, resume --evals"
n=$(grep -c '"type":"eval"' "$SCRATCH/ev/journal.jsonl")
$K replay "$SCRATCH/ev" >"$SCRATCH/out" 2>&1 &&
    grep -q "^identical: 90 evaluations" "$SCRATCH/out" && [ "$n" = 90 ] &&
    ok "run --evals 37, resume --evals 60, then 90: replays identical" ||
    { fail "resume --evals then replay ($n evaluations)"; cat "$SCRATCH/out"; }
$T run $BASE --seed 5 --generations 3 --runs-dir "$SCRATCH" --name eg &&
    $T resume "$SCRATCH/eg" --generations 6 --quiet &&
    $K replay "$SCRATCH/eg" 2>&1 | grep -q "^identical" &&
    ok "resume --generations replays identical" || fail "resume --generations replay"

# ---- 29.14: --json events carry fields; budget ends say "finished";
# progress lines show the ratio; a missing output folder is named
$T run --evaluator test --problem gemm --shape 300x200x100 --islands 2 \
    --population 6 --offspring 8 --seed 5 --generations 2 --json \
    --runs-dir "$SCRATCH" --name js >"$SCRATCH/js.out" 2>"$SCRATCH/js.err" ||
    fail "run --json"
if python3 - "$SCRATCH/js.out" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
gens = [e for e in ev if e["event"] == "gen"]
assert len(gens) == 2, gens
g = gens[1]
assert g["generation"] == 1 and g["evaluations"] > g["evaluated"] > 0, g
assert sum(g["outcomes"].values()) == g["evaluations"], g
b = g["best"]
assert b["fitness"] > 0 and b["ratio"] > 0 and b["template"], b
assert isinstance(b["point"], dict) and b["point"], b
assert g["budget"]["generations"] == {"used": 2, "limit": 2}, g["budget"]
assert "message" in g
done = [e for e in ev if e["event"] == "done"][0]
assert done["end"] == "generations" and done["resumable"] is True, done
assert done["message"].startswith("finished (generation budget)"), done
start = [e for e in ev if e["event"] == "start"][0]
assert start["seed"] == 5 and start["templates"] > 0, start
PY
then ok "--json events have fields (generation, evaluations, outcomes, best, ratio, template, point, budget used, end)"
else fail "--json event fields"; head -5 "$SCRATCH/js.out"; fi
grep '"event":"gen"' "$SCRATCH/js.out" | head -1 | grep -q '(.*x baseline)' &&
    ok "a generation's line shows the best's ratio to the baseline" ||
    fail "no ratio in the gen line"
$T run $BASE --seed 5 --evals 30 --runs-dir "$SCRATCH" --name fin ||
    fail "run --evals 30"
$T status "$SCRATCH/fin" | head -1 | grep -q "(finished (evaluation budget))" &&
    ok "status: a run that ended on --evals is finished (evaluation budget)" ||
    { fail "status after --evals"; $T status "$SCRATCH/fin" | head -1; }
KEVO_TEST_EVAL_US=20000 $T run $BASE --seed 5 --time 1s --runs-dir "$SCRATCH" \
    --name tim >/dev/null 2>&1 || fail "run --time 1s"
$T status "$SCRATCH/tim" | head -1 | grep -q "(finished (time budget))" &&
    $T status --json "$SCRATCH/tim" | grep -q '"state":[[:space:]]*"finished (time budget)"' &&
    ok "status: a run that ended on --time is finished (time budget)" ||
    { fail "status after --time"; $T status "$SCRATCH/tim" | head -1; }
KEVO_TEST_EVAL_US=20000 $T resume "$SCRATCH/tim" --time 3s --quiet &&
    $K replay "$SCRATCH/tim" 2>&1 | grep -q "^identical" &&
    ok "and stays resumable: resume --time 3s, replay identical" ||
    fail "resume after a time budget"
expect_fail "kevo table names a missing output folder" \
    "cannot write '$SCRATCH/nodir/t.jsonl': no such directory '$SCRATCH/nodir'" \
    $K table "$SCRATCH/fin" --out "$SCRATCH/nodir/t.jsonl"
finish
