#!/bin/sh
# tests/gpu/gemm_families.sh - GPU check of the GEMM template families
# hgemm_mma (fp16/bf16 tensor cores), sgemm_splitk (fp32 split-K),
# sgemm_warptile (fp32 warp tiles, split-K) and hgemm_packed (stream-K,
# split-K),
# run
# on a machine with an NVIDIA GPU and KEVO set to the kevo binary. Each
# template is evaluated at its default point and at a few other points
# (written as copies of the template with other defaults, so that one kevo
# process per shape and dtype evaluates them all against one cuBLAS
# baseline) on a large shape, on shapes with ragged edges, and (hgemm) on a
# shape whose K and N are odd (the element-wise load path). Prints one row
# per evaluation: verdict, TFLOP/s and the ratio to cuBLAS; exits 1 if any
# verdict is not ok, 3 if there is no GPU. Logs go to $OUT (if set) or a
# temporary directory.
# About 20-40 s of GPU time on an H100.
set -u
KEVO=${KEVO:?set KEVO to the kevo binary}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOG=${OUT:-$(mktemp -d /tmp/kevo-gemm-families.XXXXXX)}
SEED=${SEED:-2026}
TMO=${TIMEOUT_MS:-10000}
VAR="$LOG/variants"
mkdir -p "$VAR"
TABLE="$LOG/gemm_families.txt"
: >"$TABLE"
fail=0

# variant SRC TAG P=V ...: a copy of SRC named <name>-TAG.cu whose params
# P default to V; prints its path.
variant() {
    src=$1 tag=$2
    shift 2
    out="$VAR/$(basename "$src" .cu)-$tag.cu"
    cp "$src" "$out"
    for pv in "$@"; do
        p=${pv%%=*} v=${pv#*=}
        awk -v p="$p" -v v="$v" '
            $1 == "//" && $2 == "kevo:" && $3 == "param" && $4 == p {
                if (!sub(/default=[^ \t]+/, "default=" v)) $0 = $0 " default=" v
            } { print }' "$out" >"$out.tmp" && mv "$out.tmp" "$out"
        grep -q "^// kevo: param $p .*default=$v\$" "$out" ||
            { echo "gemm_families: no param $p in $src" >&2; exit 2; }
    done
    echo "$out"
}

# run DTYPE SHAPE FILE...: one kevo process; one table row per file.
run() {
    dt=$1 shape=$2
    shift 2
    log="$LOG/eval-$dt-$shape.log"
    "$KEVO" eval "$@" --dtype "$dt" --shape "$shape" --seed "$SEED" \
        --timeout-ms "$TMO" >"$log" 2>&1
    if [ $? -eq 3 ]; then # no GPU: nothing else will run either
        cat "$log" >&2
        exit 3
    fi
    sed -n 's/^# baseline /    baseline /p' "$log" | tee -a "$TABLE"
    for f in "$@"; do
        line=$(grep -F "$f: " "$log" | head -1)
        verdict=$(echo "$line" | awk '{ print $2 }')
        tf=$(echo "$line" | sed -n 's/.*, \([0-9.]*\) TFLOP\/s.*/\1/p')
        ratio=$(echo "$line" | sed -n 's/.*TFLOP\/s, \([0-9.]*\)x .*/\1/p')
        printf '%-5s %-22s %-4s %-16s %8s TFLOP/s %6sx cuBLAS\n' \
            "${verdict:-none}" "$(basename "$f" .cu)" "$dt" "$shape" \
            "${tf:--}" "${ratio:--}" | tee -a "$TABLE"
        if [ "$verdict" != ok ]; then
            fail=$((fail + 1))
            grep -F -A1 "$f: " "$log" | sed 's/^/    /' | tee -a "$TABLE"
            [ -n "$line" ] || sed 's/^/    /' "$log" | tail -5
        fi
    done
}

H="$ROOT/templates/gemm/hgemm_mma.cu"
H1=$(variant "$H" 128x128 BM=128 BN=128 BK=32 WM=64 WN=64 STAGES=4) || exit 2
H2=$(variant "$H" 256x128pad BM=256 BN=128 BK=32 WM=64 WN=64 STAGES=3 \
    SWIZZLE=0) || exit 2
H3=$(variant "$H" 128x128k64 BM=128 BN=128 BK=64 WM=64 WN=32 STAGES=3 \
    GROUP_M=4) || exit 2
for dt in fp16 bf16; do
    run "$dt" 4096x4096x4096 "$H" "$H1" "$H2" "$H3"
    run "$dt" 1000x776x336 "$H" "$H1" "$H2" "$H3" # fast path, ragged M/N
    run "$dt" 1000x777x333 "$H" "$H1" "$H3"       # odd K and N: element loads
done

S="$ROOT/templates/gemm/sgemm_splitk.cu"
S1=$(variant "$S" 128x128s4 BM=128 BN=128 BK=16 TM=8 TN=8 WARP_N=4 \
    SPLITK=4) || exit 2
S2=$(variant "$S" 64x128s16 BM=64 BN=128 BK=32 TM=8 TN=4 WARP_N=8 \
    SPLITK=16 VEC=1 PAD=0 STAGES=2 RT=128) || exit 2
run fp32 256x256x8192 "$S" "$S1" "$S2"
run fp32 1024x1024x16384 "$S" "$S1" "$S2"
run fp32 250x130x3001 "$S" "$S1" "$S2" # ragged, K not a multiple of splits

# sgemm_warptile: the fast path, odd N and K (4-byte B copies, masked
# epilogue), split-K (auto and fixed) with the ordered reduce
W="$ROOT/templates/gemm/sgemm_warptile.cu"
W1=$(variant "$W" 128x128m2 BM=128 BN=128 TM=16 TN=8 LN=8 MINB=2) || exit 2
W2=$(variant "$W" 64x64s3 BM=64 BN=64 TM=4 TN=8 LN=8 BK=16 STAGES=4 \
    SPLITK=3 ORDER=1) || exit 2
run fp32 4096x4096x4096 "$W" "$W1"
run fp32 1000x777x333 "$W" "$W1" "$W2"
run fp32 384x384x65536 "$W1" "$W2"

# hgemm_packed: the default point, and stream-K (SK 1, 2) with B packed
# K-major (BT=1), which hung until the pack kernel cleared the stream-K
# flags after packed B (bench/results/2026-11-24-h100-s7)
P="$ROOT/templates/gemm/hgemm_packed.cu"
P1=$(variant "$P" bt-sk1 CLN=0 BN=128 CLUSTER=1 SK=1) || exit 2
P2=$(variant "$P" bt-sk2 CLN=0 BN=192 SK=2) || exit 2
P3=$(variant "$P" nm-sk1 CLN=0 BN=128 BT=0 SK=1) || exit 2
run bf16 4099x4097x4095 "$P" "$P1" "$P2" "$P3"
run fp16 1000x999x777 "$P" "$P1" "$P2" "$P3"
# split-K for few tiles (SK=4: the S ranges of a tile share its reduction)
# on odd long-K shapes, and where it falls back to whole tiles (S < 2)
P4=$(variant "$P" sk4 CLN=0 SK=4) || exit 2
P5=$(variant "$P" sk4-n128 CLN=0 BN=128 BT=0 BM=64 CONSUMERS=1 SK=4) || exit 2
run bf16 512x512x32767 "$P4" "$P5"
run fp16 300x700x20001 "$P4" "$P5"
run bf16 2000x3000x1001 "$P4" "$P5"

echo "$fail non-ok verdicts (logs in $LOG)" | tee -a "$TABLE"
[ "$fail" -eq 0 ]
