#!/bin/bash
# Session 14, device call 4 (H200), with the last device minutes: the
# softmax templates after issue 32's facts that leave out unreachable code
# (STREAM, VCOLS), every family at its default and tuned points on large
# and awkward shapes (tests/gpu/softmax_families.sh), then the profiler's
# GPU test (tests/gpu/profile.sh, issue 31). Bundle at build/bundle.
set -u
K=$PWD/build/bundle/kevo
export KEVO_CACHE_DIR=/tmp/kc
{ date -u +%FT%TZ; cat .dev/COMMIT; nvidia-smi --query-gpu=name,uuid --format=csv,noheader; } | tee "$OUT/info.txt"
mkdir -p "$OUT/sm" "$OUT/prof"
OUT=$OUT/sm KEVO=$K timeout 120 sh tests/gpu/softmax_families.sh > "$OUT/sm/log" 2>&1; echo "softmax_families rc $?"
grep -E "non-ok|summary|^ *(softmax_|ok|wrong|cheat|crash)" "$OUT/sm/log" | tail -40
OUT=$OUT/prof KEVO=$K timeout 60 sh tests/gpu/profile.sh > "$OUT/prof/log" 2>&1; echo "profile.sh rc $?"
grep -E "PASS|FAIL|passed" "$OUT/prof/log" | tail -14
