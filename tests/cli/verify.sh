# kevo verify without a GPU: bad run directories and options get clear
# errors, a good run gets "kevo verify needs a GPU" (exit 3) and no
# verify.json; every run's manifest carries the environment fingerprint.
. tests/cli/lib.inc
K="$KEVO"
$T run --evaluator test --problem gemm --shape 300x200x100 --seed 4 --generations 2 \
    --runs-dir "$SCRATCH" --name v --quiet || { fail "setup run"; finish; }

# the fingerprint: GPU part null with a reason (test evaluator), software
# and kevo parts, and a hash
M="$SCRATCH/v/manifest.json"
grep -q '"fingerprint":' "$M" && grep -q '"gpu_reason":[[:space:]]*"the evaluator test reported no GPU"' "$M" \
    && grep -q '"nvrtc":' "$M" && grep -q '"compile_options":' "$M" \
    && grep -q '"hash":[[:space:]]*"[0-9a-f]\{16\}"' "$M" \
    && ok "the manifest carries the environment fingerprint (GPU null with its reason)" \
    || { fail "manifest fingerprint"; cat "$M"; }

expect_fail "verify of a missing run directory says so" "is not a kevo run directory" \
    $K verify "$SCRATCH/nope"
expect_fail "verify --top 0 is refused" "--top: '0' is not an integer" $K verify "$SCRATCH/v" --top 0
expect_fail "verify --reps x is refused" "--reps: 'x' is not an integer" $K verify "$SCRATCH/v" --reps x
expect_fail "verify without a run directory is a usage error" "expected one run directory" $K verify
if [ ! -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ] && ! ldconfig -p | grep -q libcuda.so.1; then
    $K verify "$SCRATCH/v" >"$SCRATCH/out" 2>"$SCRATCH/err"; rc=$?
    [ $rc = 3 ] && grep -q "^kevo verify needs a GPU: " "$SCRATCH/err" && [ ! -e "$SCRATCH/v/verify.json" ] \
        && ok "verify without a GPU says it needs one (exit 3) and writes nothing" \
        || { fail "verify without a GPU: exit $rc"; cat "$SCRATCH/err"; }
fi
$K verify --help | grep -q "usage: kevo verify" && ok "verify --help" || fail "verify --help"
finish
