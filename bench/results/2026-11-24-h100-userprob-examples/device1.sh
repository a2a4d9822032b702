#!/bin/sh
# First H100 call for the four example user problems (issue 15): `kevo eval`
# of every template at its default point and of tests/ok_simple.cu at
# 8192x4096 fp32 and bf16, then `kevo bench` of the four bench/suite.json
# cases of the examples, 30 s per case (each case is one seeded `kevo run`
# whose copy baseline is measured in the same worker). Run from the
# repository root with the bundle in build/ex-bundle; logs in $OUT/l.tgz.
export KEVO_CACHE_DIR=/tmp/kc
B=$PWD/build/ex-bundle/kevo
E=examples/problems
L=$OUT/l
mkdir -p "$L"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >"$L/gpu.txt" 2>&1
git rev-parse HEAD >>"$L/gpu.txt" 2>&1
for p in layernorm rmsnorm bias_gelu colsum; do
    for dt in fp32 bf16; do
        timeout 40 "$B" eval $E/$p/*.cu $E/$p/tests/ok_simple.cu --problem-file $E/$p/$p.problem \
            --dtype $dt --shape 8192x4096 --seed 1 >"$L/eval-$p-$dt.log" 2>&1
        echo "rc=$?" >>"$L/eval-$p-$dt.log"
    done
done
timeout 170 "$B" bench --case layernorm --case rmsnorm --case bias_gelu --case colsum \
    --time 30s --runs-dir /tmp/rb --out "$L/bench" >"$L/bench.log" 2>&1
echo "bench rc=$?" >>"$L/bench.log"
for r in /tmp/rb/*/; do
    n=$(basename "$r")
    "$B" status "$r" >"$L/status-$n.txt" 2>&1
    cp "$r/best.json" "$L/best-$n.json" 2>/dev/null
done
tar czf "$OUT/l.tgz" -C "$OUT" l
