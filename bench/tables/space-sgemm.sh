#!/bin/sh
# bench/tables/space-sgemm.sh OUTDIR - writes OUTDIR/gemm/sgemm_tiled.cu:
# the shipped sgemm_tiled with the smaller parameter space the
# sgemm-fp32-4096 table was recorded on (VEC=4, PAD=4, ASYNC=1, GROUP_M=8
# fixed, BM >= 64, WARP_N 2..16, MINB default 1; 4587 valid points), for
# `kevo run --templates-dir OUTDIR --template sgemm_tiled --strategy sweep`.
# The exact text the table was recorded with is in sgemm-fp32-4096.jsonl.
set -eu
out=${1:?usage: $0 OUTDIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out/gemm"
sed -e 's|^// kevo: param BM .*|// kevo: param BM 64 128 256 default=128|' \
    -e 's|^// kevo: param WARP_N .*|// kevo: param WARP_N 2 4 8 16 default=8|' \
    -e 's|^// kevo: param VEC .*|// kevo: param VEC 4 default=4|' \
    -e 's|^// kevo: param PAD .*|// kevo: param PAD 4 default=4|' \
    -e 's|^// kevo: param ASYNC .*|// kevo: param ASYNC 1 default=1|' \
    -e 's|^// kevo: param GROUP_M .*|// kevo: param GROUP_M 8 default=8|' \
    -e 's|^// kevo: param MINB .*|// kevo: param MINB 1 2 default=1|' \
    "$root/templates/gemm/sgemm_tiled.cu" >"$out/gemm/sgemm_tiled.cu"
