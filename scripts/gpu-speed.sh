#!/bin/bash
# gpu-speed.sh - issue 32's throughput measurement on the GPU machine:
# evaluations/min, GPU worker idle %, best fitness and replay identity of a
# fixed-seed `kevo run --time $T` (fresh compile cache per run), the code
# at HEAD against a baseline binary, interleaved case by case so both see
# the same machine state. Cases: fp32 GEMM 4096^3, softmax fp32 4096^2,
# bf16 GEMM 8192^3. 6 runs of 35 s plus start-up and replays: ~5 minutes.
# When HEAD knows --pipeline (issue 32), a third column "head-p1" runs
# HEAD with --pipeline 1 (off by default), so the table tells the
# pipeline's effect from the rest of HEAD's: 9 runs, ~8 minutes.
#
# usage: OUT=DIR KEVO_BASE=/path/to/base/kevo scripts/gpu-speed.sh [--gpus 0,1]
#   KEVO       the kevo under test (default build/bundle/kevo, else build/kevo)
#   KEVO_BASE  the baseline kevo (e.g. the 1281cf3 bundle); unset: HEAD only
#   T          the time budget of each run (default 35s); SEED (default 11)
#   --gpus L   every run uses these GPUs (the 2-GPU variant: --gpus 0,1)
#   PIPE1      1 (default when HEAD has --pipeline): the head-p1 column; 0: not
#   CASES      ';'-separated "problem dtype shape" cases (default the three)
#   VARIANTS   ';'-separated "label:run flags" columns of HEAD (default
#              "head:" and, with PIPE1, "head-p1:--pipeline 1"), e.g.
#              "head:;head-f0:--fill 0" (the fill, issue 32, off)
# Writes $OUT/speed/summary.md (the one table), per run the status, the
# replay line and the gzipped journal; prints the table at the end.
# Idle % is computed here from the journal (the same arithmetic as kevo
# status's gpu line, src/run/busy.c), so the baseline binary needs no
# support for it: 100 x (1 - sum(check + timing ms) / (last t x GPUs)).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
K=${KEVO:-$ROOT/build/bundle/kevo}; [ -x "$K" ] || K=$ROOT/build/kevo
B=${KEVO_BASE:-}
T=${T:-35s}; SEED=${SEED:-11}
GPUS=; [ "${1:-}" = --gpus ] && GPUS=$2
O=${OUT:?set OUT}/speed; mkdir -p "$O"; S=$O/summary.md
D=$(mktemp -d /tmp/kevo-speed.XXXXXX)
GARG=; [ -n "$GPUS" ] && GARG="--gpus $GPUS"
P1=${PIPE1:-}
[ -z "$P1" ] && { "$K" run --help 2>&1 | grep -q -- '--pipeline' && P1=1 || P1=0; }
CASES=${CASES:-gemm fp32 4096x4096x4096;softmax fp32 4096x4096;gemm bf16 8192x8192x8192}
{
  echo "# gpu-speed $(date -u +%FT%TZ): seed $SEED, --time $T, ${GPUS:+--gpus $GPUS, }fresh cache per run"
  echo; echo "HEAD: $K ($(cat "$(dirname "$K")/COMMIT" 2>/dev/null || "$K" --version 2>/dev/null | head -1))"
  [ -n "$B" ] && echo "base: $B ($(cat "$(dirname "$B")/COMMIT" 2>/dev/null || "$B" --version 2>/dev/null | head -1))"
  echo; echo '```'; nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader 2>&1; echo "CPUs: $(nproc)"; echo '```'; echo
  echo "| case | kevo | evaluations | evals/min | GPU idle % | compile ms/cand | GPU ms/cand | best fitness | replay |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
} > "$S"

# journal -> "evals evals_per_min idle_pct compile_ms gpu_ms"
phases() {
  awk '/"type":"eval"/ {
      n++
      if (match($0, /"compile":[-0-9.e+]+/)) c += substr($0, RSTART + 10, RLENGTH - 10)
      if (match($0, /"check":[-0-9.e+]+/))   g += substr($0, RSTART + 8, RLENGTH - 8)
      if (match($0, /"time":[-0-9.e+]+/))    g += substr($0, RSTART + 7, RLENGTH - 7)
      if (match($0, /"gpu":[0-9]+/))         seen[substr($0, RSTART + 6, RLENGTH - 6)] = 1
    }
    /"t":[0-9]/ { if (match($0, /"t":[-0-9.e+]+/)) t = substr($0, RSTART + 4, RLENGTH - 4) }
    END {
      k = 0; for (x in seen) k++; if (k == 0) k = 1
      if (!n || t <= 0) { print n + 0, 0, "-", "-", "-"; exit }
      idle = 100 * (1 - g / (t * 1000 * k)); if (idle < 0) idle = 0
      printf "%d %.0f %.1f %.0f %.1f\n", n, n * 60 / t, idle, c / n, g / n
    }' "$1"
}
best_fit() { # best.json's fitness, in the unit's engineering form
  awk 'match($0, /"fitness":[ \t]*[-0-9.e+]+/) { v = substr($0, RSTART, RLENGTH); sub(/.*:[ \t]*/, "", v); f = v }
       match($0, /"unit":[ \t]*"[^"]*"/) { u = substr($0, RSTART, RLENGTH); sub(/.*:[ \t]*"/, "", u); sub(/"$/, "", u) }
       END { if (f == "") print "-"; else printf "%.4g T%s\n", f / 1e12, u }' "$1" 2>/dev/null || echo -
}
one() { # one run: label binary problem dtype shape [extra run flags]
  local lab=$1 bin=$2 p=$3 dt=$4 sh=$5 name=$3-$4-$5-$1
  local extra="${6:-}" td; td=$(dirname "$bin")/templates
  # each binary with the templates it was built with (a baseline bundle's)
  [ -d "$td" ] && extra="$extra --templates-dir $td"
  KEVO_CACHE_DIR=$D/cache-$name timeout 300 "$bin" run --problem "$p" --dtype "$dt" --shape "$sh" \
      --seed "$SEED" --time "$T" $GARG $extra --runs-dir "$D" --name "$name" --quiet > "$O/$name.log" 2>&1
  echo "run exit $?" >> "$O/$name.log"
  "$bin" status "$D/$name" > "$O/$name.status" 2>&1
  local rep; rep=$(timeout 120 "$bin" replay "$D/$name" 2>&1 | head -1)
  echo "$rep" > "$O/$name.replay"
  gzip -c "$D/$name/journal.jsonl" > "$O/$name.journal.jsonl.gz" 2>/dev/null
  cp "$D/$name/manifest.json" "$O/$name.manifest.json" 2>/dev/null
  set -- $(phases "$D/$name/journal.jsonl" 2>/dev/null || echo "0 0 - - -")
  echo "| $p $dt $sh | $lab | $1 | $2 | $3 | $4 | $5 | $(best_fit "$D/$name/best.json") | ${rep%% (*} |" >> "$S"
  rm -rf "$D/cache-$name"
}
IFS=';' read -r -a LIST <<< "$CASES"
V=${VARIANTS:-head:}; [ -z "${VARIANTS:-}" ] && [ "$P1" = 1 ] && V="$V;head-p1:--pipeline 1"
IFS=';' read -r -a VLIST <<< "$V"
for c in "${LIST[@]}"; do
  set -- $c
  for v in "${VLIST[@]}"; do one "${v%%:*}" "$K" "$@" "${v#*:}"; done
  [ -n "$B" ] && one base "$B" "$@"
done
grep -h '^gpu:' "$O"/*-head.status >> "$O/head-gpu-lines.txt" 2>/dev/null
cat "$S"
rm -rf "$D"
