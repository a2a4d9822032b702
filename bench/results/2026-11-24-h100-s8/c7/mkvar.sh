#!/bin/sh
# mkvar NAME K=V ... : a single-point copy of hgemm_wgmma with those defaults,
# exported and gemm-sustain built against it, in build/sus2/NAME
set -eu
CUDA=/usr/local/cuda
name=$1; shift
T=build/sus2/$name; rm -rf $T /tmp/sv-$name; mkdir -p $T /tmp/sv-$name/tpl/gemm
f=/tmp/sv-$name/tpl/gemm/hgemm_wgmma.cu
cp templates/gemm/hgemm_wgmma.cu $f
for p in "$@"; do k=${p%%=*}; v=${p#*=}
  grep -q "^// kevo: param $k " $f || { echo "no param $k"; exit 1; }
  sed -i -E "s/^(\/\/ kevo: param $k .*default=)[0-9]+/\1$v/" $f; done
sed -i -E 's/^(\/\/ kevo: param [A-Z0-9_]+) .*default=([0-9]+)$/\1 \2 default=\2/' $f
build/lead/tests/kevo_test run --evaluator test --problem gemm --dtype bf16 \
    --shape 4096x4096x4096 --seed 1 --generations 1 --templates-dir /tmp/sv-$name/tpl \
    --runs-dir /tmp/sv-$name/runs --name w --quiet
build/lead/kevo export /tmp/sv-$name/runs/w --format c --out $T/exp 2>/dev/null
cc -O2 -std=gnu11 -I$CUDA/include -I$T/exp scripts/gemm-sustain.c $T/exp/kevo_gemm.c \
    -L$CUDA/lib64/stubs -L$CUDA/lib64 -lcuda -lcublas -ldl -lpthread -lm -o $T/gemm-sustain
grep -o '"params":{[^}]*}' /tmp/sv-$name/runs/w/best.json 2>/dev/null || python3 -c "import json;print(json.load(open('/tmp/sv-$name/runs/w/best.json'))['params'])"
