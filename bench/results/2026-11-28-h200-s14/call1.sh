#!/bin/bash
# Session 14, device call 1 (H200): the GPU suite (make gpu-test's two
# parts: tests/gpu/run.sh, which now includes judge.sh, and
# export_torch.sh with the new torch custom-op export) and the A/B of the
# rewritten hgemm templates against 1281cf3 (scripts/ab-templates-s14.sh,
# with the old template files extracted beforehand into .dev/old because
# the device copy has no git history). Run from the repository root with
# the bundle at build/bundle; everything lands in $OUT.
set -u
K=$PWD/build/bundle/kevo
mkdir -p "$OUT/gpu" "$OUT/torch"
{ date -u +%FT%TZ; cat .dev/COMMIT; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader; } | tee "$OUT/info.txt"
export KEVO_CACHE_DIR=/tmp/kc
echo "=== gpu-test: tests/gpu/run.sh"
OUT=$OUT/gpu KEVO=$K timeout 260 tests/gpu/run.sh > "$OUT/gpu/run.log" 2>&1; echo "run.sh rc $?" | tee -a "$OUT/gpu/run.log"
tail -60 "$OUT/gpu/run.log" | grep -v "^ok  "
echo "=== gpu-test: tests/gpu/export_torch.sh"
OUT=$OUT/torch KEVO=$K timeout 150 tests/gpu/export_torch.sh > "$OUT/torch/export_torch.log" 2>&1; echo "export_torch rc $?" | tee -a "$OUT/torch/export_torch.log"
grep -E "PASS|FAIL|skip|Error|error" "$OUT/torch/export_torch.log" | head -60
echo "=== template A/B"
mkdir -p "$OUT/ab-s14/old" && cp .dev/old/*.cu "$OUT/ab-s14/old/"
sed -i 's|git -C "$ROOT" show "$OLD:templates/gemm/$t.cu" >"$L/old/$t.cu"|test -s "$L/old/$t.cu"|' scripts/ab-templates-s14.sh
PAIRS=10 KEVO=$K OUT=$OUT timeout 200 bash scripts/ab-templates-s14.sh > "$OUT/ab.out" 2>&1; echo "ab rc $?"
cat "$OUT/ab-s14/summary.txt"
cd "$OUT" && tar czf /tmp/logs.tgz gpu torch ab-s14 && rm -rf gpu/*/ torch/runs torch/export-* && mv /tmp/logs.tgz "$OUT/logs.tgz"; ls -la "$OUT"
