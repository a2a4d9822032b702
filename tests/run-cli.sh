#!/bin/sh
# Runs every tests/cli/*.sh with $KEVO (the real binary) and $BUILD (for
# the test tools: kevo_test, jnl_canon). Each script exits non-zero on
# failure and prints "ok   <sentence>" lines.
fail=0
for t in tests/cli/*.sh; do
    echo "== $(basename "$t")"
    if ! sh "$t"; then
        echo "FAILED: $t"
        fail=1
    fi
done
exit $fail
