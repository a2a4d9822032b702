#!/usr/bin/env bash
# compare.sh - PTX size, NVRTC CPU time and SASS of template points before
# and after a change (issue 32: compile CPU grows with the PTX a point
# emits). For each CASE "TEMPLATE DTYPE SHAPE N SEED" it compiles the
# default point and N seeded random points of the template at REV (git) and
# in the working tree with build/tests/compile_time (kevo's NVRTC options,
# one at a time, no cache) and prints one row per point: PTX bytes, CPU
# seconds, and whether the two cubins' SASS is identical (cuobjdump -sass,
# addresses and encodings stripped). Same seed, same points: sampling
# depends on params and constraints only, not on facts.
#
# usage: compare.sh REV CASEFILE > table.md      (run from the repo root)
# env: CUOBJDUMP (cuobjdump; /usr/local/cuda/bin/cuobjdump by default)
set -euo pipefail
rev=$1 cases=$2
ct=build/tests/compile_time
cuobj=${CUOBJDUMP:-/usr/local/cuda/bin/cuobjdump}
[ -x "$ct" ] || { echo "compare.sh: build $ct first (make build/tests/compile_time)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sass() { # cubin -> instruction text, no addresses or encodings
    "$cuobj" -sass "$1" | sed -n 's@^ */\*[0-9a-f]\{4,\}\*/ *\(.*\);.*@\1@p'
}
echo "| template | dtype | shape | point | PTX before | PTX after | PTX % | CPU s before | CPU s after | SASS |"
echo "|---|---|---|---|---:|---:|---:|---:|---:|---|"
tb=0 ta=0 cb=0 ca=0
while read -r tpl dt shape n seed; do
    case $tpl in ''|\#*) continue ;; esac
    rm -rf "$tmp"/b "$tmp"/a; mkdir -p "$tmp"/b "$tmp"/a
    git show "$rev:$tpl" > "$tmp/$(basename "$tpl")"
    CT_DUMP=$tmp/b $ct "$tmp/$(basename "$tpl")" "$dt" "$shape" "$n" "$seed" > "$tmp/b.txt" || true
    CT_DUMP=$tmp/a $ct "$tpl" "$dt" "$shape" "$n" "$seed" > "$tmp/a.txt" || true
    k=0
    while IFS= read -r la <&3 && IFS= read -r lb <&4; do
        case $la in total*) break ;; esac
        # "W s B B R regs S/S spill C cpu P ptx  NAME params..."
        set -- $lb; pb=${11} cpb=$9
        set -- $la; pa=${11} cpa=$9
        same=differs
        if [ -f "$tmp/a/point-$k.cubin" ] && [ -f "$tmp/b/point-$k.cubin" ] &&
           cmp -s <(sass "$tmp/b/point-$k.cubin") <(sass "$tmp/a/point-$k.cubin"); then
            same=identical
        fi
        pt=$([ $k = 0 ] && echo default || echo "#$k")
        pct=$(awk -v a="$pa" -v b="$pb" 'BEGIN{printf "%+.1f", b ? 100*(a-b)/b : 0}')
        echo "| $(basename "$tpl" .cu) | $dt | $shape | $pt | $pb | $pa | $pct | $cpb | $cpa | $same |"
        tb=$((tb + pb)); ta=$((ta + pa))
        cb=$(awk -v x="$cb" -v y="$cpb" 'BEGIN{print x+y}'); ca=$(awk -v x="$ca" -v y="$cpa" 'BEGIN{print x+y}')
        k=$((k + 1))
    done 3<"$tmp/a.txt" 4<"$tmp/b.txt"
done < "$cases"
awk -v tb="$tb" -v ta="$ta" -v cb="$cb" -v ca="$ca" 'BEGIN{
    printf "| **total** | | | | %d | %d | %+.1f | %.2f | %.2f | |\n", tb, ta, tb ? 100*(ta-tb)/tb : 0, cb, ca }'
