#!/bin/sh
# torch-versions.sh PYTHON [EXPORT_DIR...] - checks `kevo export --format
# torch` (the custom op and KernelBench's ModelNew) against the torch that
# PYTHON imports: scripts/torch-versions.py per export folder (import,
# schema, fake implementation, make_fx, torch.export with and without
# dynamic sizes, torch.compile; with a CUDA device also the op's values,
# torch.library.opcheck and inductor). Without EXPORT_DIR it first makes
# ten runs with the deterministic test evaluator (no GPU needed) and
# exports their winners: gemm fp32 (sgemm_tiled), softmax fp16, a
# two-output user problem in bf16 (tests/data/export/pair) and the torch
# problems examples/torch/{cumsum,argmax,masked_fill,center4d,linear} and
# tests/data/export/{rep,scalar} (described with PYTHON's torch; N-D, int64 and
# bool tensors, 0-D ones, module parameters and buffers, a bf16 run, a
# FIXED size; ModelNew
# against Model under KernelBench's seeds). On torch
# < 2.4 it checks that the import fails with a clear ImportError.
#   KEVO       the kevo binary (default build/kevo)
#   KEVO_TEST  kevo with the test evaluator (default build/tests/kevo_test;
#              `make build/tests/kevo_test`)
#   OUT        where runs, exports and torch-versions.txt go (default a
#              new /tmp/kevo-torch-versions.XXXXXX)
# Prints PASS/FAIL/STOP/NOTE lines (STOP: how far a step got without a
# device, and why it stopped) and "torch-versions: PASS|FAIL"; exits 1
# on any FAIL.
set -u
PY=${1:?usage: scripts/torch-versions.sh PYTHON [EXPORT_DIR...]}
shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KEVO=${KEVO:-$ROOT/build/kevo}
KEVO_TEST=${KEVO_TEST:-$ROOT/build/tests/kevo_test}
WORK=${OUT:-$(mktemp -d /tmp/kevo-torch-versions.XXXXXX)}
mkdir -p "$WORK"
"$PY" -c 'import torch' 2>/dev/null ||
    { echo "FAIL: '$PY' cannot import torch"; exit 1; }
if [ $# = 0 ]; then
    for b in "$KEVO" "$KEVO_TEST"; do
        [ -x "$b" ] || { echo "FAIL: '$b' is not executable (make; make build/tests/kevo_test)"; exit 1; }
    done
    R="$WORK/runs"
    run() { # NAME ARGS...: a short run with the test evaluator, exported
        n=$1; shift
        rm -rf "$R/$n" "$WORK/export-$n"
        KEVO_PYTHON="$PY" "$KEVO_TEST" run --evaluator test --seed 3 --islands 1 \
            --population 4 --offspring 4 --runs-dir "$R" --name "$n" --quiet "$@" \
            2>"$WORK/$n.err" &&
            KEVO_PYTHON="$PY" "$KEVO" export "$R/$n" --format torch \
                --out "$WORK/export-$n" --quiet 2>>"$WORK/$n.err" ||
            { echo "FAIL: run or export of $n:"; cat "$WORK/$n.err"; exit 1; }
    }
    run gemm --problem gemm --shape 300x200x100 --template sgemm_tiled --generations 3
    run softmax --problem softmax --dtype fp16 --shape 512x1000 --generations 2
    run pair --problem-file "$ROOT/tests/data/export/pair/pair.problem" --dtype bf16 \
        --shape 256x384 --generations 1
    run cumsum --torch-problem "$ROOT/examples/torch/cumsum/cumsum.py" --shape 128x4000 \
        --generations 2
    # PyTorch problems of every kind the op takes: an int64 output
    # (argmax), a bool input (masked_fill), rank 4 with a parameter
    # (center4d), nn.Linear's weight and bias (linear); each module copied
    # with its ok_*.cu kernels as its templates
    # (masked_fill in bf16: ModelNew casts the module's fp32 inputs and
    # state to bf16 for the op and its output back); tests/data/export/rep
    # (x.repeat(1, reps)): a size no input has, fixed at the run's value;
    # tests/data/export/scalar: 0-D input, buffer and output, two outputs
    for m in argmax masked_fill center4d linear; do
        mkdir -p "$WORK/mods/$m"
        cp "$ROOT/examples/torch/$m/$m.py" "$ROOT/examples/torch/$m"/tests/ok_*.cu "$WORK/mods/$m/"
        dt=fp32
        [ $m = masked_fill ] && dt=bf16
        run "$m" --torch-problem "$WORK/mods/$m/$m.py" --dtype $dt --generations 1
    done
    mkdir -p "$WORK/mods/rep"
    cp "$ROOT/tests/data/export/rep/rep.py" "$ROOT/tests/data/export/rep/rep_copy.cu" "$WORK/mods/rep/"
    run rep --torch-problem "$WORK/mods/rep/rep.py" --generations 2
    mkdir -p "$WORK/mods/scalar"
    cp "$ROOT/tests/data/export/scalar/scalar.py" "$ROOT/tests/data/export/scalar/scalar_serial.cu" \
        "$WORK/mods/scalar/"
    run scalar --torch-problem "$WORK/mods/scalar/scalar.py" --generations 2
    set -- "$WORK/export-gemm" "$WORK/export-softmax" "$WORK/export-pair" "$WORK/export-cumsum" \
        "$WORK/export-argmax" "$WORK/export-masked_fill" "$WORK/export-center4d" "$WORK/export-linear" \
        "$WORK/export-rep" "$WORK/export-scalar"
fi
for d in "$@"; do
    "$PY" "$ROOT/scripts/torch-versions.py" "$d" 2>"$WORK/py.err" || {
        echo "FAIL $d: torch-versions.py exited $?"
        tail -5 "$WORK/py.err"
    }
done | tee "$WORK/torch-versions.txt"
fail=0
grep -q '^FAIL' "$WORK/torch-versions.txt" && fail=1
[ $fail = 0 ] && echo "torch-versions: PASS ($WORK/torch-versions.txt)" ||
    echo "torch-versions: FAIL ($WORK/torch-versions.txt)"
exit $fail
