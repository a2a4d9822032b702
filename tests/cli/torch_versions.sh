# The torch export (custom op + KernelBench's ModelNew) against every
# torch found here, without a GPU, through scripts/torch-versions.sh:
# exports of ten test-evaluator runs (one and two outputs, fp32/fp16/
# bf16, a .problem and seven torch problems: N-D and 0-D, int64 output,
# bool input, parameters, a bf16 run, a size fixed at the run's value). On torch >= 2.4 the op registers,
# its fake gives torch's output shapes, and make_fx, torch.export (also
# with a Dim per size) and torch.compile(fullgraph) trace it; on older
# torch (CI's Debian 1.13 has no torch.library.custom_op) the import fails
# with an ImportError naming the version. $KEVO_TORCH_PYTHON adds a python
# (e.g. a venv with PyPI's torch 2.15); skipped without any torch.
. tests/cli/lib.inc
seen=
for py in "${KEVO_TORCH_PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$py" ] && v=$("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null) || continue
    case " $seen " in *" $v "*) continue ;; esac
    seen="$seen $v"
    O="$SCRATCH/tv-$(echo "$v" | tr -c 'a-zA-Z0-9.\n' _)"
    OUT="$O" KEVO="$KEVO" KEVO_TEST="$T" sh scripts/torch-versions.sh "$py" >"$SCRATCH/tv.out" 2>&1
    rc=$?
    new=$("$py" -c 'import torch; print(int(hasattr(torch.library, "custom_op")))')
    if [ "$new" = 1 ]; then
        [ $rc = 0 ] && [ "$(grep -c '^PASS torch.export.export with a Dim per size holds the op' "$SCRATCH/tv.out")" = 10 ] &&
            [ "$(grep -c '^PASS fake op at the awkward shape' "$SCRATCH/tv.out")" = 10 ] &&
            [ "$(grep -c "^PASS torch.compile(fullgraph=True) graph holds the op at both shapes" "$SCRATCH/tv.out")" = 10 ] &&
            [ "$(grep -c '^PASS torch.compile of ModelNew' "$SCRATCH/tv.out")" = 10 ] &&
            [ "$(grep -c "^PASS KernelBench's seed protocol" "$SCRATCH/tv.out")" = 7 ] &&
            [ "$(grep -c '^PASS make_fx of ModelNew traces the op' "$SCRATCH/tv.out")" = 7 ] &&
            [ "$(grep -c "^PASS ModelNew on get_inputs() (torch.float32.*) gives Model's outputs" "$SCRATCH/tv.out")" = 7 ] &&
            ok "torch $v: the op and ModelNew of 10 exports import, fake, export (with Dims) and compile; ModelNew holds Model's state" ||
            { fail "torch $v: torch-versions.sh"; grep -v '^PASS\|^NOTE' "$SCRATCH/tv.out"; }
    else
        [ $rc = 0 ] && [ "$(grep -c "^PASS import of .* on torch < 2.4 fails with a clear ImportError: kevo_[a-z0-9_]* needs torch >= 2.4 (torch.library.custom_op); this is torch $v" "$SCRATCH/tv.out")" = 20 ] &&
            ok "torch $v: the op and ModelNew of 10 exports refuse to import, naming torch >= 2.4 and $v" ||
            { fail "torch $v: torch-versions.sh"; cat "$SCRATCH/tv.out"; }
    fi
done
[ -n "$seen" ] || echo "SKIP torch_versions.sh: no python here imports torch (CI installs python3-torch)"
finish
