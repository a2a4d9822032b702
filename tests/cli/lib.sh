# Shared helpers for CLI tests (sourced). Sets T (the test kevo with the
# deterministic evaluator), CANON (journal canonicaliser) and a scratch dir.
T="$BUILD/tests/kevo_test"
CANON="$BUILD/tests/jnl_canon"
SCRATCH=$(mktemp -d /tmp/kevo-cli.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT
FAILED=0
ok()   { echo "ok   $1"; }
fail() { echo "FAIL $1"; FAILED=1; }
# expect_fail "sentence" "substring of stderr" cmd...
expect_fail() {
    what=$1; want=$2; shift 2
    if "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"; then
        fail "$what (command succeeded)"
    elif grep -qF -- "$want" "$SCRATCH/err"; then
        ok "$what"
    else
        fail "$what (stderr lacks '$want':)"; cat "$SCRATCH/err"
    fi
}
finish() { exit $FAILED; }
