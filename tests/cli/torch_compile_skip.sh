# torch.compile as a baseline is optional (issue 30): a compile that fails
# or takes longer than KEVO_TORCH_COMPILE_LIMIT_S is reported and skipped,
# never an error of the problem. Tested on the CPU through the helper's
# seam compile_or_skip (fitness/torchprob_helper.py), which the worker's
# tp_prepare calls with the real torch.compile; tests/gpu/torch_timing.sh
# checks the same through a worker on the GPU. Also the share of a given
# tolerance torch's own result uses (_used). Skipped without torch.
. tests/cli/lib.inc
need_torch
cat >"$SCRATCH/t.py" <<'PYEOF'
import sys
sys.argv = ["helper"]  # not the describe entry point
exec(open("fitness/torchprob_helper.py").read())
import torch
model = torch.nn.Linear(4, 3)
x = torch.randn(2, 4)
ran = []
def once(cm):
    ran.append(cm(x))
def check(name, got, status, words):
    cm, st, took, note = got
    good = st == status and all(w in note for w in words) and \
        (cm is None) == (status != 1)
    print("%s %s" % ("ok  " if good else "FAIL", name))
    if not good:
        print("     got status %r note %r" % (st, note))
# a compile that raises: reported, skipped
def broken(m, mode):
    raise RuntimeError("inductor: no C compiler\nlong traceback")
check("a compile that raises is skipped with its first line",
      compile_or_skip(model, once, "max-autotune-no-cudagraphs", 300,
                      compile_fn=broken),
      -1, ["failed", "RuntimeError: inductor: no C compiler",
           "compile baseline skipped"])
# slower than the limit (a fake clock: 412 s pass while it compiles)
t = [1000.0]
def clock():
    return t[0]
def slow(m, mode):
    t[0] += 412
    return m
check("a compile over KEVO_TORCH_COMPILE_LIMIT_S is skipped",
      compile_or_skip(model, once, "default", 300, compile_fn=slow,
                      clock=clock),
      -2, ["took 412.0 s", "KEVO_TORCH_COMPILE_LIMIT_S=300",
           "compile baseline skipped"])
# in time: compiled, run once, no note
check("a compile within the limit is kept and ran once",
      compile_or_skip(model, once, "default", 300,
                      compile_fn=lambda m, mode: m), 1, [])
print("%s it ran the compiled module once" % ("ok  " if ran else "FAIL"))
check("mode off compiles nothing",
      compile_or_skip(model, once, "off", 300, compile_fn=broken), 0,
      ["off"])
# the installed torch's own torch.compile: kept, or skipped with a reason
cm, st, took, note = compile_or_skip(model, once, "default", 300)
good = (st == 1 and cm is not None) or (st == -1 and "failed" in note)
print("%s this torch's own torch.compile is kept or reported (%s)"
      % ("ok  " if good else "FAIL", note or "compiled"))
# the share of a given tolerance torch's own result uses (tp_selfcheck_
# calibrate refuses one above 1): a miss of a zero tolerance is infinite,
# not NaN (which would compare as passing)
ref = torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64)
got = torch.tensor([0.0, 1.0, 2.001])
u0, u1 = _used(ref, got, 0, 0), _used(ref, got, 0, 1e-3)
print("%s a zero tolerance torch misses is used infinitely (%g)"
      % ("ok  " if u0 == float("inf") else "FAIL", u0))
print("%s a relative tolerance's share is |err| / (rtol |ref|) (%g)"
      % ("ok  " if abs(u1 - 0.5) < 1e-3 else "FAIL", u1))
PYEOF
"$PY" "$SCRATCH/t.py" >"$SCRATCH/out" 2>&1
cat "$SCRATCH/out"
grep -q '^FAIL' "$SCRATCH/out" && FAILED=1
[ "$(grep -c '^ok' "$SCRATCH/out")" -eq 8 ] || fail "not every case ran"
finish
