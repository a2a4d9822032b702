#!/bin/sh
# tests/gpu/torch_timing.sh - torch baselines in kevo's own timer (issue
# 30, "Baselines in the same worker and timer"), on the GPU: `kevo bench
# --torch-problem` runs the checks before candidates and times torch eager
# and torch.compile like a candidate (L2 flush kernel, CUPTI records of the
# kernels one call launched, median); the CUDA-event "wall" time, launch
# overhead included, is at least that; a compile that fails or exceeds
# KEVO_TORCH_COMPILE_LIMIT_S is reported and skipped; the calibrated
# tolerance is printed with torch's share of it; a given tolerance torch
# itself fails is refused; a kernel pairs against torch eager launch by
# launch (`kevo eval --pairs`); a module that launches no kernel (a view)
# is timed by events and says so. KEVO = the kevo binary; python3 with torch
# (or KEVO_PYTHON). Logs to $OUT or a temporary directory; exits 1 if an
# expectation fails.
set -u
KEVO=${KEVO:?set KEVO to the kevo binary}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOG=${OUT:-$(mktemp -d /tmp/kevo-gpu-torch-timing.XXXXXX)}
mkdir -p "$LOG"
TABLE="$LOG/torch-timing-summary.txt"
ROW_W=60
. "$(dirname "$0")/lib.inc"
PY=${KEVO_PYTHON:-python3}
if ! "$PY" -c 'import torch' 2>/dev/null; then
    echo "SKIP torch_timing.sh: '$PY' cannot import torch (pip install torch)"
    exit 0
fi
G="$ROOT/examples/torch/gelu/gelu.py"
S="$ROOT/examples/torch/sum_dim/sum_dim.py"
bench() { # log, args...: exit code into $rc, output into the log
    l=$1; shift
    "$KEVO" bench "$@" >"$LOG/$l.log" 2>&1
    rc=$?
    sed 's/^/    /' "$LOG/$l.log"
}
has() { grep -qF -- "$2" "$LOG/$1.log" && echo yes || echo no; }
num() { # log, baseline name, field (1: CUPTI us, 2: wall us)
    sed -n "s/^baseline $2: \([0-9.]*\) us = .*, wall \([0-9.]*\) us$/\\$3/p" \
        "$LOG/$1.log"
}

echo "== bench --torch-problem gelu (default compile mode)"
bench gelu --torch-problem "$G"
row "bench gelu exits 0" 0 "$rc"
row "the checks before candidates passed" yes "$(has gelu 'checks: passed (inputs, fp64 reference twice: bitwise equal and finite)')"
row "the calibrated tolerance names torch's share" yes "$(has gelu "(calibrated: torch's own fp32 result uses")"
ce=$(num gelu eager 1); we=$(num gelu eager 2)
row "eager has a CUPTI time and a wall time" yes "$([ -n "$ce" ] && [ -n "$we" ] && echo yes || echo no)"
row "eager: CUPTI time <= wall time (no launch overhead)" yes \
    "$(awk -v c="${ce:-0}" -v w="${we:-0}" 'BEGIN { print (c > 0 && c <= w) ? "yes" : "no" }')"
if grep -q '^baseline compile:' "$LOG/gelu.log"; then
    cc=$(num gelu compile 1); wc=$(num gelu compile 2)
    row "compile: CUPTI time <= wall time" yes \
        "$(awk -v c="${cc:-0}" -v w="${wc:-0}" 'BEGIN { print (c > 0 && c <= w) ? "yes" : "no" }')"
else
    row "compile timed or its skip reported" yes "$(has gelu 'note: torch.compile')"
fi

echo "== a compile that fails is reported and skipped"
KEVO_TORCH_COMPILE=no-such-mode bench badmode --torch-problem "$G"
row "bench with a failing compile exits 0" 0 "$rc"
row "the failure is reported" yes "$(has badmode "note: torch.compile(mode='no-such-mode') failed")"
row "no compile baseline" no "$(has badmode 'baseline compile:')"
row "eager still timed" yes "$(has badmode 'baseline eager:')"

echo "== a compile over KEVO_TORCH_COMPILE_LIMIT_S is reported and skipped"
KEVO_TORCH_COMPILE=default KEVO_TORCH_COMPILE_LIMIT_S=0 bench limit --torch-problem "$G"
row "bench with a compile over the limit exits 0" 0 "$rc"
row "the limit is reported" yes "$(has limit 'over KEVO_TORCH_COMPILE_LIMIT_S=0: compile baseline skipped')"
row "no compile baseline over the limit" no "$(has limit 'baseline compile:')"

echo "== a given tolerance: checked against torch, recorded as given"
KEVO_TORCH_ATOL=1e-2 KEVO_TORCH_RTOL=1e-3 KEVO_TORCH_COMPILE=off bench given --torch-problem "$S"
row "bench with a loose given tolerance exits 0" 0 "$rc"
row "it is shown as given, with torch's share" yes "$(has given "atol 0.01 rtol 0.001 (given by the user; torch's own fp32 result uses")"
KEVO_TORCH_ATOL=0 KEVO_TORCH_RTOL=0 KEVO_TORCH_COMPILE=off bench exact --torch-problem "$S"
row "a given tolerance torch's own fp32 sum fails: exit 1" 1 "$rc"
row "... saying so" yes "$(has exact "torch's own fp32 result fails the tolerance KEVO_TORCH_ATOL=0 KEVO_TORCH_RTOL=0")"

echo "== a module that launches no kernel (a view) is timed by events, said so"
cat >"$LOG/viewmod.py" <<'PYEOF'
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.view(-1)


rows = 1024
cols = 512


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
PYEOF
KEVO_TORCH_COMPILE=off bench view --torch-problem "$LOG/viewmod.py"
row "bench of a view module exits 0" 0 "$rc"
row "it says eager launched no kernel" yes "$(has view 'eager launched no kernel: its time is the CUDA-event one')"

echo "== a kernel against torch eager, launch by launch"
"$KEVO" eval "$ROOT/examples/torch/gelu/tests/ok_elem.cu" --torch-problem "$G" \
    --pairs 9 --seed 7 >"$LOG/pairs.log" 2>&1
rc=$?
sed 's/^/    /' "$LOG/pairs.log"
row "eval --pairs of an ok gelu kernel exits 0" 0 "$rc"
row "it is paired with torch eager" yes "$(has pairs 'vs baseline, launch by launch:')"

echo "torch_timing: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
