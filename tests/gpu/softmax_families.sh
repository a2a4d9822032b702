#!/bin/sh
# tests/gpu/softmax_families.sh - a short GPU check of the softmax template
# families (templates/softmax/*.cu): `kevo eval` of each family at its
# default point and at a few tuned points (copies of the template with other
# defaults, written to $LOG/variants) on the large shapes of the H100 bars
# (8192x8192 and 4096x65536 and 1024x32768 fp32, 8192x8192 fp16 and bf16,
# 32768x1024 for short rows) and on awkward ones (1000x1003, 7x100003,
# 999x5), with persistent grids (GRID > 0: blocks or clusters looping over
# the rows) among the points.
# One kevo process (one worker) per shape and dtype. Prints verdict, GB/s
# and ratio to the copy baseline per kernel, and per shape the best ratio
# against its bar (0.95 for >= 64 MB of traffic, 0.85 for 4096x65536).
# Exit status: 0 if every verdict is ok, 1 otherwise (a missed bar is only
# reported, unless BARS_FATAL=1), 2 on usage errors. Logs go to $OUT (if
# set) or a temporary directory.
# usage: KEVO=build/bundle/kevo [OUT=dir] [SEED=n] tests/gpu/softmax_families.sh
set -u
KEVO=${KEVO:?set KEVO to the kevo binary}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOG=${OUT:-$(mktemp -d /tmp/kevo-softmax-families.XXXXXX)}
SEED=${SEED:-4242}
BARS_FATAL=${BARS_FATAL:-0}
T=$ROOT/templates/softmax
V=$LOG/variants
mkdir -p "$V" || exit 2
TABLE=$LOG/softmax_families.txt
: >"$TABLE"
n_bad=0
n_below=0

# variant NAME TEMPLATE K=V...: a copy of TEMPLATE named NAME.cu whose
# defaults are the given values (so one kevo process can evaluate several
# points of a template); prints its path.
variant() {
    name=$1
    src=$2
    shift 2
    out=$V/$name.cu
    cp "$src" "$out" || exit 2
    for kv in "$@"; do
        k=${kv%%=*}
        val=${kv#*=}
        sed -i "s|^\(// kevo: param $k .*\)default=[0-9]*|\1default=$val|" \
            "$out"
        grep -q "^// kevo: param $k .*default=$val\$" "$out" || {
            echo "softmax_families: $src has no param $k" >&2
            exit 2
        }
    done
    echo "$out"
}

# shape DTYPE SHAPE BAR FILE...: evaluates the files in one kevo process.
shape() {
    dt=$1
    sh=$2
    bar=$3
    shift 3
    log=$LOG/eval-$dt-$sh.log
    echo "== $dt $sh (bar ${bar}x copy)" | tee -a "$TABLE"
    start=$(date +%s)
    "$KEVO" eval "$@" --dtype "$dt" --shape "$sh" --seed "$SEED" \
        >"$log" 2>&1
    echo "   kevo eval exit $? in $(($(date +%s) - start)) s" | tee -a "$TABLE"
    grep '^# baseline' "$log" | sed 's/^/   /' | tee -a "$TABLE"
    best=0
    best_name=none
    for f in "$@"; do
        name=$(basename "$f" .cu)
        l=$(awk -v f="$f:" '$1 == f { print; exit }' "$log")
        verdict=$(echo "$l" | awk '{ print $2 }')
        gbs=$(echo "$l" | sed -n 's/.*), \([0-9.]*\) GB\/s.*/\1/p')
        ratio=$(echo "$l" | sed -n 's/.* \([0-9.]*\)x copy.*/\1/p')
        printf '   %-4s %-26s %-12s %9s GB/s %7sx copy\n' \
            "$([ "$verdict" = ok ] && echo PASS || echo FAIL)" "$name" \
            "${verdict:-none}" "${gbs:--}" "${ratio:--}" | tee -a "$TABLE"
        if [ "$verdict" != ok ]; then
            n_bad=$((n_bad + 1))
            echo "$l" | sed 's/^/      /' | tee -a "$TABLE"
            continue
        fi
        if [ -n "$ratio" ] &&
            awk -v a="$ratio" -v b="$best" 'BEGIN { exit !(a > b) }'; then
            best=$ratio
            best_name=$name
        fi
    done
    if awk -v a="$best" -v b="$bar" 'BEGIN { exit !(a >= b) }'; then
        echo "   best $best_name ${best}x copy: meets the ${bar}x bar" |
            tee -a "$TABLE"
    else
        n_below=$((n_below + 1))
        echo "   best $best_name ${best}x copy: BELOW the ${bar}x bar" |
            tee -a "$TABLE"
    fi
}

ONL=$T/softmax_online.cu
MR=$T/softmax_multirow.cu
SPL=$T/softmax_split.cu
CLU=$T/softmax_cluster.cu
BLK=$T/softmax_block.cu
WRP=$T/softmax_warp.cu
for f in "$ONL" "$MR" "$SPL" "$CLU" "$BLK" "$WRP"; do
    [ -f "$f" ] || { echo "softmax_families: missing $f" >&2; exit 2; }
done

# tuned points (all valid in their spaces; see each template's header)
onl_blk=$(variant online_block1024 "$ONL" TPR=1024 THREADS=1024 VEC=4 \
    UNROLL=2 MINB=1)
onl_w8=$(variant online_warp_u8 "$ONL" TPR=32 THREADS=128 VEC=4 UNROLL=8 \
    MINB=4)
onl_h=$(variant online_vec8 "$ONL" VEC=8 UNROLL=2)
clu_1=$(variant cluster_cl1_reg4 "$CLU" CL=1 THREADS=512 VEC=4 REG=4 MINB=2)
clu_2=$(variant cluster_cl2_t256 "$CLU" CL=2 THREADS=256 VEC=4 REG=4 MINB=4)
clu_4=$(variant cluster_cl4_reg8 "$CLU" CL=4 THREADS=512 VEC=4 REG=8 MINB=1)
clu_8=$(variant cluster_cl8_t256 "$CLU" CL=8 THREADS=256 VEC=4 REG=8 MINB=2)
clu_r16=$(variant cluster_cl4_reg16 "$CLU" CL=4 THREADS=256 VEC=4 REG=16 \
    MINB=2)
clu_h=$(variant cluster_cl1_vec8 "$CLU" CL=1 THREADS=256 VEC=8 REG=4 MINB=2)
spl_t=$(variant split_t512_cpt4 "$SPL" THREADS=512 CPT=4 UNROLL=4 MINB=2)
mr_s=$(variant multirow_g32_nch8 "$MR" G=32 VEC=4 NCH=8 WARPS=4 MINB=4)
mr_g16=$(variant multirow_g16_nch16 "$MR" G=16 VEC=4 NCH=16 WARPS=4 MINB=4)
mr_h=$(variant multirow_g32_vec8 "$MR" G=32 VEC=8 NCH=4 WARPS=4 MINB=4)
# persistent grids: GRID blocks (clusters) an SM loop over the rows
mr_p1=$(variant multirow_g32_grid1 "$MR" G=32 VEC=4 NCH=8 WARPS=4 MINB=4 \
    GRID=1)
mr_p4=$(variant multirow_g16_grid4 "$MR" G=16 VEC=4 NCH=16 WARPS=4 MINB=4 \
    GRID=4)
blk_p2=$(variant block_grid2 "$BLK" GRID=2)
clu_p1=$(variant cluster_cl4_grid1 "$CLU" CL=4 THREADS=512 VEC=4 REG=8 \
    MINB=1 GRID=1)
for v in "$onl_blk" "$onl_w8" "$onl_h" "$clu_1" "$clu_2" "$clu_4" "$clu_8" \
    "$clu_h" "$clu_r16" "$spl_t" "$mr_s" "$mr_g16" "$mr_h" "$mr_p1" \
    "$mr_p4" "$blk_p2" "$clu_p1"; do
    [ -n "$v" ] || exit 2 # variant() said why
done

shape fp32 8192x8192 0.95 "$ONL" "$onl_blk" "$onl_w8" "$CLU" "$clu_1" \
    "$clu_2" "$SPL" "$BLK" "$WRP" "$blk_p2" "$clu_p1"
shape fp32 4096x65536 0.85 "$CLU" "$clu_4" "$clu_8" "$clu_r16" "$ONL" \
    "$onl_blk" "$SPL" "$BLK"
shape fp32 1024x32768 0.95 "$CLU" "$clu_4" "$clu_8" "$clu_r16" "$ONL" \
    "$SPL" "$spl_t" "$BLK"
shape fp16 8192x8192 0.95 "$ONL" "$onl_h" "$CLU" "$clu_h" "$SPL" "$BLK" \
    "$WRP"
shape bf16 8192x8192 0.95 "$ONL" "$onl_h" "$CLU" "$clu_h" "$SPL" "$BLK" \
    "$WRP"
shape fp32 32768x1024 0.95 "$MR" "$mr_s" "$mr_g16" "$ONL" "$WRP" "$mr_p1" \
    "$mr_p4"
shape fp16 32768x1024 0.95 "$mr_h" "$mr_s" "$ONL" "$WRP"
# awkward shapes: correctness first (odd COLS, no vector path); bar 0
shape fp32 1000x1003 0 "$ONL" "$MR" "$mr_s" "$SPL" "$CLU" "$clu_1" "$BLK" \
    "$WRP" "$mr_p1" "$mr_p4" "$blk_p2" "$clu_p1"
shape bf16 1000x1003 0 "$ONL" "$MR" "$SPL" "$CLU" "$clu_h"
shape fp32 7x100003 0 "$ONL" "$SPL" "$spl_t" "$CLU" "$clu_4" "$BLK" "$WRP" \
    "$clu_p1" "$blk_p2"
# rows shorter than a cluster's ranks: late ranks own no columns
shape fp32 999x5 0 "$CLU" "$clu_8" "$MR" "$ONL" "$SPL" "$BLK" "$WRP" \
    "$mr_p1" "$mr_p4" "$clu_p1"

echo
echo "== summary: $n_bad non-ok verdicts, $n_below shapes below their bar" |
    tee -a "$TABLE"
echo "(logs in $LOG)"
[ "$n_bad" -eq 0 ] || exit 1
[ "$BARS_FATAL" = 1 ] && [ "$n_below" -gt 0 ] && exit 1
exit 0
