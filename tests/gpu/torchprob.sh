#!/bin/sh
# tests/gpu/torchprob.sh - PyTorch problems on the GPU (part of `make
# gpu-test`; KEVO = the kevo binary; needs python3 with torch, or
# KEVO_PYTHON). For every examples/torch/<m>/<m>.py with a tests/shapes
# file ("DTYPE SHAPE" lines): every tests/*.cu must get the verdict of its
# first line ("// expect: ok|wrong|cheat"; "cheat" also takes wrong;
# "wrong (in OUT)" also needs the message to name output OUT) from
# `kevo eval --torch-problem`, and the templates next to the file must be
# ok; and every bad module in tests/gpu/torchprob/ must be refused with the
# error its first line names, before any candidate. Logs to $OUT (if set) or a temporary directory; exits 1 if an
# expectation fails. Skips (and says so) when torch is not importable.
# TORCHPROB_ONLY=bad runs only the bad modules.
set -u
KEVO=${KEVO:?set KEVO to the kevo binary}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOG=${OUT:-$(mktemp -d /tmp/kevo-gpu-torch.XXXXXX)}
mkdir -p "$LOG"
SEED=${SEED:-12345}
TABLE="$LOG/torchprob-summary.txt"
ROW_W=52
. "$(dirname "$0")/lib.inc"
PY=${KEVO_PYTHON:-python3}
if ! "$PY" -c 'import torch' 2>/dev/null; then
    echo "SKIP torchprob.sh: '$PY' cannot import torch (pip install torch)"
    exit 0
fi
export KEVO_TORCH_COMPILE=${KEVO_TORCH_COMPILE:-default}

for pf in "$ROOT"/examples/torch/*/*.py; do
    [ "${TORCHPROB_ONLY:-all}" = bad ] && break
    dir=$(dirname "$pf")
    m=$(basename "$pf" .py)
    [ -f "$dir/tests/shapes" ] || { echo "$m: no tests/shapes, skipped"; continue; }
    while read -r dt shape; do
        [ -n "$dt" ] || continue
        files=$(ls "$dir"/*.cu "$dir"/tests/*.cu 2>/dev/null)
        log="$LOG/$m-$dt-$shape.log"
        start=$(date +%s.%N)
        # shellcheck disable=SC2086
        "$KEVO" eval $files --torch-problem "$pf" --dtype "$dt" \
            --shape "$shape" --seed "$SEED" >"$log" 2>&1
        end=$(date +%s.%N)
        echo "$m $dt $shape: $(echo "$files" | wc -w) files in" \
            "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s" \
            >>"$LOG/times.txt"
        for f in $files; do
            want=$(sed -n '1s|^// *expect: *\([a-z_]*\).*|\1|p' "$f")
            [ -n "$want" ] || want=ok
            got=$(verdict_of "$f" "$log")
            [ "$want" = cheat ] && [ "$got" = wrong ] && got=cheat
            # "// expect: wrong (in OUT)": the verdict names output OUT
            # (each output is judged by its own tolerance)
            in=$(sed -n '1s|^// *expect: *wrong (in \([A-Za-z0-9_]*\)).*|\1|p' "$f")
            if [ -n "$in" ] && [ "$got" = wrong ]; then
                grep -F "$f: wrong" "$log" | grep -qF " of $in: got" ||
                    got="wrong-not-in-$in"
            fi
            row "$m/$(basename "$f") $dt $shape" "$want" "${got:-none}"
        done
        sed 's/^/    /' "$log"
    done <"$dir/tests/shapes"
done
# Bad modules (tests/gpu/torchprob/*.py: a CPU-only op, more memory than
# the GPU has, a random op or atomics in forward, a NaN output): each must
# stop `kevo eval` with the error its first line names ("# expect: TEXT",
# the file and, where Python gives one, the line), a non-zero exit, and no
# verdict for null.cu (refused before any candidate runs).
for pf in "$ROOT"/tests/gpu/torchprob/*.py; do
    m=$(basename "$pf" .py)
    want=$(sed -n '1s|^# *expect: *||p' "$pf")
    d="$LOG/bad-$m"
    mkdir -p "$d"
    cp "$pf" "$d/"
    sed "s|PROBLEM|$m|" "$ROOT/tests/gpu/torchprob/null.cu" >"$d/null.cu"
    "$KEVO" eval "$d/null.cu" --torch-problem "$d/$m.py" --seed "$SEED" \
        >"$d/log" 2>&1
    rc=$?
    got=refused
    [ $rc -ne 0 ] || got="exit-0"
    grep -qF -- "$want" "$d/log" || got="$got,no-message"
    v=$(verdict_of "$d/null.cu" "$d/log")
    [ -z "$v" ] || got="$got,graded-$v"
    row "bad/$m.py" refused "$got"
    sed 's/^/    /' "$d/log"
done
cat "$LOG/times.txt" 2>/dev/null
echo "torchprob: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
