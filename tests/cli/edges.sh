# Sharp edges from issue 10 (items 4, 7-15): each case states the input
# and what kevo must do with it. Runs with the test evaluator, no GPU.
. tests/cli/lib.inc
K="$KEVO"
R="--evaluator test --runs-dir $SCRATCH --quiet"
# a command that must not hang or grow without bound: 20 s, 2 GB
bounded() { (ulimit -v 2000000; timeout 20 "$@"); }

# ---- item 9: every read is capped and refuses non-regular files
expect_fail "eval refuses /dev/zero as not a regular file" "not a regular file" \
    bounded $K eval /dev/zero --shape 64x64x64
mkfifo "$SCRATCH/fifo"
expect_fail "eval refuses a FIFO at once" "not a regular file" \
    bounded $K eval "$SCRATCH/fifo" --shape 64x64x64
expect_fail "--spec /dev/zero is refused" "cannot read spec '/dev/zero': not a regular file" \
    bounded $T run $R --spec /dev/zero --name z
expect_fail "--spec DIR says it is a directory" "is a directory" \
    bounded $T run $R --spec "$SCRATCH" --name z
truncate -s 65M "$SCRATCH/big.json"
expect_fail "a spec past the size cap is too large" "too large" \
    bounded $T run $R --spec "$SCRATCH/big.json" --name z
$T run $R --problem gemm --shape 64x64x64 --generations 1 --name m9 || fail "setup m9"
rm "$SCRATCH/m9/manifest.json"; ln -s /dev/zero "$SCRATCH/m9/manifest.json"
expect_fail "status: manifest.json -> /dev/zero is refused" "not a regular file" \
    bounded $T status "$SCRATCH/m9"
expect_fail "resume: manifest.json -> /dev/zero is refused" "not a regular file" \
    bounded $T resume "$SCRATCH/m9"
$T run $R --problem gemm --shape 64x64x64 --generations 1 --name j9 || fail "setup j9"
rm "$SCRATCH/j9/journal.jsonl"; mkfifo "$SCRATCH/j9/journal.jsonl"
expect_fail "status: a journal that is a FIFO is refused at once" "not a regular file" \
    bounded $T status "$SCRATCH/j9"
finish
