# Less code per compile (issue 32): NVRTC's CPU time grows with the PTX a
# point emits (about 2.9 ms a KB), so every shipped template is held to
# the PTX size of its points as recorded in tests/ptx_budget.txt: the
# default point and one sampled point (compile_time, seed 7) of each, at
# its first dtype and the problem's default shape, compiled with kevo's
# NVRTC options (no GPU). A point may emit at most 10 % more PTX than
# recorded; a template or point not recorded fails too. After a deliberate
# change, record again and commit the file with the change:
#   KEVO_PTX_RECORD=1 KEVO=build/kevo BUILD=build sh tests/cli/ptx_size.sh
. tests/cli/lib.inc
CT="$BUILD/tests/compile_time"
BUDGET=tests/ptx_budget.txt
TOL=110 # percent of the recorded size
shape_of() {
    case $1 in
    gemm) echo 4096x4096x4096 ;;
    softmax) echo 4096x4096 ;;
    esac
}
: >"$SCRATCH/now"
for tpl in templates/*/*.cu; do
    prob=$(sed -n 's|^// kevo: problem \([a-z0-9_]*\).*|\1|p' "$tpl" | head -n 1)
    dt=$(sed -n 's|^// kevo: dtypes \([a-z0-9]*\).*|\1|p' "$tpl" | head -n 1)
    shape=$(shape_of "$prob")
    [ -n "$shape" ] && [ -n "$dt" ] || { fail "$tpl: no problem/dtype this test knows"; continue; }
    # "wall s, cubin B, regs, spill, cpu s, PTX B, name, params"
    "$CT" "$tpl" "$dt" "$shape" 1 7 2>"$SCRATCH/err" | grep -v '^total' |
        awk -v t="$tpl" -v d="$dt" -v s="$shape" '{
            p = ""; for (i = 14; i <= NF; i++) p = p " " $i
            print t, d, s, $11 p }' >>"$SCRATCH/now" ||
        { fail "$tpl: compile_time failed"; cat "$SCRATCH/err"; }
done
if [ -n "${KEVO_PTX_RECORD:-}" ]; then
    { echo "# PTX bytes per point (tests/cli/ptx_size.sh; template dtype shape bytes point)"
      cat "$SCRATCH/now"; } >"$BUDGET"
    ok "recorded $(wc -l <"$SCRATCH/now") points in $BUDGET"
    finish
fi
# a point key is the line without its byte count
python3 - "$BUDGET" "$SCRATCH/now" "$TOL" >"$SCRATCH/out" 2>&1 <<'PY'
import sys
def load(path):
    pts = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        pts[(f[0], f[1], f[2], " ".join(f[4:]))] = int(f[3])
    return pts
rec, now, tol = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
bad = 0
for k, b in sorted(now.items()):
    if k not in rec:
        print(f"{k[0]} ({k[1]}, {k[2]}): point '{k[3]}' has no recorded PTX size")
        bad = 1
    elif b <= 0:
        print(f"{k[0]} ({k[1]}, {k[2]}): point '{k[3]}' did not compile")
        bad = 1
    elif b * 100 > rec[k] * tol:
        print(f"{k[0]} ({k[1]}, {k[2]}): point '{k[3]}' emits {b} B of PTX, "
              f"{100 * b / rec[k] - 100:.0f} % over the {rec[k]} B recorded")
        bad = 1
for k in sorted(set(rec) - set(now)):
    print(f"{k[0]}: recorded point '{k[3]}' was not compiled (template or sampling changed?)")
    bad = 1
print(f"{len(now)} points, {sum(now.values())} B of PTX against {sum(rec.values())} B recorded")
sys.exit(bad)
PY
if [ $? = 0 ]; then
    ok "every shipped template's points emit no more PTX than recorded (+10 %): $(tail -n 1 "$SCRATCH/out")"
else
    fail "PTX size per point (record again with KEVO_PTX_RECORD=1 after a deliberate change):"
    cat "$SCRATCH/out"
fi
finish
