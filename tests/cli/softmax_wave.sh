# The launch-only grid size WAVE of softmax_block, softmax_warp,
# softmax_multirow and softmax_online (issue 32): 0 is one block per row
# group, k > 0 at most k * SMS blocks that loop over the row groups.
# 1. kevo list names WAVE launch-only (one compile for all its values).
# 2. On the CPU emulation of tests/gpu/tpl_selftest.cu (scripts/tplcc.sh
#    --emu, SMS = 132; g++, no GPU) each kernel is right element by element
#    with a grid smaller than its row groups (so blocks loop: the launch
#    line's grid is checked too), at odd shapes, with misaligned buffers,
#    through the shared-memory cache and the streaming paths; and a copy
#    whose loop stops after one step is wrong (the check can fail).
. tests/cli/lib.inc
"$KEVO" list >"$SCRATCH/list" && "$KEVO" list --json | tr -d ' \n\t' >"$SCRATCH/json" ||
    fail "kevo list"
n=0
for t in block warp multirow online; do
    grep -A1 "softmax_$t " "$SCRATCH/list" | tail -1 |
        grep -q "launch-only (one compile for all values): WAVE$" &&
        grep -q "\"name\":\"softmax_$t\",[^}]*\"launch_only\":\[\"WAVE\"\]" "$SCRATCH/json" &&
        n=$((n + 1))
done
[ $n = 4 ] && ok "kevo list: WAVE is the launch-only param of softmax_block, _warp, _multirow, _online" ||
    { fail "kevo list: WAVE launch-only in $n of 4 templates"; grep -A1 "softmax_" "$SCRATCH/list"; }
if ! command -v g++ >/dev/null; then
    echo "skip the emulation: no g++"
    finish
fi

# emu GRID ARGS...: scripts/tplcc.sh --emu ARGS launches GRID blocks and
# its verdict is ok (prints the mismatch otherwise)
emu() {
    want=$1
    shift
    out=$(TPLCC_DIR="$SCRATCH" scripts/tplcc.sh --no-compile --trials 1 "$@" 2>&1)
    grid=$(echo "$out" | sed -n 's/^launch [a-z_]* grid \([0-9]*\)x.*/\1/p')
    v=$(echo "$out" | tail -1)
    [ "$grid" = "$want" ] && [ "$v" = "verdict: ok" ] && return 0
    echo "    $*: grid '$grid' (want $want), '$v'"
    return 1
}
T=templates/softmax
# 300 rows on 132 blocks; the row past 128 columns in shared memory
emu 132 --emu 300x1001 $T/softmax_block.cu THREADS=128 VEC=1 REG=1 CACHE=1 UNROLL=1 MINB=4 WAVE=1 &&
    emu 264 --emu 290x999 --misalign $T/softmax_block.cu THREADS=128 VEC=4 REG=1 CACHE=1 UNROLL=2 WAVE=2 &&
    ok "softmax_block: WAVE 1 and 2 grids (132, 264 blocks for 300, 290 rows) are right (cache, misaligned)" ||
    fail "softmax_block with WAVE"
# 551 and 276 groups of 2 and 4 rows on 264 and 132 warps; 77 > 32 * CPT
# columns take the streaming loops
emu 132 --emu 1101x301 $T/softmax_warp.cu WARPS=2 RPW=2 VEC=4 CPT=4 UNROLL=2 WAVE=1 &&
    emu 132 --emu 1101x77 --misalign $T/softmax_warp.cu WARPS=1 RPW=4 VEC=2 CPT=2 UNROLL=1 WAVE=1 &&
    ok "softmax_warp: a WAVE 1 grid (132 blocks) is right (RPW 2 and 4, streaming, misaligned)" ||
    fail "softmax_warp with WAVE"
# 16 and 8 rows a block: 188 and 251 blocks' worth of rows on 132
emu 132 --emu 3001x61 $T/softmax_multirow.cu G=8 VEC=2 NCH=4 RPG=2 WARPS=2 WAVE=1 &&
    emu 132 --emu 2003x61 --misalign $T/softmax_multirow.cu G=16 VEC=4 NCH=1 RPG=4 WARPS=1 WAVE=1 &&
    ok "softmax_multirow: a WAVE 1 grid (132 blocks) is right (4 and 2 groups a warp, misaligned)" ||
    fail "softmax_multirow with WAVE"
# a warp a row (251 blocks' worth) and a block a row (REV 1 and 0), then
# WAVE = 0: one block per 2 rows
emu 132 --emu 2001x101 $T/softmax_online.cu TPR=32 THREADS=256 WAVE=1 &&
    emu 132 --emu 700x301 $T/softmax_online.cu TPR=256 THREADS=256 REV=1 WAVE=1 &&
    emu 132 --emu 301x999 --misalign $T/softmax_online.cu TPR=128 THREADS=128 UNROLL=2 REV=0 WAVE=1 &&
    emu 150 --emu 300x77 $T/softmax_online.cu TPR=32 THREADS=64 VEC=1 WAVE=0 &&
    ok "softmax_online: WAVE 1 grids (warp and block a row) and WAVE 0 (150 blocks, 300 rows) are right" ||
    fail "softmax_online with WAVE"
# the check can fail: softmax_warp whose row loop stops after one step
sed 's/g += (long long)gridDim.x \* WARPS/g += 1LL << 40/' $T/softmax_warp.cu >"$SCRATCH/softmax_warp.cu"
if grep -q '1LL << 40' "$SCRATCH/softmax_warp.cu"; then
    v=$(TPLCC_DIR="$SCRATCH" scripts/tplcc.sh --no-compile --trials 1 --emu 1101x301 \
        "$SCRATCH/softmax_warp.cu" WARPS=2 RPW=2 VEC=4 CPT=4 UNROLL=2 WAVE=1 2>&1 | tail -1)
    [ "$v" = "verdict: wrong" ] &&
        ok "softmax_warp with one step of its row loop leaves rows unwritten: wrong" ||
        fail "broken row loop: '$v', want 'verdict: wrong'"
else
    fail "softmax_warp's row loop step not found (update the broken copy)"
fi
finish
