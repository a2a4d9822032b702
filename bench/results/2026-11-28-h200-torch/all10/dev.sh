#!/bin/sh
# device call 3: grade every module (compile baseline off for speed), then
# two short runs with both baselines and their status
cd "$(dirname "$0")"
K=$PWD/bundle/kevo
mkdir -p "$OUT/gpu" "$OUT/runs"
KEVO_TORCH_COMPILE=off OUT=$OUT/gpu KEVO=$K timeout 250 sh tests/gpu/torchprob.sh > "$OUT/torchprob.txt" 2>&1
echo "grading rc=$?"
grep -E "^(PASS|FAIL)|torchprob:|files in" "$OUT/torchprob.txt"
for m in cumsum gelu; do
    KEVO_TORCH_COMPILE=default timeout 75 "$K" run --torch-problem examples/torch/$m/$m.py \
        --time 30s --generations 4 --runs-dir "$OUT/runs" --name $m --quiet > "$OUT/run-$m.txt" 2>&1
    echo "run $m rc=$?"; tail -3 "$OUT/run-$m.txt"
    "$K" status "$OUT/runs/$m" 2>&1 | tee "$OUT/status-$m.txt"
done
