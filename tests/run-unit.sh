#!/bin/sh
# Runs each unit-test binary given as an argument; fails if any fails.
fail=0
for t in "$@"; do
    echo "== $(basename "$t")"
    if ! "$t"; then
        echo "FAILED: $t"
        fail=1
    fi
done
exit $fail
