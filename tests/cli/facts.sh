# Shape facts (tpl.h "fact") in sgemm_warptile, on the CPU emulation of
# tests/gpu/tpl_selftest.cu (scripts/tplcc.sh --emu; g++, no GPU): the
# aligned build's predicate-free loop, its generic_tile fallback for a B
# pointer that is not 16-byte aligned (--misalign shifts every buffer by
# one element), and a ragged shape with split-K, all checked element by
# element against fp64. A copy whose generic_tile adds 1 to each product is
# wrong with --misalign only: the fallback is the path taken there.
. tests/cli/lib.inc
TPL=templates/gemm/sgemm_warptile.cu
if ! command -v g++ >/dev/null; then
    echo "skip facts.sh: no g++ for the CPU emulation"
    finish
fi
verdict() { TPLCC_DIR="$SCRATCH" scripts/tplcc.sh --no-compile --trials 1 "$@" 2>&1 | tail -1; }
[ "$(verdict --emu 256x128x64 "$TPL")" = "verdict: ok" ] \
    && ok "facts: the aligned build (BVEC KFULL MNFULL = 1) is right" || fail "aligned build"
[ "$(verdict --emu 256x128x64 --misalign "$TPL")" = "verdict: ok" ] \
    && ok "facts: its fallback for a misaligned B is right" || fail "generic_tile"
[ "$(verdict --emu 250x132x68 --misalign "$TPL" SPLITK=3)" = "verdict: ok" ] \
    && ok "facts: a ragged shape (MNFULL = KFULL = 0) with split-K and a misaligned B is right" \
    || fail "ragged build"
[ "$(verdict --emu 130x66x40 "$TPL" BM=64 BN=64 TM=8 TN=8 LN=4)" = "verdict: ok" ] \
    && ok "facts: an N % 4 != 0 build (BVEC = 0) is right" || fail "BVEC = 0 build"
awk '/void generic_tile\(/ { g = 1 }
     g && /acc\[i\]\[j\] = fmaf\(a\[i\], b\[j\], acc\[i\]\[j\]\);/ {
         sub(/;$/, " + 1.f;"); g = 0 }
     { print }' "$TPL" >"$SCRATCH/sgemm_warptile.cu"
[ "$(verdict --emu 256x128x64 --misalign "$SCRATCH/sgemm_warptile.cu" | cut -c1-14)" = "verdict: wrong" ] \
    && [ "$(verdict --emu 256x128x64 "$SCRATCH/sgemm_warptile.cu")" = "verdict: ok" ] \
    && ok "facts: a broken generic_tile is caught with a misaligned B, and only there" \
    || fail "the misaligned case does not run generic_tile"
finish
