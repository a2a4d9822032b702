#!/bin/bash
# Session 14, device call 2 (H200): the parts of the GPU suite call 1 did
# not reach: the judge's GPU tests (tests/gpu/judge.sh: compiled-code
# policy, host includes, the sanitizer pass) and the torch custom-op
# export (tests/gpu/export_torch.sh). Bundle at build/bundle; results in
# $OUT.
set -u
K=$PWD/build/bundle/kevo
mkdir -p "$OUT/judge" "$OUT/torch"
{ date -u +%FT%TZ; cat .dev/COMMIT; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader; python3 -c 'import torch; print("torch", torch.__version__)'; } | tee "$OUT/info.txt"
export KEVO_CACHE_DIR=/tmp/kc
echo "=== tests/gpu/judge.sh"
OUT=$OUT/judge KEVO=$K timeout 150 sh tests/gpu/judge.sh > "$OUT/judge/judge.log" 2>&1; echo "judge rc $?" | tee -a "$OUT/judge/judge.log"
grep -E "PASS|FAIL|passed|failed" "$OUT/judge/judge.log" | head -40
echo "=== tests/gpu/export_torch.sh"
OUT=$OUT/torch KEVO=$K timeout 100 tests/gpu/export_torch.sh > "$OUT/torch/export_torch.log" 2>&1; echo "export_torch rc $?" | tee -a "$OUT/torch/export_torch.log"
grep -E "PASS|FAIL|skip|Error|error|torch " "$OUT/torch/export_torch.log" | head -60
cd "$OUT" && tar czf /tmp/logs.tgz judge torch 2>/dev/null; rm -rf judge/*/ torch/runs torch/export-* torch/no-templates; mv /tmp/logs.tgz "$OUT/logs.tgz"
