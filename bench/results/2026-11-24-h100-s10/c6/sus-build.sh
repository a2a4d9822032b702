#!/bin/sh
# How build/sus (carried to the device by call 6) was made on the CPU host
# at 988506d (the steps of bench/results/2026-11-24-h100-s8/c6/build.sh):
# a run whose only point is hgemm_wgmma's default (every param reduced to
# its default, test evaluator), exported as a C launcher + cubin (tensor
# maps and the int arg group_m), and scripts/gemm-sustain.c built with it.
set -eu
CUDA=${CUDA:-/usr/local/cuda}
T=build/sus; rm -rf $T /tmp/sus-tpl /tmp/sus-runs; mkdir -p $T /tmp/sus-tpl/gemm
sed -E 's/^(\/\/ kevo: param [A-Z0-9_]+) .*default=([0-9]+)$/\1 \2 default=\2/' \
    templates/gemm/hgemm_wgmma.cu > /tmp/sus-tpl/gemm/hgemm_wgmma.cu
build/lead/tests/kevo_test run --evaluator test --problem gemm --dtype bf16 \
    --shape 4096x4096x4096 --seed 1 --generations 1 --templates-dir /tmp/sus-tpl \
    --runs-dir /tmp/sus-runs --name w --quiet
build/lead/kevo export /tmp/sus-runs/w --format c --out $T/exp
cc -O2 -std=gnu11 -I$CUDA/include -I$T/exp scripts/gemm-sustain.c $T/exp/kevo_gemm.c \
    -L$CUDA/lib64/stubs -L$CUDA/lib64 -lcuda -lcublas -ldl -lpthread -lm -o $T/gemm-sustain
