# Persistent softmax grids (GRID, launch-only, issue 32): a grid smaller
# than ROWS loops over the rows. On the CPU emulation of tests/gpu/
# tpl_selftest.cu (scripts/tplcc.sh --emu; g++, no GPU) every row of a
# 300-row softmax is right with 132 or 264 blocks (the emulated 132 SMs),
# for softmax_block (registers, the shared cache, the scalar path) and
# softmax_cluster (CL = 1: the emulation has no clusters); softmax_multirow
# loops its row groups likewise. GRID stays a launch-only param (kevo
# list), so one compile serves every value.
. tests/cli/lib.inc
for t in softmax_block softmax_cluster softmax_multirow; do
    "$KEVO" list 2>/dev/null | grep -A1 " $t " | grep -q "launch-only.*GRID" \
        && ok "persist: $t's GRID is launch-only" \
        || fail "persist: kevo list does not name $t's GRID launch-only"
done
if ! command -v g++ >/dev/null; then
    echo "skip the emulation: no g++"
    finish
fi
B=templates/softmax/softmax_block.cu C=templates/softmax/softmax_cluster.cu
M=templates/softmax/softmax_multirow.cu
grid() { TPLCC_DIR="$SCRATCH" scripts/tplcc.sh --no-compile --trials 1 "$@" 2>&1 | awk '/^launch/ { print $4 }'; }
[ "$(grid --emu 300x1037 "$B" GRID=1)" = "132x1x1" ] \
    && ok "persist: softmax_block GRID=1 launches one block an SM for 300 rows" \
    || fail "persist: softmax_block GRID=1 grid '$(grid --emu 300x1037 "$B" GRID=1)'"
[ "$(emu_verdict --emu 300x1037 "$B" GRID=1)" = "verdict: ok" ] \
    && [ "$(emu_verdict --emu 300x1037 --misalign "$B" GRID=2 REG=0 VEC=1)" = "verdict: ok" ] \
    && [ "$(emu_verdict --emu 300x4100 "$B" GRID=1 REG=1 VEC=2 THREADS=128)" = "verdict: ok" ] \
    && ok "persist: softmax_block's persistent grids write every row right (registers, shared cache, scalar)" \
    || fail "persist: a persistent softmax_block grid is wrong"
[ "$(emu_verdict --emu 300x1037 "$C" CL=1 GRID=1)" = "verdict: ok" ] \
    && [ "$(emu_verdict --emu 300x1037 --misalign "$C" CL=1 GRID=2 REG=0 VEC=1)" = "verdict: ok" ] \
    && ok "persist: softmax_cluster's persistent grids (CL = 1) write every row right" \
    || fail "persist: a persistent softmax_cluster grid is wrong"
# 4 rows a block (G = 32) and 8 (G = 16): 751 and 376 blocks' worth of
# rows on 132 and 264 blocks
[ "$(emu_verdict --emu 3001x250 "$M" GRID=1)" = "verdict: ok" ] \
    && [ "$(emu_verdict --emu 3001x250 --misalign "$M" GRID=2 VEC=1 G=16 NCH=16)" = "verdict: ok" ] \
    && ok "persist: softmax_multirow's persistent grids write every row right" \
    || fail "persist: a persistent softmax_multirow grid is wrong"
finish
