# Int kernel arguments (tpl.h "arg") in the shipped GEMM templates: GROUP_M
# reaches the kernels as group_m, and the split-K reduce launches take RT
# from blockDim.x. On the CPU emulation of tests/gpu/tpl_selftest.cu
# (scripts/tplcc.sh --emu; g++, no GPU), which calls each kernel with its
# own parameter list (a reduce kernel that declares no arg gets none),
# builds with group widths 1 and 16 (partial groups) and both ends of RT
# are right element by element against fp64. (sgemm_warptile: facts.sh.)
. tests/cli/lib.inc
if ! command -v g++ >/dev/null; then
    echo "skip the emulation: no g++"
    finish
fi
G=templates/gemm
[ "$(emu_verdict --emu 333x150x70 $G/sgemm_tiled.cu GROUP_M=1)" = "verdict: ok" ] \
    && [ "$(emu_verdict --emu 333x150x70 $G/sgemm_tiled.cu GROUP_M=16)" = "verdict: ok" ] \
    && ok "args: sgemm_tiled with GROUP_M 1 and 16 as an int argument is right" \
    || fail "sgemm_tiled GROUP_M as an arg"
[ "$(emu_verdict --emu 333x150x70 $G/sgemm_splitk.cu GROUP_M=1 RT=512)" = "verdict: ok" ] \
    && [ "$(emu_verdict --emu 333x150x70 $G/sgemm_splitk.cu GROUP_M=8 RT=128)" = "verdict: ok" ] \
    && ok "args: sgemm_splitk with GROUP_M 1 and 8, reduce widths 512 and 128, is right" \
    || fail "sgemm_splitk GROUP_M / RT"
[ "$(emu_verdict -t bf16 --emu 300x136x72 $G/hgemm_mma.cu GROUP_M=1)" = "verdict: ok" ] \
    && ok "args: hgemm_mma (bf16) with GROUP_M 1 as an int argument is right" \
    || fail "hgemm_mma GROUP_M as an arg"
finish
