#!/bin/sh
# gpu-example.sh - makes the small real run directory committed under
# examples/ (issue 6: CI runs report, leaderboard and replay on it), then
# verifies it in a fresh worker and reports it on the GPU machine.
# KEVO=... OUT=... sh scripts/gpu-example.sh
set -u
KEVO=${KEVO:?}
R=/tmp/kevo-example
rm -rf "$R"; mkdir -p "$R"
"$KEVO" run --problem gemm --dtype fp32 --shape 1024x768x512 --seed 5 \
    --generations 4 --islands 2 --population 6 --offspring 8 \
    --runs-dir "$R" --name h100-gemm-fp32-1024x768x512
D="$R/h100-gemm-fp32-1024x768x512"
"$KEVO" replay "$D"
"$KEVO" verify "$D" --top 3 --reps 5; echo "verify exit $?"
"$KEVO" report "$D" --quiet && ls "$D/report"
tar czf "$OUT/example.tar.gz" -C "$R" .
