# kevo promote: a loopback-LLM run whose winner is an LLM-born template (the
# split softmax, which the test evaluator scores 1000x; llm_winner.sh's
# recipe) is promoted into a scratch library once a verify.json says kevo
# verify verified it. kevo verify needs a GPU, so the test writes that
# verify.json itself, in the real writer's format: built on the committed
# H100 example's verify.json (written by kevo verify) and checked key by key
# against the keys its writer (src/run/vdoc.c) writes. The promoted file is the run's
# template text byte for byte under '// kevo: provenance' lines; kevo list
# (text and --json) shows the provenance and counts its space; a new run on
# another shape with that library picks the promoted template and wins with
# it. Refusals: no verify.json, a drift beyond noise, another GPU, a kernel
# that failed, a template verify did not re-measure, a shipped template, the
# same template again (says where), a name clash (--force only replaces an
# earlier promotion), bad names, a malformed provenance line.
. tests/cli/lib.inc
K="$KEVO"
. tests/cli/llm.inc
llm_winner_run w
R="$SCRATCH/w"
LIB="$SCRATCH/lib"
tpl=$(sed -n 's/.*"template":[[:space:]]*"\(llm_[0-9a-f]*\)".*/\1/p' "$R/best.json")
[ -n "$tpl" ] && [ -s "$R/llm/templates/$tpl.cu" ] &&
    ok "the run's winner is the LLM-born template $tpl" ||
    { fail "the LLM template did not win"; cat "$R/best.json"; finish; }
NAME="softmax_$tpl"

expect_fail "no verify.json: refused, naming kevo verify" \
    "run '$R' has no verify.json: re-measure it first with \`kevo verify $R\`" \
    $K promote "$R" --to "$LIB"
[ ! -e "$LIB" ] && ok "... and nothing is written" || fail "a refused promote wrote $LIB"

# verify.json as kevo verify writes it (src/run/vdoc.c vdoc_json/entry_json):
# the committed H100 example's verify.json (real writer output) with this
# run's kernel in it. MODE: good, drift, gpu, wrong, nottop.
cat >"$SCRATCH/fixture.py" <<'PY'
import json, re, sys
run, mode = sys.argv[1], sys.argv[2]
ex = json.load(open("examples/h100-gemm-fp32-1024x768x512/verify.json"))
src = open("src/run/vdoc.c").read()
def writer_keys(fn):
    body = re.search(r"^(?:static )?cJSON \*%s\(.*?^\}" % fn, src, re.S | re.M).group(0)
    return set(re.findall(r'ToObject\(o, "([a-z_]+)"', body))
best = json.load(open(run + "/best.json"))
recs = [json.loads(l) for l in open(run + "/journal.jsonl")]
if mode == "nottop":   # verify re-measured a softmax_block kernel only
    best = max((r for r in recs if r.get("type") == "eval" and r["outcome"] == "ok"
                and r["template"] == "softmax_block"), key=lambda r: r["fitness"])
v = dict(ex)
drift = 0.05 if mode == "drift" else 0.004
e = dict(ex["entries"][0])
e.update(hash=best["hash"], template=best["template"], params=best["params"],
         best=mode != "nottop", recorded_ns=best["median_ns"],
         measured_ns=best["median_ns"] * (1 + drift), drift=drift, noise=0.01,
         within_noise=drift <= 0.01, outcome="wrong" if mode == "wrong" else "ok",
         recorded_ratio=best["ratio"], measured_ratio=best["ratio"] / (1 + drift),
         measured_fitness=best["fitness"] / (1 + drift), unit="B/s",
         rounds_ns=[best["median_ns"] * (1 + drift)] * 3)
if mode == "wrong":
    e.update(detail="max error 3.1 of tolerance at (7, 12)", measured_ns=0, rounds_ns=[])
v.update(run=run, date="2026-11-24T00:30:00+0000", best_hash=best["hash"],
         drift=drift, noise=0.01, entries=[e], reps=3, baselines=[],
         baseline_rounds_ns=[0, 0, 0, 0],
         same_gpu=mode != "gpu", same_software=True,
         verified=mode == "good",
         differences="GPU NVIDIA H100 80GB HBM3 (run) vs NVIDIA H200 (now)" if mode == "gpu" else "")
top, ent = writer_keys("vdoc_json"), writer_keys("entry_json")
# written only when there is one (vs_baseline_interleaved and the
# vs_baseline_paired trio: when the problem has a baseline; profile and
# diagnosis: with verify --profile)
optional = {"detail", "nvml_end", "fingerprint", "baseline_rounds_ns", "vs_baseline_interleaved",
            "vs_baseline_paired", "vs_baseline_paired_noise",
            "vs_baseline_pairs", "profile", "diagnosis"}
for have, want, what in ((set(v), top, "verify.json"), (set(e), ent, "entry")):
    if not (have <= want and want - optional <= have):
        sys.exit("fixture %s keys %s differ from vdoc.c's %s" % (what, sorted(have), sorted(want)))
json.dump(v, open(run + "/verify.json", "w"), indent="\t")
PY
fixture() { python3 "$SCRATCH/fixture.py" "$R" "$1" || fail "verify.json fixture ($1)"; }

fixture drift
expect_fail "a drift beyond the noise: refused with the drift and the noise" \
    "kevo verify did not verify template '$tpl': its kernel $(sed -n 's/.*"hash":[[:space:]]*"\([0-9a-f]*\)".*/\1/p' "$R/best.json") drifted +5.00% from the recorded time, beyond the noise (1.00%)" \
    $K promote "$R" --to "$LIB"
fixture gpu
expect_fail "verified on another GPU: refused with the differences" \
    "it re-measured it on another GPU than the run's (GPU NVIDIA H100 80GB HBM3 (run) vs NVIDIA H200 (now))" \
    $K promote "$R" --to "$LIB"
fixture wrong
expect_fail "a kernel that failed when re-measured: refused with the outcome" \
    "was wrong when re-measured: max error 3.1 of tolerance at (7, 12)" \
    $K promote "$R" --to "$LIB"
fixture nottop
expect_fail "a template verify did not re-measure: refused, with the --top that would" \
    "kevo verify did not verify template '$tpl': it is not among the kernels it re-measured (softmax_block (" \
    $K promote "$R" --to "$LIB"
grep -q "ranks #1 in the run: run \`kevo verify $R --top 1\`" "$SCRATCH/err" &&
    ok "... and says which --top would include it" || { fail "--top hint"; cat "$SCRATCH/err"; }
expect_fail "a shipped template is not promoted" \
    "template 'softmax_block' is not born from an LLM answer" \
    $K promote "$R" softmax_block --to "$LIB"
[ ! -e "$LIB" ] && ok "no refusal wrote anything" || fail "a refused promote wrote $LIB"

fixture good
# the sanitizer gate (cmd_sanitize.h): no record and no GPU here: refused,
# saying how to get one; a recorded finding: refused with it; clean: on
sanitize() { # VERDICT [FIRST]: sanitize.json as cmd_sanitize.c writes it
    python3 - "$R" "$1" "${2:-}" <<'PY'
import json, sys
run, verdict, first = sys.argv[1:4]
b = json.load(open(run + "/best.json"))
tools = [dict(tool=t, result="clean", errors=0, exit=0, first="")
         for t in ("memcheck", "racecheck", "synccheck", "initcheck")]
if verdict == "findings":
    tools[0].update(result="findings", errors=1, exit=86, first=first)
json.dump(dict(kernel=b["hash"], template=b["template"], dtype="fp32",
               shape="512x1000", sanitizer="/x/compute-sanitizer", date=0,
               verdict=verdict, tools=tools), open(run + "/sanitize.json", "w"))
PY
}
expect_fail "an LLM-born winner never sanitized, no GPU here: refused, naming kevo verify --sanitize" \
    "is not sanitized and the pass cannot run here" \
    env PATH=/usr/bin:/bin CUDA_HOME=/nonexistent $K promote "$R" --to "$LIB"
grep -qF "run kevo verify --sanitize $R on a GPU machine, or pass --no-sanitize" "$SCRATCH/err" &&
    ok "... and says how to get the record" || { fail "sanitize hint"; cat "$SCRATCH/err"; }
sanitize findings "Invalid __global__ read of size 4 bytes at sm_rows+0x2d0 in cand.cu:31"
expect_fail "a winner with a sanitizer finding is refused with the finding" \
    "failed the sanitizer pass ($R/sanitize.json): memcheck: findings: Invalid __global__ read of size 4 bytes at sm_rows+0x2d0" \
    $K promote "$R" --to "$LIB"
[ ! -e "$LIB" ] && ok "... and nothing is written" || fail "a refused promote wrote $LIB"
sanitize clean
for n in llm_mine 'a/b' -x; do
    expect_fail "--name '$n' is refused" "--name '$n':" $K promote "$R" --to "$LIB" --name "$n"
done
mkdir -p "$LIB/softmax" && cp templates/softmax/softmax_block.cu "$LIB/softmax/mine.cu"
expect_fail "a hand-written file of that name: refused, suggesting --name" \
    "'$LIB/softmax/mine.cu' exists and is not a promoted template: choose another name with --name" \
    $K promote "$R" --to "$LIB" --name mine --force
cmp -s templates/softmax/softmax_block.cu "$LIB/softmax/mine.cu" && ok "... even with --force it is left alone" ||
    fail "--force replaced a hand-written template"
rm "$LIB/softmax/mine.cu"
$K promote "$R" --to "$LIB" >"$SCRATCH/p.out" 2>"$SCRATCH/p.err" &&
    [ -f "$LIB/softmax/$NAME.cu" ] && grep -q "^promoted template '$tpl' of run '$R' as '$NAME'" "$SCRATCH/p.out" &&
    ok "a verified LLM-born winner is promoted as $NAME" ||
    { fail "promote"; cat "$SCRATCH/p.out" "$SCRATCH/p.err"; }
P="$LIB/softmax/$NAME.cu"
grep -v '^// kevo: provenance ' "$P" | cmp -s - "$R/llm/templates/$tpl.cu" &&
    [ "$(sed -n '/^\/\/ kevo: provenance /!{=;q}' "$P")" = "$(( $(grep -c '^// kevo: provenance ' "$P") + 1 ))" ] &&
    ok "the file is the run's template text, byte for byte, under the provenance block" ||
    { fail "promoted text"; head -20 "$P"; }
# the values the provenance must carry, from the run's own records
birth=$(grep '"type":"llm"' "$R/journal.jsonl" | grep "\"template\":\"$tpl\"" | head -1)
prompt=$(echo "$birth" | sed 's/.*"prompt":"\([0-9a-f]*\)".*/\1/')
key=$(echo "$birth" | sed 's/.*"key":"\([0-9a-f]*\)".*/\1/')
ratio=$(python3 -c "import json; print('%.3f' % json.load(open('$R/best.json'))['ratio'])")
$K list --templates-dir "$LIB" >"$SCRATCH/l" 2>&1 || { fail "kevo list of the library"; cat "$SCRATCH/l"; }
for want in "softmax  *$NAME .* valid points of [0-9]" "^ *run  *$R\$" "^ *model  *openai:test-model\$" \
    "^ *prompt  *$prompt\$" "^ *answer  *$key ($R/llm/$key.json)\$" "^ *op  *llm_propose\$" \
    "^ *problem  *softmax fp32 512x1000\$" "^ *ratio  *${ratio}x the baseline\$" \
    "^ *verify  *2026-11-24T00:30:00+0000: drift +0.40%, noise 1.00%" "^ *template  *$tpl (text hash " \
    "^ *point  *THREADS=" "^ *fitness  *.*B/s, median" "^ *run_date  *20" "^ *promoted  *20.* by kevo promote"; do
    grep -q -- "$want" "$SCRATCH/l" || { fail "kevo list lacks '$want'"; cat "$SCRATCH/l"; }
done && ok "kevo list counts its space and shows run, model, prompt, answer, shape, fitness, ratio, verify drift"
$K list --templates-dir "$LIB" --json >"$SCRATCH/lj" &&
    python3 - "$SCRATCH/lj" "$NAME" "$R" "$prompt" "$key" <<'PY' && ok "kevo list --json gives the provenance as an object" || fail "list --json provenance"
import json, sys
d = json.load(open(sys.argv[1]))
t = [t for t in d["templates"] if t["name"] == sys.argv[2]][0]
p = t["provenance"]
assert t["valid_points"] > 0, t
assert p["run"] == sys.argv[3] and p["model"] == "openai:test-model", p
assert p["prompt"] == sys.argv[4] and p["answer"].startswith(sys.argv[5] + " "), p
assert p["problem"] == "softmax fp32 512x1000" and "drift +0.40%" in p["verify"], p
PY
$K list --json | python3 -c "import json,sys; assert all(t['provenance'] == {} for t in json.load(sys.stdin)['templates'])" &&
    ok "shipped templates have no provenance" || fail "shipped templates' provenance"

# refusals against the library
expect_fail "the same template again: refused, saying where it is" \
    "template '$tpl' is already in the library: '$P' (promoted from run '$R')" \
    $K promote "$R" --to "$LIB"
expect_fail "... under another name too (same code and directives)" \
    "is already in the library: '$P'" $K promote "$R" --to "$LIB" --name other
cp "$P" "$SCRATCH/keep.cu"
echo "// an edit" >>"$P"
expect_fail "an earlier promotion of that name: refused without --force" \
    "'$P' exists (promoted from run '$R'): choose another name with --name, or replace it with --force" \
    $K promote "$R" --to "$LIB"
$K promote "$R" --to "$LIB" --force >/dev/null 2>"$SCRATCH/e" &&
    ! grep -q "an edit" "$P" && grep -v '^// kevo: provenance ' "$P" | cmp -s - "$R/llm/templates/$tpl.cu" &&
    ok "--force replaces an earlier promotion" || { fail "--force"; cat "$SCRATCH/e"; }
$K promote "$R" --to "$LIB" --force >/dev/null 2>"$SCRATCH/e" &&
    ok "--force refreshes a promotion of the same template (new provenance)" || { fail "--force same"; cat "$SCRATCH/e"; }
printf '// kevo: provenance onlykey\n' | cat - "$P" >"$SCRATCH/bad.cu"
mkdir -p "$SCRATCH/badlib/softmax" && cp "$SCRATCH/bad.cu" "$SCRATCH/badlib/softmax/bad.cu"
expect_fail "a provenance line without a value is a template error" \
    "badlib/softmax/bad.cu:1: 'provenance' takes a KEY" $K list --templates-dir "$SCRATCH/badlib"

# where the template comes from and where it goes by default
cp -r "$R" "$SCRATCH/gone"; rm -rf "$SCRATCH/gone/llm/templates"
python3 - "$SCRATCH/gone/verify.json" "$SCRATCH/gone" <<'PY'
import json, sys
v = json.load(open(sys.argv[1])); v["run"] = sys.argv[2]
json.dump(v, open(sys.argv[1], "w"), indent="\t")
PY
mkdir -p "$SCRATCH/lib2"
KEVO_TEMPLATES="$SCRATCH/lib2" $K promote "$SCRATCH/gone" >/dev/null 2>"$SCRATCH/e" &&
    grep -v '^// kevo: provenance ' "$SCRATCH/lib2/softmax/$NAME.cu" | cmp -s - "$R/llm/templates/$tpl.cu" &&
    grep -q "^// kevo: provenance run $SCRATCH/gone\$" "$SCRATCH/lib2/softmax/$NAME.cu" &&
    ok "without llm/templates/ the template rebuilt from its answer is promoted, the same text, into kevo run's library (\$KEVO_TEMPLATES)" ||
    { fail "promote of a rebuilt template / default library"; cat "$SCRATCH/e"; }
[ ! -e "templates/softmax/$NAME.cu" ] || { rm -f "templates/softmax/$NAME.cu"; fail "promote wrote into the repository's templates/"; }

# the next run starts from it: another shape, the promoted template beside
# a shipped one, no LLM
cp templates/softmax/softmax_block.cu "$LIB/softmax/"
$T run --evaluator test --problem softmax --shape 256x3000 --seed 5 --generations 3 \
    --templates-dir "$LIB" --runs-dir "$SCRATCH" --name next --quiet 2>"$SCRATCH/n.err" ||
    { fail "run with the promoted library"; cat "$SCRATCH/n.err"; }
grep -q "\"template\":[[:space:]]*\"$NAME\"" "$SCRATCH/next/best.json" &&
    cmp -s "$SCRATCH/next/templates/softmax/$NAME.cu" "$P" &&
    grep -q "\"template\":\"softmax_block\"" "$SCRATCH/next/journal.jsonl" &&
    ok "a new run on another shape with that library evaluates both and wins with $NAME" ||
    { fail "the new run did not use the promoted template"; cat "$SCRATCH/next/best.json"; }
finish
