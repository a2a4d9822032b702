# kevo report and kevo leaderboard on runs made with the deterministic test
# evaluator: the Markdown's facts equal counts computed from the journal
# with awk, the SVGs are well-formed, report.html loads in headless
# Chromium with the winner's numbers and the charts in its DOM; missing
# gnuplot, a missing run and a corrupt journal give clear errors.
. tests/cli/lib.inc
K="$KEVO"

$T run --evaluator test --problem gemm --shape 300x200x100 --seed 3 --generations 4 \
    --template sgemm_tiled --runs-dir "$SCRATCH" --name rp --quiet || fail "report setup run"
R="$SCRATCH/rp"

for c in report leaderboard export; do
    $K $c --help >"$SCRATCH/h" 2>&1 && grep -q "usage: kevo $c" "$SCRATCH/h" \
        && ok "kevo $c --help prints its usage" || fail "kevo $c --help"
done

$K report "$R" --json >"$SCRATCH/rj" 2>"$SCRATCH/re" || { fail "kevo report"; cat "$SCRATCH/re"; }
MD="$R/report/report.md"; HTML="$R/report/report.html"
[ -s "$MD" ] && [ -s "$HTML" ] && ok "report writes report.md and report.html" \
    || fail "report files"

# outcome counts per mutator, from the journal with awk
awk '/"type":"eval"/ {
        m = $0; sub(/.*"mutator":"/, "", m); sub(/".*/, "", m)
        o = $0; sub(/.*"outcome":"/, "", o); sub(/".*/, "", o)
        n[m]++; c[m "," o]++; all++; ca[o]++; if (!(m in seen)) { seen[m] = 1; order[++k] = m } }
     END { split("ok compile_error wrong crashed timeout cheat unsupported", O, " ")
           for (i = 1; i <= k; i++) { m = order[i]; line = "| " m " | " n[m] " |"
               for (j = 1; j <= 7; j++) line = line " " (c[m "," O[j]] + 0) " |"; print line }
           line = "| all | " all " |"; for (j = 1; j <= 7; j++) line = line " " (ca[O[j]] + 0) " |"; print line }' \
    "$R/journal.jsonl" >"$SCRATCH/want"
bad=0
while IFS= read -r line; do grep -qF -- "$line" "$MD" || { bad=1; echo "missing: $line"; }; done <"$SCRATCH/want"
[ $bad = 0 ] && [ "$(wc -l <"$SCRATCH/want")" -ge 3 ] \
    && ok "outcome counts per mutator in report.md equal the journal's" \
    || fail "outcome counts per mutator"

# the winner: best.json's template, hash and median, in the Markdown
hash=$(sed -n 's/.*"hash":[[:space:]]*"\([0-9a-f]*\)".*/\1/p' "$R/best.json")
tpl=$(sed -n 's/.*"template":[[:space:]]*"\([^"]*\)".*/\1/p' "$R/best.json")
med=$(sed -n 's/.*"median_ns":[[:space:]]*\([0-9.e+]*\).*/\1/p' "$R/best.json")
medf=$(awk -v m="$med" 'BEGIN { printf "%.1f ns", m }')
grep -q "| genome hash | $hash |" "$MD" && grep -q "| template | $tpl |" "$MD" \
    && grep -q "| median | $medf |" "$MD" && grep -q "launch 0: sgemm_tiled<<<grid(" "$MD" \
    && ok "report.md names the winner (template, hash, median, launch plan)" \
    || fail "winner facts in report.md ($tpl $hash $medf)"

# lineage: every step's genome is in the journal with the stated mutator,
# and the step's first parent is the next step's genome
awk -F'|' '/^\| [0-9]+ \| [0-9]+ \| [0-9a-f][0-9a-f]*[0-9a-f] \|/ { gsub(/ /, ""); print $4, $5 }' "$MD" >"$SCRATCH/lin"
steps=$(wc -l <"$SCRATCH/lin"); bad=0
while read -r h m; do
    grep -q "\"hash\":\"$h\".*\"mutator\":\"$m\"" "$R/journal.jsonl" || { bad=1; echo "not in journal: $h $m"; }
done <"$SCRATCH/lin"
last=$(tail -1 "$SCRATCH/lin" | cut -d' ' -f2)
# (the root has no parents: an init genome or a random unseen point)
[ "$steps" -ge 2 ] && [ $bad = 0 ] && { [ "$last" = init ] || [ "$last" = random ]; } &&
    [ "$(head -1 "$SCRATCH/lin" | cut -d' ' -f1)" = "$hash" ] \
    && ok "lineage goes from the winner to a parentless genome ($last) through journaled records ($steps steps)" \
    || { fail "lineage"; cat "$SCRATCH/lin"; }

# SVGs: one per winner param plus the progress charts, each well-formed
n_svg=$(ls "$R/report/plots/"*.svg 2>/dev/null | wc -l)
if python3 - "$R/report/plots" <<'PY'
import sys, glob, xml.etree.ElementTree as E
fs = glob.glob(sys.argv[1] + "/*.svg")
for f in fs:
    assert E.parse(f).getroot().tag.endswith("svg"), f
PY
then [ "$n_svg" -ge 15 ] && ok "report draws $n_svg well-formed SVG charts (12 params + 3)" || fail "svg count $n_svg"
else fail "an SVG is not well-formed XML"; fi
! grep -q 'src="http\|href="http\|url(http' "$HTML" && [ "$(grep -c '<svg' "$HTML")" = "$n_svg" ] \
    && ok "report.html inlines every chart and loads nothing from outside" \
    || fail "report.html is not self-contained"
grep -q '"gnuplot":[[:space:]]*true' "$SCRATCH/rj" && grep -q "\"hash\":[[:space:]]*\"$hash\"" "$SCRATCH/rj" \
    && ok "report --json summarizes (gnuplot used, winner)" || fail "report --json"

# headless Chromium: the DOM holds the winner's numbers and the <svg>s
if command -v chromium >/dev/null 2>&1; then
    timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$HTML" \
        >"$SCRATCH/dom" 2>/dev/null
    nd=$(grep -o '<svg' "$SCRATCH/dom" | wc -l)
    grep -q "$hash" "$SCRATCH/dom" && grep -q "$medf" "$SCRATCH/dom" && [ "$nd" = "$n_svg" ] \
        && grep -q '<td>sgemm_tiled</td>' "$SCRATCH/dom" \
        && ok "report.html renders in headless Chromium with the winner's numbers and $nd SVGs" \
        || { fail "report.html in Chromium ($nd svg)"; head -c 600 "$SCRATCH/dom"; }
else
    echo "skip Chromium check: chromium is not installed (scripts/install-deps.sh installs it)"
fi

# no gnuplot: a clear warning, the Markdown still written
rm -rf "$SCRATCH/ng"
KEVO_GNUPLOT=/nonexistent/gnuplot $K report "$R" --out "$SCRATCH/ng" 2>"$SCRATCH/ne" \
    && grep -q "gnuplot was not found" "$SCRATCH/ne" && grep -q "gnuplot was not found" "$SCRATCH/ng/report.md" \
    && grep -q "| all | " "$SCRATCH/ng/report.md" \
    && ok "without gnuplot, report says so and still writes the Markdown" \
    || { fail "report without gnuplot"; cat "$SCRATCH/ne"; }

# errors: missing run, corrupt journal line, bad record
expect_fail "report of a missing run names the path" "'$SCRATCH/nope' is not a kevo run directory" \
    $K report "$SCRATCH/nope"
cp -r "$R" "$SCRATCH/bad"; rm -rf "$SCRATCH/bad/report"
sed -i '5s/.*/{"type":"eval", broken/' "$SCRATCH/bad/journal.jsonl"
expect_fail "report of a corrupt journal names the file and line" "$SCRATCH/bad/journal.jsonl:5:" \
    $K report "$SCRATCH/bad"
cp "$R/journal.jsonl" "$SCRATCH/bad/journal.jsonl"
sed -i '7s/"outcome":"[a-z_]*"/"outcome":"maybe"/' "$SCRATCH/bad/journal.jsonl"
expect_fail "a record with an unknown outcome is named with its line" "journal.jsonl:7: eval record has no valid 'outcome'" \
    $K leaderboard "$SCRATCH/bad"
expect_fail "export of a corrupt run fails the same way" "journal.jsonl:7:" $K export "$SCRATCH/bad"
rm -rf "$SCRATCH/bad"

# leaderboard: two runs of one shape ranked by fitness, verify.json read
$T run --evaluator test --problem gemm --shape 300x200x100 --seed 9 --generations 2 \
    --template gemm_naive --runs-dir "$SCRATCH/more" --name lb2 --quiet || fail "leaderboard setup run"
echo '{"gpu":{"name":"NVIDIA H200","uuid":"GPU-other"},"software":{"driver":"580"},"verified":true,"drift":0.01}' \
    >"$SCRATCH/more/lb2/verify.json"
$K leaderboard "$R" "$SCRATCH/more" --out "$SCRATCH/lb" --quiet >"$SCRATCH/lbmd" || fail "kevo leaderboard"
f1=$(sed -n 's/.*"fitness":[[:space:]]*\([0-9.e+]*\).*/\1/p' "$R/best.json")
f2=$(sed -n 's/.*"fitness":[[:space:]]*\([0-9.e+]*\).*/\1/p' "$SCRATCH/more/lb2/best.json")
first=$(awk -v a="$f1" -v b="$f2" 'BEGIN { print (a + 0 >= b + 0) ? "rp" : "lb2" }')
grep -q "^| 1 | $first |" "$SCRATCH/lbmd" && grep -q "^## gemm fp32 300x200x100 on" "$SCRATCH/lbmd" \
    && grep -q "| rp | .*never verified" "$SCRATCH/lbmd" && grep -q "| lb2 | .*other hardware" "$SCRATCH/lbmd" \
    && ok "leaderboard ranks runs of one shape by fitness and marks verification" \
    || { fail "leaderboard table"; cat "$SCRATCH/lbmd"; }
[ "$(tail -n +2 "$SCRATCH/lb.csv" | wc -l)" = 2 ] && [ -s "$SCRATCH/lb.md" ] \
    && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['boards'][0]['entries'])==2" "$SCRATCH/lb.json" \
    && ok "leaderboard --out writes .md, .csv and .json" || fail "leaderboard files"
ne=$(grep -c '"type":"eval"' "$R/journal.jsonl"); nok=$(grep -c '"type":"eval".*"outcome":"ok"' "$R/journal.jsonl")
python3 - "$SCRATCH/lb-t4/rp.json" "$ne" "$nok" <<'PY' && ok "T4 results file has every evaluation (schema fields, invalidity)" || fail "T4 results"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == "1.0.0"
rs = d["results"]
assert len(rs) == int(sys.argv[2]), len(rs)
assert sum(r["invalidity"] == "correct" for r in rs) == int(sys.argv[3])
for r in rs:
    for k in ("configuration", "times", "invalidity", "correctness", "measurements", "objectives"):
        assert k in r, k
    assert r["invalidity"] in ("correct", "timeout", "compile", "runtime", "correctness", "constraints")
    assert "template" in r["configuration"]
PY
expect_fail "leaderboard of a directory without runs says so" "no run directories found" \
    $K leaderboard "$SCRATCH/more/lb2/sources"
finish
