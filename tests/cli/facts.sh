# Shape facts (tpl.h "fact") in sgemm_warptile (BVEC: N % 4 == 0).
# 1. An N % 4 != 0 shape compiles the scalar-B main loop alone: its cubin
#    (NVRTC, no GPU) is well under the aligned build's three loops.
# 2. On the CPU emulation of tests/gpu/tpl_selftest.cu (scripts/tplcc.sh
#    --emu; g++, no GPU), every build is right element by element against
#    fp64: aligned, aligned with a B that is not 16-byte aligned
#    (--misalign shifts every buffer by one element: the scalar loop runs
#    in a BVEC = 1 build), BVEC = 0, and a ragged shape with split-K.
. tests/cli/lib.inc
TPL=templates/gemm/sgemm_warptile.cu
CT="$BUILD/tests/compile_time"
bytes() { "$CT" "$TPL" fp32 "$1" 0 | awk 'NR == 1 { print $3 }'; }
a=$(bytes 4096x4096x4096) u=$(bytes 6001x5999x6007)
[ -n "$a" ] && [ -n "$u" ] && [ "$u" -gt 0 ] && [ $((u * 10)) -lt $((a * 7)) ] \
    && ok "facts: the N % 4 != 0 build is one main loop ($u bytes of cubin against $a aligned)" \
    || fail "facts: cubin sizes aligned '$a', unaligned '$u'"
if ! command -v g++ >/dev/null; then
    echo "skip the emulation: no g++"
    finish
fi
[ "$(emu_verdict --emu 256x128x64 "$TPL")" = "verdict: ok" ] \
    && ok "facts: the aligned build (BVEC = 1) is right" || fail "aligned build"
[ "$(emu_verdict --emu 250x132x68 --misalign "$TPL" SPLITK=3)" = "verdict: ok" ] \
    && ok "facts: a BVEC = 1 build with a misaligned B, ragged edges and split-K is right" \
    || fail "BVEC = 1 build, misaligned B"
[ "$(emu_verdict --emu 130x66x40 "$TPL" BM=64 BN=64 TM=8 TN=8 LN=4)" = "verdict: ok" ] \
    && [ "$(emu_verdict --emu 250x131x68 --misalign "$TPL" SPLITK=3)" = "verdict: ok" ] \
    && ok "facts: BVEC = 0 builds are right (ragged, split-K, misaligned)" || fail "BVEC = 0 build"
# GROUP_M reaches the kernel as the int argument group_m (tpl.h "arg") and
# RT as the reduce launch's blockDim.x: with 11 block rows, group widths 1
# and 16 (a partial group) and both reduce widths cover every tile once
[ "$(emu_verdict --emu 700x300x64 "$TPL" BM=64 BN=64 TM=8 TN=8 LN=4 GROUP_M=1 SPLITK=2 RT=512)" = "verdict: ok" ] \
    && [ "$(emu_verdict --emu 700x300x64 "$TPL" BM=64 BN=64 TM=8 TN=8 LN=4 GROUP_M=16 SPLITK=3 RT=128)" = "verdict: ok" ] \
    && ok "args: builds with GROUP_M 1 and 16 as an int argument, RT 512 and 128, are right" \
    || fail "GROUP_M / RT as launch values"
finish
