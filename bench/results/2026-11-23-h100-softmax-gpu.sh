#!/bin/bash
# 2026-11-23-h100-softmax-gpu.sh - what the softmax helper ran on the H100
# (issue 12): `kevo eval` of the new families softmax_bulk and softmax_unit
# at hand-picked points next to the shipped families, on odd-COLS and
# long-row shapes, then short `kevo run`s. Points are copies of a template
# with other defaults (as tests/gpu/softmax_families.sh does).
# usage: B=bundle/kevo OUT=dir bench/results/2026-11-23-h100-softmax-gpu.sh
#        PHASE [RUN_SECONDS]   (PHASE: eval | run | both)
set -u
B=${B:?set B to the kevo binary}
OUT=${OUT:?set OUT}
PHASE=${1:-both}
RUNT=${2:-60}
T=templates/softmax
V=$OUT/variants
mkdir -p "$V"
export KEVO_CACHE_DIR=${KEVO_CACHE_DIR:-/tmp/kc}
SEED=2311

# variant NAME TEMPLATE K=V...: copy with other defaults; prints the path
variant() {
    local name=$1 src=$2 out=$V/$1.cu
    shift 2
    cp "$src" "$out"
    for kv in "$@"; do
        sed -i "s|^\(// kevo: param ${kv%%=*} .*\)default=[0-9]*|\1default=${kv#*=}|" "$out"
        grep -q "^// kevo: param ${kv%%=*} .*default=${kv#*=}\$" "$out" ||
            echo "variant $name: no value ${kv} in $src" >&2
    done
    echo "$out"
}

# ev DTYPE SHAPE FILE...: one kevo process per shape
ev() {
    local dt=$1 sh=$2
    shift 2
    echo "== $dt $sh"
    local s=$(date +%s)
    timeout 60 "$B" eval "$@" --problem softmax --dtype "$dt" --shape "$sh" \
        --seed $SEED 2>&1
    echo "   (exit $?, $(($(date +%s) - s)) s)"
}

BLK=$T/softmax_block.cu
CLU=$T/softmax_cluster.cu
ONL=$T/softmax_online.cu
SPL=$T/softmax_split.cu
BULK=$T/softmax_bulk.cu
UNIT=$T/softmax_unit.cu

if [ "$PHASE" = eval ] || [ "$PHASE" = both ]; then
    # odd COLS, 100 KB bf16 rows
    ev bf16 4096x50001 "$BULK" \
        "$(variant bulk_c1_t1024_n4 $BULK CL=1 NBUF=1 THREADS=1024 NCH=4)" \
        "$(variant bulk_c2_nb2 $BULK CL=2 NBUF=2 THREADS=512 NCH=2)" \
        "$(variant bulk_c2_bps2 $BULK CL=2 NBUF=1 THREADS=512 BPS=2 NCH=2)" \
        "$(variant bulk_c4_bps2 $BULK CL=4 NBUF=2 THREADS=256 BPS=2 NCH=2)" \
        "$(variant unit_c1_t1024 $UNIT CL=1 THREADS=1024 REG=4 SMK=48 MINB=1 UNROLL=1)" \
        "$(variant unit_c2_t512 $UNIT CL=2 THREADS=512 REG=4 SMK=32 MINB=2 UNROLL=1)" \
        "$(variant unit_c4_t256 $UNIT CL=4 THREADS=256 REG=4 SMK=16 MINB=4 UNROLL=1)" \
        "$CLU" "$(variant cluster_cl2 $CLU CL=2 THREADS=512 VEC=4 REG=8 MINB=1)" \
        "$BLK" "$ONL"
    ev fp16 4096x50001 \
        "$(variant bulk_c2_nb2 $BULK CL=2 NBUF=2 THREADS=512 NCH=2)" \
        "$(variant unit_c2_t512 $UNIT CL=2 THREADS=512 REG=4 SMK=32 MINB=2 UNROLL=1)" \
        "$CLU" "$BLK"
    # odd COLS, 16 KB fp32 rows
    ev fp32 8192x4097 \
        "$(variant bulk_nb4_bps2 $BULK NBUF=4 THREADS=256 BPS=2)" \
        "$(variant bulk_nb8 $BULK NBUF=8 THREADS=512)" \
        "$(variant bulk_nb3_bps4 $BULK NBUF=3 THREADS=256 BPS=4)" \
        "$(variant unit_t256_r6 $UNIT THREADS=256 REG=6 MINB=2 UNROLL=1)" \
        "$(variant unit_t512_r2 $UNIT THREADS=512 REG=2 SMK=16 MINB=2)" \
        "$(variant unit_t128_r12 $UNIT THREADS=128 REG=12 MINB=4 UNROLL=1)" \
        "$BLK" "$(variant cluster_cl1 $CLU CL=1 THREADS=512 VEC=4 REG=4 MINB=2)" \
        "$ONL"
    # long rows: 1 MB and 1.6 MB fp32
    ev fp32 1024x262144 \
        "$(variant bulk_c8_n4 $BULK CL=8 NBUF=1 THREADS=512 NCH=4)" \
        "$(variant bulk_c8_t1024_n8 $BULK CL=8 NBUF=1 THREADS=1024 NCH=8)" \
        "$(variant bulk_c8_n1 $BULK CL=8 NBUF=1 THREADS=512 NCH=1)" \
        "$(variant unit_c8_t1024 $UNIT CL=8 THREADS=1024 REG=4 SMK=96 MINB=1 UNROLL=1)" \
        "$(variant unit_c8_t512 $UNIT CL=8 THREADS=512 REG=8 SMK=96 MINB=1)" \
        "$(variant cluster_cl8 $CLU CL=8 THREADS=256 VEC=4 REG=8 MINB=2)" \
        "$SPL"
    ev fp32 256x400000 \
        "$(variant bulk_c8_t1024_n4 $BULK CL=8 NBUF=1 THREADS=1024 NCH=4)" \
        "$(variant bulk_c8_t512_n8 $BULK CL=8 NBUF=1 THREADS=512 NCH=8)" \
        "$(variant unit_c8_t1024_s160 $UNIT CL=8 THREADS=1024 REG=4 SMK=160 MINB=1 UNROLL=1)" \
        "$(variant cluster_cl8_t1024 $CLU CL=8 THREADS=1024 VEC=4 REG=8 MINB=1)" \
        "$SPL"
    # 128 KB bf16 rows (aligned)
    ev bf16 4096x65536 \
        "$(variant bulk_c2_n2 $BULK CL=2 NBUF=1 THREADS=512 NCH=2)" \
        "$(variant bulk_c4_bps2_n2 $BULK CL=4 NBUF=1 THREADS=512 BPS=2 NCH=2)" \
        "$(variant bulk_c2_t1024_n4 $BULK CL=2 NBUF=1 THREADS=1024 NCH=4)" \
        "$(variant unit_c2_t1024 $UNIT CL=2 THREADS=1024 REG=4 MINB=1 UNROLL=1)" \
        "$(variant unit_c4_t512 $UNIT CL=4 THREADS=512 REG=4 MINB=2 UNROLL=1)" \
        "$CLU"
    # awkward shapes: correctness of edges, clusters with empty ranks
    ev fp32 7x100003 "$(variant bulk_c4 $BULK CL=4 NBUF=1 NCH=2)" \
        "$(variant unit_c4 $UNIT CL=4 THREADS=256 REG=4 SMK=32 MINB=2)"
    ev bf16 999x5 "$BULK" "$UNIT" "$(variant bulk_c8s $BULK CL=8)" \
        "$(variant unit_c8s $UNIT CL=8)"
    ev fp16 1000x1003 "$BULK" "$UNIT"
fi

if [ "$PHASE" = eval2 ]; then
    # second call: softmax_unit with ASYNC (cp.async for the shared part)
    # against ASYNC=0, the first run's best point, and bulk with DROP
    ev bf16 4096x50001 \
        "$(variant unit_run1_best $UNIT CL=1 THREADS=512 REG=12 SMK=16 UNROLL=1 LDH=1 STH=2 MINB=1 ASYNC=0)" \
        "$(variant unit_run1_best_async $UNIT CL=1 THREADS=512 REG=12 SMK=16 UNROLL=1 LDH=1 STH=2 MINB=1 ASYNC=1)" \
        "$(variant unit_c2_t512_async $UNIT CL=2 THREADS=512 REG=4 SMK=32 MINB=2 UNROLL=1 ASYNC=1)" \
        "$(variant unit_c2_t512_sync $UNIT CL=2 THREADS=512 REG=4 SMK=32 MINB=2 UNROLL=1 ASYNC=0)" \
        "$(variant unit_c1_t256_s96 $UNIT CL=1 THREADS=256 REG=4 SMK=96 MINB=2 UNROLL=1 ASYNC=1)" \
        "$(variant bulk_c1_t1024_n4_evf0 $BULK CL=1 NBUF=1 THREADS=1024 NCH=4 EVF=0)" \
        "$(variant bulk_c1_t512_n8 $BULK CL=1 NBUF=1 THREADS=512 NCH=8)" \
        "$(variant bulk_c1_t1024_n1_u4 $BULK CL=1 NBUF=1 THREADS=1024 NCH=1 UNROLL=4)"
    ev fp32 1024x262144 \
        "$(variant unit_c8_t256_r12_s96 $UNIT CL=8 THREADS=256 REG=12 SMK=96 MINB=2 ASYNC=1)" \
        "$(variant unit_c8_t256_r12_s96_sync $UNIT CL=8 THREADS=256 REG=12 SMK=96 MINB=2 ASYNC=0)" \
        "$(variant unit_c8_t512_r4_s96 $UNIT CL=8 THREADS=512 REG=4 SMK=96 MINB=2 UNROLL=1 ASYNC=1)" \
        "$(variant unit_c8_t1024_r4_s96 $UNIT CL=8 THREADS=1024 REG=4 SMK=96 MINB=1 UNROLL=1 ASYNC=1)" \
        "$(variant unit_c8_t256_r6_s64 $UNIT CL=8 THREADS=256 REG=6 SMK=64 MINB=3 UNROLL=1 ASYNC=1)" \
        "$(variant bulk_c8_n4_drop2 $BULK CL=8 NBUF=1 THREADS=512 NCH=4 DROP=2)" \
        "$(variant bulk_c8_n4_drop8 $BULK CL=8 NBUF=1 THREADS=512 NCH=4 DROP=8)" \
        "$(variant cluster_cl8 $CLU CL=8 THREADS=256 VEC=4 REG=8 MINB=2)"
    ev fp32 256x400000 \
        "$(variant unit_c8_t256_r12_s160 $UNIT CL=8 THREADS=256 REG=12 SMK=160 MINB=1 ASYNC=1)" \
        "$(variant unit_c8_t512_r4_s160 $UNIT CL=8 THREADS=512 REG=4 SMK=160 MINB=1 UNROLL=1 ASYNC=1)" \
        "$(variant unit_c8_t1024_s160_async $UNIT CL=8 THREADS=1024 REG=4 SMK=160 MINB=1 UNROLL=1 ASYNC=1)" \
        "$(variant cluster_cl8_t1024 $CLU CL=8 THREADS=1024 VEC=4 REG=8 MINB=1)"
    ev bf16 4096x65536 \
        "$(variant unit_c4_t512_async $UNIT CL=4 THREADS=512 REG=4 MINB=2 UNROLL=1 ASYNC=1)" \
        "$(variant unit_c2_t256_r4_s48 $UNIT CL=2 THREADS=256 REG=4 SMK=48 MINB=3 UNROLL=1 ASYNC=1)" \
        "$(variant unit_c1_t512_r4_s64 $UNIT CL=1 THREADS=512 REG=4 SMK=64 MINB=2 UNROLL=1 ASYNC=1)" \
        "$CLU"
    ev fp32 8192x4097 \
        "$(variant unit_t128_r12 $UNIT THREADS=128 REG=12 MINB=4 UNROLL=1)" \
        "$(variant unit_t256_r2_s16 $UNIT THREADS=256 REG=2 SMK=16 MINB=4 UNROLL=1 ASYNC=1)" \
        "$(variant bulk_nb3_bps4_evf0 $BULK NBUF=3 THREADS=256 BPS=4 EVF=0)" \
        "$(variant bulk_nb2_bps4_t128 $BULK NBUF=2 THREADS=128 BPS=4)"
    ev fp32 7x100003 "$(variant unit_c4_async $UNIT CL=4 THREADS=256 REG=4 SMK=32 MINB=2 ASYNC=1)"
    ev fp16 1000x1003 "$(variant unit_s16_async $UNIT THREADS=128 REG=1 SMK=16 MINB=2 ASYNC=1)"
fi

if [ "$PHASE" = run ] || [ "$PHASE" = both ]; then
    # templates/softmax only, so an in-progress template elsewhere cannot
    # stop the run
    TD=$OUT/tpl
    mkdir -p "$TD" && cp -r templates/softmax "$TD/"
    for c in ${RUN_CASES:-bf16:4096x50001 fp32:256x400000 fp32:8192x4097}; do
        set -- ${c%%:*} ${c#*:}
        # keep within the device call's limit (RUN_DEADLINE: epoch seconds)
        [ $(($(date +%s) + RUNT + 40)) -lt "${RUN_DEADLINE:-9999999999}" ] ||
            { echo "== (no time left for kevo run $1 $2)"; break; }
        n=run-$1-$2
        echo "== kevo run $1 $2 (${RUNT}s)"
        timeout $((RUNT + 40)) "$B" run --problem softmax --dtype "$1" \
            --shape "$2" --time ${RUNT}s --generations 0 --llm off \
            --templates-dir "$TD" --runs-dir /tmp/r --name "$n" --quiet
        echo "   (exit $?)"
        "$B" status /tmp/r/$n 2>&1 | head -40
    done
fi
