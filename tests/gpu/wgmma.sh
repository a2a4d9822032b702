#!/bin/sh
# tests/gpu/wgmma.sh - short GPU check of templates/gemm/hgemm_wgmma.cu
# (TMA + wgmma, tensor maps passed by the harness): `kevo eval` at the
# template's default point, two wider points, tail stream-K (SK=2),
# split-K (SK=3), the pre-session-13 default and a 1-CTA point, for bf16
# and fp16, on 4096^3, 8192^3, an awkward 1000x776x328 (M, N, K not
# multiples of the tiles; K and N multiples of 8 as TMA needs) and a long
# K with few tiles (512x512x32768, where SK=3 splits the k range). The
# points are copies of the template with other defaults, so one kevo
# process (one worker, one cuBLAS baseline) evaluates all seven per dtype
# and shape. Prints verdict, TFLOP/s and the ratio to cuBLAS per run;
# exits 1 on any verdict other than ok. KEVO = the kevo binary; logs go to
# $OUT if set. About 60-90 s of GPU time on an H100.
set -u
KEVO=${KEVO:?set KEVO to the kevo binary}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOG=${OUT:-$(mktemp -d /tmp/kevo-wgmma.XXXXXX)}
SEED=${SEED:-4242}
TMO=${TIMEOUT_MS:-5000} # watchdog per phase: a deadlocked pipeline costs 5 s
TPL="$ROOT/templates/gemm/hgemm_wgmma.cu"
mkdir -p "$LOG/points"

# point NAME "K=V ...": a copy of the template with those defaults
point() {
    f="$LOG/points/$1.cu"
    cp "$TPL" "$f"
    for kv in $2; do
        k=${kv%%=*} v=${kv#*=}
        sed -i "s|^\(// kevo: param $k .*\)default=[0-9]*|\1default=$v|" "$f"
        grep -q "^// kevo: param $k .*default=$v\$" "$f" ||
            { echo "cannot set $kv in $f" >&2; exit 2; }
    done
    echo "$f"
}
P0=$(point hgemm_wgmma_default "") || exit 2
P1=$(point hgemm_wgmma_n256_2c "BN=256 CONSUMERS=2 SETREG=1 PERSIST=1") ||
    exit 2
P2=$(point hgemm_wgmma_m256_2c "BM=256 BN=128 CONSUMERS=2 SETREG=1 PERSIST=1 GROUP_M=16") ||
    exit 2
# tail stream-K: several writers a tile where there are fewer tiles than
# pairs (1000x776x328: 16), one or two in the last wave (4096^3, 8192^3)
P3=$(point hgemm_wgmma_sk2 "SK=2") || exit 2
# split-K (1000x776x328: 16 pair tiles, 4 k ranges each; whole tiles at
# 4096^3 and 8192^3)
P4=$(point hgemm_wgmma_sk3 "SK=3") || exit 2
# the default before session 13 (none of LEAN, MCK, EPW, KREV; L2P=256),
# and a 1-CTA persistent point without the pair-only switches
P5=$(point hgemm_wgmma_plain "LEAN=0 MCK=0 EPW=0 L2P=256 KREV=0") || exit 2
P6=$(point hgemm_wgmma_c1 "CLUSTER=1 MCK=0") || exit 2

bad=0
TABLE="$LOG/wgmma-summary.txt"
: >"$TABLE"
for dt in bf16 fp16; do
    for s in 4096x4096x4096 8192x8192x8192 1000x776x328 512x512x32768; do
        log="$LOG/wgmma-$dt-$s.log"
        "$KEVO" eval "$P0" "$P1" "$P2" "$P3" "$P4" "$P5" "$P6" --dtype "$dt" --shape "$s" \
            --seed "$SEED" --timeout-ms "$TMO" >"$log" 2>&1
        echo "rc=$?" >>"$log"
        for f in "$P0" "$P1" "$P2" "$P3" "$P4" "$P5" "$P6"; do
            # "FILE: ok  1.2 ms (min 1.1), 650.00 TFLOP/s, 0.900x cublas, ..."
            line=$(grep -F "$f: " "$log" | head -1)
            verdict=$(echo "$line" | awk '{ print $2 }')
            tflops=$(echo "$line" | sed -n 's/.*, \([0-9.]*\) TFLOP\/s.*/\1/p')
            ratio=$(echo "$line" | sed -n 's/.*, \([0-9.]*\)x [a-z]*.*/\1/p')
            printf '%-5s %-15s %-22s %-8s %8s TFLOP/s %6sx cuBLAS\n' "$dt" \
                "$s" "$(basename "$f" .cu)" "${verdict:-none}" \
                "${tflops:--}" "${ratio:--}" | tee -a "$TABLE"
            if [ "${verdict:-none}" != ok ]; then
                bad=$((bad + 1))
                if [ -n "$line" ]; then
                    echo "$line" | sed 's/^/    /'
                else # no verdict line: show how the log ends
                    tail -5 "$log" | sed 's/^/    /'
                fi
            fi
        done
        grep '^# baseline' "$log" | sed "s/^/    $dt $s /"
    done
done
echo "$bad non-ok verdicts (logs in $LOG)"
[ "$bad" -eq 0 ]
