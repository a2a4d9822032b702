#!/bin/sh
# How build/sus13 and build/sus13o (carried to the device by call 11) were
# made on the CPU host at bc11599, as session 8's c6/build.sh: a run whose
# only point is hgemm_wgmma's default (test evaluator), exported as a C
# launcher + cubin, with scripts/gemm-sustain.c built against it.
# sus13o is the former default (build/c3v/od.cu: LEAN MCK EPW KREV 0,
# L2P 256), its template copy renamed hgemm_wgmma_v0 and given "// salt"
# comment lines until the test evaluator's synthetic outcome for its one
# point was ok (the outcome is a function of the genome hash).
set -eu
CUDA=${CUDA:-/usr/local/cuda}
mk() { # SRC OUT NAME
    rm -rf "$2" /tmp/sus-tpl /tmp/sus-runs; mkdir -p "$2" /tmp/sus-tpl/gemm
    sed -E 's/^(\/\/ kevo: param [A-Z0-9_]+) .*default=([0-9]+)$/\1 \2 default=\2/' \
        "$1" > /tmp/sus-tpl/gemm/$3.cu
    for i in 1 2 3 4 5 6 7; do
        rm -rf /tmp/sus-runs
        build/lead/tests/kevo_test run --evaluator test --problem gemm --dtype bf16 \
            --shape 4096x4096x4096 --seed 1 --generations 1 --templates-dir /tmp/sus-tpl \
            --runs-dir /tmp/sus-runs --name w --quiet
        build/lead/kevo export /tmp/sus-runs/w --format c --out "$2/exp" && break
        echo "// salt $i" >> /tmp/sus-tpl/gemm/$3.cu
    done
    cc -O2 -std=gnu11 -I$CUDA/include -I"$2/exp" scripts/gemm-sustain.c "$2/exp/kevo_gemm.c" \
        -L$CUDA/lib64/stubs -L$CUDA/lib64 -lcuda -lcublas -ldl -lpthread -lm -o "$2/gemm-sustain"
}
mk templates/gemm/hgemm_wgmma.cu build/sus13 hgemm_wgmma
mk build/c3v/od.cu build/sus13o hgemm_wgmma_v0
