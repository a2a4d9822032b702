# Bad input: a clear error naming what is wrong (file, line), a non-zero
# exit, and nothing in an existing run directory touched.
. tests/cli/lib.inc
R="--evaluator test --runs-dir $SCRATCH --quiet"

printf '{\n  "problem": "gemm",\n  "shape": "64x64x64",\n  "seed": 1,,\n}\n' >"$SCRATCH/bad1.json"
expect_fail "malformed spec JSON names file and line" "bad1.json:4:" \
    $T run $R --spec "$SCRATCH/bad1.json" --name x
printf '{\n  "problem": "gemm",\n  "shape": "64x64x64",\n  "popsize": 3\n}\n' >"$SCRATCH/bad2.json"
expect_fail "unknown spec member names file, line and member" "bad2.json:4: unknown member 'popsize'" \
    $T run $R --spec "$SCRATCH/bad2.json" --name x
printf '{\n  "problem": "gemm",\n  "shape": "64x64",\n  "seed": 1\n}\n' >"$SCRATCH/bad3.json"
expect_fail "spec with a bad shape names file and line" "bad3.json:3:" \
    $T run $R --spec "$SCRATCH/bad3.json" --name x
printf '{\n  "problem": "gemm",\n  "islands": 0\n}\n' >"$SCRATCH/bad4.json"
expect_fail "out-of-range spec number names the member" "bad4.json:3: 'islands' must be an integer" \
    $T run $R --spec "$SCRATCH/bad4.json" --name x
expect_fail "unknown problem is named" "unknown problem 'gemmm'" \
    $T run $R --problem gemmm --shape 1x1 --name x
expect_fail "bad --shape is explained" "expected MxNxK" \
    $T run $R --problem gemm --shape 12x-3 --name x
expect_fail "bad --time is explained" "--time: '8 hours'" \
    $T run $R --problem gemm --shape 64x64x64 --time "8 hours" --name x
expect_fail "unknown option is named" "unknown option '--frobnicate'" \
    $T run $R --frobnicate
expect_fail "unknown template is named" "no template 'nope'" \
    $T run $R --problem gemm --shape 64x64x64 --template nope --name x

# a malformed template in the library: file, line and what
mkdir -p "$SCRATCH/lib/gemm"
cat >"$SCRATCH/lib/gemm/broken.cu" <<'TPL'
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 default=64
// kevo: constraint BM * 2 <= ZZ
// kevo: launch k
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C, int M, int N, int K, void *ws) { (void)BM; }
TPL
expect_fail "malformed template names file and line" "broken.cu:4:" \
    $T run $R --problem gemm --shape 64x64x64 --templates-dir "$SCRATCH/lib" --name x
expect_fail "kevo list reports a malformed template too" "broken.cu:4:" \
    $T list --templates-dir "$SCRATCH/lib"

# an existing run directory is never touched by a failing command
$T run $R --problem gemm --shape 64x64x64 --generations 2 --name keep || fail "setup run"
before=$(cd "$SCRATCH/keep" && find . -type f | sort | xargs md5sum)
expect_fail "run into an existing run directory is refused" "already exists" \
    $T run $R --problem gemm --shape 64x64x64 --generations 2 --name keep
printf 'garbage\n' >"$SCRATCH/keep.json"
expect_fail "resume of a non-run directory is refused" "not a kevo run directory" \
    $T resume "$SCRATCH"
after=$(cd "$SCRATCH/keep" && find . -type f | sort | xargs md5sum)
[ "$before" = "$after" ] && ok "a failing command leaves the run directory byte-identical" \
    || fail "run directory changed"
# a malformed journal line in the middle is an error with its line
cp -r "$SCRATCH/keep" "$SCRATCH/bad"
sed -i '3s/.*/{"type": broken/' "$SCRATCH/bad/journal.jsonl"
expect_fail "a malformed journal record is reported with its line" "journal.jsonl:3:" \
    $T resume "$SCRATCH/bad"
finish
