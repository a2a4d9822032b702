#!/usr/bin/env bash
# sass-compare.sh - proof without a GPU that a template rewrite changed no
# machine code: compiles each point of the list below with the template
# of git revision OLD (default 1281cf3) and of the working tree, exactly
# as kevo compiles a candidate (build/tests/tpl_cubin: tpl_instantiate at
# the shape, jit_compile with kevo's NVRTC options and in-memory headers,
# sm_90a), and compares the SASS of the two cubins (cuobjdump -sass; the
# bytes of the ELF .text sections where no cuobjdump is found: equal code
# either way). The points: every default point (as bench/suite.json's
# cases start from them) and every point of tests/gpu/wgmma.sh,
# tests/gpu/gemm_families.sh and tests/unit/test_templates.c.
# hgemm_packed's GEMM kernel lost dead prologue work with FUSE (the fused
# pack's order record, stored to shared memory even with FUSE=0): where
# its SASS differs, the point is compiled again from the new template with
# that record put back (bench/results/2026-11-28-sass-s14/porder-shim.py)
# and must then match exactly ("same+shim").
#
# usage: scripts/sass-compare.sh [OLD_REV]
#   OUT=DIR      where the table and the SASS of differing points go
#                (default: a new folder under /tmp)
#   CUOBJDUMP=X  the cuobjdump to use (default: $CUDA/bin, then PATH)
# Needs `make build/tests/tpl_cubin`. Prints one line a point and a
# summary; exits 1 if any point differs (after the shim), 2 on a setup
# error.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=${1:-1281cf3}
CUDA=${CUDA:-/usr/local/cuda}
TOOL=${TPL_CUBIN:-$ROOT/build/tests/tpl_cubin}
SHIM=$ROOT/bench/results/2026-11-28-sass-s14/porder-shim.py
OUT=${OUT:-$(mktemp -d /tmp/kevo-sass.XXXXXX)}
W=$(mktemp -d /tmp/kevo-sass-w.XXXXXX)
trap 'rm -rf "$W"' EXIT
[ -x "$TOOL" ] || { echo "sass-compare: no $TOOL (make build/tests/tpl_cubin)" >&2; exit 2; }
CUO=${CUOBJDUMP:-}
[ -n "$CUO" ] || { [ -x "$CUDA/bin/cuobjdump" ] && CUO=$CUDA/bin/cuobjdump; }
[ -n "$CUO" ] || CUO=$(command -v cuobjdump || true)
mkdir -p "$OUT" "$W/old" "$W/new" "$W/shim"
for t in hgemm_wgmma hgemm_packed; do
    git -C "$ROOT" show "$OLD:templates/gemm/$t.cu" >"$W/old/$t.cu" ||
        { echo "sass-compare: no templates/gemm/$t.cu at $OLD" >&2; exit 2; }
    cp "$ROOT/templates/gemm/$t.cu" "$W/new/$t.cu"
done
python3 "$SHIM" "$W/new/hgemm_packed.cu" "$W/shim/hgemm_packed.cu" ||
    { echo "sass-compare: the shim does not apply" >&2; exit 2; }

# code CUBIN OUT: what is compared, the SASS text or the .text bytes (hex)
code() {
    if [ -n "$CUO" ]; then
        "$CUO" -sass "$1" >"$2"
    else
        python3 - "$1" >"$2" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
shoff, = struct.unpack_from('<Q', b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
secs = [struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize)
        for i in range(shnum)]
stro = secs[shstrndx][4]
def name(s):
    o = stro + s[0]
    return b[o:b.index(b'\0', o)].decode()
for s in secs:
    if name(s).startswith('.text.'):
        print(name(s), b[s[4]:s[4] + s[5]].hex())
PY
    fi
}

# counts SASS: "kernel instructions" a line, in the file's order
counts() {
    awk '/Function : / { if (k != "") print k, n; k = $3; n = 0 }
        /^ +\/\*[0-9a-f]+\*\/ / { n++ } END { if (k != "") print k, n }' "$1"
}

# point TEMPLATE DTYPE SHAPE [NAME=VALUE ...]
same=0 shim=0 diff=0
point() {
    local t=$1 dt=$2 sh=$3
    shift 3
    local tag="$t $dt $sh ${*:-(default)}" f
    f=$(echo "$t-$dt-$sh-$*" | tr ' =' '_-')
    if ! "$TOOL" "$W/old/$t.cu" "$dt" "$sh" "$W/o.cubin" "$@" >"$W/o.txt" ||
        ! "$TOOL" "$W/new/$t.cu" "$dt" "$sh" "$W/n.cubin" "$@" >"$W/n.txt"; then
        echo "FAIL      $tag (compile)" | tee -a "$OUT/table.txt"
        diff=$((diff + 1))
        return
    fi
    code "$W/o.cubin" "$W/o.sass"
    code "$W/n.cubin" "$W/n.sass"
    local regs
    regs=$(awk '{ print $1 " regs, spills " $3 }' "$W/n.txt")
    if cmp -s "$W/o.sass" "$W/n.sass"; then
        printf '%-9s %s  [%s]\n' same "$tag" "$regs" | tee -a "$OUT/table.txt"
        same=$((same + 1))
        return
    fi
    local nd
    nd="$(diff "$W/o.sass" "$W/n.sass" | grep -c "^[<>]") lines differ"
    [ -z "$CUO" ] || nd="$nd; instructions a kernel, old -> new: $(
        paste -d' ' <(counts "$W/o.sass") <(counts "$W/n.sass") |
            awk '{ printf "%s%s %s -> %s", (NR > 1 ? ", " : ""), $1, $2, $4 }')"
    cp "$W/o.sass" "$OUT/$f.old.sass"
    cp "$W/n.sass" "$OUT/$f.new.sass"
    if [ "$t" = hgemm_packed ] &&
        "$TOOL" "$W/shim/$t.cu" "$dt" "$sh" "$W/s.cubin" "$@" >/dev/null &&
        code "$W/s.cubin" "$W/s.sass" && cmp -s "$W/o.sass" "$W/s.sass"; then
        printf '%-9s %s  [%s; without the shim %s]\n' \
            same+shim "$tag" "$regs" "$nd" | tee -a "$OUT/table.txt"
        shim=$((shim + 1))
        return
    fi
    printf '%-9s %s  [%s]\n' DIFF "$tag" "$nd" |
        tee -a "$OUT/table.txt"
    diff=$((diff + 1))
}

: >"$OUT/table.txt"
how="ELF .text bytes"
[ -z "$CUO" ] || how="SASS by $CUO"
echo "# old: $OLD, new: working tree of $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet -- templates || echo ' (modified)'); compared: $how" |
    tee -a "$OUT/table.txt"
# hgemm_wgmma: default points, tests/gpu/wgmma.sh, tests/unit/test_templates.c
for dt in bf16 fp16; do
    point hgemm_wgmma $dt 4096x4096x4096
    point hgemm_wgmma $dt 8192x8192x8192 BN=256 CONSUMERS=2 SETREG=1 PERSIST=1
    point hgemm_wgmma $dt 4096x4096x4096 BM=256 BN=128 CONSUMERS=2 SETREG=1 PERSIST=1 GROUP_M=16
    point hgemm_wgmma $dt 1000x776x328 SK=2
    point hgemm_wgmma $dt 512x512x32768 SK=3
    point hgemm_wgmma $dt 4096x4096x4096 LEAN=0 MCK=0 EPW=0 L2P=256 KREV=0
    point hgemm_wgmma $dt 1000x776x328 CLUSTER=1 MCK=0
done
point hgemm_wgmma fp16 256x256x131072 SK=3 BN=128 STAGES=6
point hgemm_wgmma bf16 1024x1024x16384 SK=3 CLUSTER=1 MCK=0 BK=32 STAGES=7
# hgemm_packed: default points, tests/gpu/gemm_families.sh, test_templates.c
for dt in bf16 fp16; do
    point hgemm_packed $dt 4099x4097x4095
    point hgemm_packed $dt 4096x4096x4096
    point hgemm_packed $dt 1000x999x777 CLN=0 BN=128 CLUSTER=1 SK=1
    point hgemm_packed $dt 4099x4097x4095 CLN=0 BN=192 SK=2
    point hgemm_packed $dt 1000x999x777 CLN=0 BN=128 BT=0 SK=1
    point hgemm_packed $dt 512x512x32767 CLN=0 SK=4
    point hgemm_packed $dt 300x700x20001 CLN=0 SK=4 BN=128 BT=0 BM=64 CONSUMERS=1
done
echo "$same same, $shim same with the shim, $diff differ (table and SASS in $OUT)" |
    tee -a "$OUT/table.txt"
[ "$diff" -eq 0 ]
