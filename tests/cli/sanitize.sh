# kevo verify --sanitize (issue 29, item 2) without a GPU: the plumbing,
# with fake compute-sanitizer scripts that print what the real one prints
# (a memcheck out-of-bounds report recorded from CUDA 13's memcheck format)
# and check the command they were handed (the tool, and the one-shot
# probe `kevo __sanitize-probe <run-dir>`). The verdict goes to
# sanitize.json (per tool: result, error count, first finding); a finding
# makes the exit status 1, blocks kevo export of that kernel (--no-sanitize
# overrides) and shows in kevo report and kevo leaderboard; a clean pass
# exits 0. Without compute-sanitizer, and with one but no GPU (a fake that
# runs the probe for real), kevo says so and records nothing. An LLM-born
# winner without a record is exported with a warning here (no GPU).
. tests/cli/lib.inc
K="$KEVO"
. tests/cli/llm.inc
llm_winner_run w
R="$SCRATCH/w"
hash=$(sed -n 's/.*"hash":[[:space:]]*"\([0-9a-f]*\)".*/\1/p' "$R/best.json")

# a fake compute-sanitizer: FAKE_MEMCHECK=oob makes memcheck report an
# out-of-bounds read (and exit with the --error-exitcode it was given)
FAKE="$SCRATCH/compute-sanitizer"
cat >"$FAKE" <<'SH'
#!/bin/sh
echo "$*" >>"$FAKE_LOG"
tool=""; code=0
while [ $# -gt 0 ]; do
    case "$1" in
    --tool) tool=$2; shift 2 ;;
    --error-exitcode) code=$2; shift 2 ;;
    --print-limit|--padding) shift 2 ;;
    *) break ;;
    esac
done
[ "$2" = "__sanitize-probe" ] && [ -d "$3" ] || { echo "bad probe command: $*"; exit 99; }
echo "========= COMPUTE-SANITIZER"
echo "kevo sanitize probe: the winner ran once"
if [ "$tool" = memcheck ] && [ "${FAKE_MEMCHECK:-}" = oob ]; then
cat <<'REP'
========= Invalid __global__ read of size 4 bytes
=========     at sm_rows+0x2d0 in cand.cu:31
=========     by thread (255,0,0) in block (511,0,0)
=========     Address 0x7f02c3a3d200 is out of bounds
=========     and is 16 bytes after the nearest allocation at 0x7f02c3800000 of size 2048000 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame:  [0x2f2a6f] in libcuda.so.1
=========
========= Invalid __global__ read of size 4 bytes
=========     at sm_rows+0x2d0 in cand.cu:31
=========     by thread (254,0,0) in block (511,0,0)
=========
========= ERROR SUMMARY: 2 errors
REP
exit "$code"
fi
echo "========= ERROR SUMMARY: 0 errors"
exit 0
SH
chmod +x "$FAKE"
export FAKE_LOG="$SCRATCH/fake.log"

# a finding
FAKE_MEMCHECK=oob $K verify --sanitize "$R" --sanitizer-path "$FAKE" >"$SCRATCH/o" 2>"$SCRATCH/e"
rc=$?
[ $rc = 1 ] && grep -q "^sanitizer: FINDINGS: memcheck: findings: Invalid __global__ read of size 4 bytes at sm_rows+0x2d0 in cand.cu:31 by thread (255,0,0) in block (511,0,0) ($R/sanitize.json)\$" "$SCRATCH/o" &&
    ok "a memcheck finding: exit 1, the first finding with its place" ||
    { fail "memcheck finding (rc $rc)"; cat "$SCRATCH/o" "$SCRATCH/e"; }
python3 - "$R/sanitize.json" "$hash" <<'PY' && ok "sanitize.json: the kernel, the verdict, each tool's result, errors and first finding" || fail "sanitize.json"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["kernel"] == sys.argv[2] and j["verdict"] == "findings", j
assert j["dtype"] == "fp32" and j["shape"] == "512x1000", j
t = {x["tool"]: x for x in j["tools"]}
assert list(t) == ["memcheck", "racecheck", "synccheck", "initcheck"], t
assert t["memcheck"]["result"] == "findings" and t["memcheck"]["errors"] == 2, t
assert t["memcheck"]["exit"] == 86 and t["memcheck"]["first"].startswith("Invalid __global__ read"), t
assert all(t[k]["result"] == "clean" for k in ("racecheck", "synccheck", "initcheck")), t
PY
for tool in memcheck racecheck synccheck initcheck; do
    grep -q "^--tool $tool --error-exitcode 86 .*__sanitize-probe $R\$" "$FAKE_LOG" ||
        { fail "the sanitizer was not run with --tool $tool on the probe"; cat "$FAKE_LOG"; }
done && ok "each tool wraps the one-shot probe of the run"

expect_fail "kevo export refuses a kernel with a sanitizer finding" \
    "the winner $hash failed the sanitizer pass ($R/sanitize.json): memcheck: findings: Invalid __global__ read" \
    $K export "$R" --out "$SCRATCH/x"
[ ! -e "$SCRATCH/x" ] && ok "... and writes nothing" || fail "a refused export wrote files"
$K export "$R" --out "$SCRATCH/x" --no-sanitize --quiet 2>"$SCRATCH/e" && [ -s "$SCRATCH/x/kevo_softmax.cu" ] &&
    ok "--no-sanitize exports it anyway" || { fail "export --no-sanitize"; cat "$SCRATCH/e"; }
$K report "$R" --out "$SCRATCH/rep" >/dev/null 2>"$SCRATCH/e" &&
    grep -q "sanitizer.*FINDINGS: memcheck: findings: Invalid __global__ read" "$SCRATCH/rep/report.md" &&
    ok "kevo report shows the finding" || { fail "report"; cat "$SCRATCH/e"; grep -i sanit "$SCRATCH/rep/report.md"; }
$K leaderboard "$R" --out "$SCRATCH/lb" --quiet >/dev/null 2>"$SCRATCH/e" &&
    grep -q "sanitizer: FINDINGS: memcheck" "$SCRATCH/lb.md" &&
    grep -q "sanitizer: FINDINGS: memcheck" "$SCRATCH/lb.json" &&
    ok "kevo leaderboard shows the finding" || { fail "leaderboard"; cat "$SCRATCH/e"; ls "$SCRATCH"; }

# clean
$K verify --sanitize "$R" --sanitizer-path "$FAKE" >"$SCRATCH/o" 2>"$SCRATCH/e" &&
    grep -q "^sanitizer: clean (memcheck, racecheck, synccheck, initcheck)" "$SCRATCH/o" &&
    grep -q '"verdict":[[:space:]]*"clean"' "$R/sanitize.json" &&
    ok "a clean pass: exit 0, recorded clean" || { fail "clean pass"; cat "$SCRATCH/o" "$SCRATCH/e"; }
$K export "$R" --out "$SCRATCH/x2" --quiet 2>"$SCRATCH/e" && [ ! -s "$SCRATCH/e" ] &&
    ok "kevo export of a sanitized winner: no warning" || { fail "export clean"; cat "$SCRATCH/e"; }

# no compute-sanitizer; no GPU
cp "$R/sanitize.json" "$SCRATCH/kept.json"
rm "$R/sanitize.json"
expect_fail "no compute-sanitizer: says where it looked" \
    "compute-sanitizer not found at '$SCRATCH/none'" \
    $K verify --sanitize "$R" --sanitizer-path "$SCRATCH/none"
expect_fail "none at \$CUDA_HOME/bin nor on PATH: says so" \
    "compute-sanitizer not found at '/nonexistent/bin/compute-sanitizer' nor on PATH" \
    env CUDA_HOME=/nonexistent PATH=/usr/bin:/bin $K verify --sanitize "$R"
REAL="$SCRATCH/real-probe"
printf '#!/bin/sh\nwhile [ $# -gt 0 ] && [ "${1#--}" != "$1" ]; do shift 2; done\nexec "$@"\n' >"$REAL"
chmod +x "$REAL"
$K verify --sanitize "$R" --sanitizer-path "$REAL" >"$SCRATCH/o" 2>"$SCRATCH/e"
rc=$?
if [ -e /dev/nvidiactl ]; then
    ok "(a GPU is here: the no-GPU case is not tested)"
else
    [ $rc = 3 ] && grep -q "kevo verify: the sanitizer pass needs a GPU: kevo sanitize probe: " "$SCRATCH/e" &&
        [ ! -e "$R/sanitize.json" ] &&
        ok "no GPU: the real probe says so, exit 3, nothing recorded" ||
        { fail "no GPU (rc $rc)"; cat "$SCRATCH/o" "$SCRATCH/e"; }
fi
env CUDA_HOME=/nonexistent PATH=/usr/bin:/bin $K export "$R" --out "$SCRATCH/x3" --quiet 2>"$SCRATCH/e" &&
    [ -s "$SCRATCH/x3/kevo_softmax.cu" ] &&
    grep -q "warning: the LLM-born winner $hash is not sanitized and the pass cannot run here" "$SCRATCH/e" &&
    ok "an LLM-born winner without a record is exported with a warning where no pass can run" ||
    { fail "export warning"; cat "$SCRATCH/e"; }
expect_fail "--sanitize-timeout must be seconds" "--sanitize-timeout 'x'" \
    $K verify --sanitize "$R" --sanitize-timeout x
finish
