# The README's example commands stay valid: every `kevo ...` line of its
# ```sh blocks (placeholders such as <run>, [opt] or ... skipped) is run.
# Commands that need no GPU and name only paths that exist must succeed;
# the others must at least get past option parsing (never exit 2, usage).
# Commands that need a GPU run only where there is no driver (they stop at
# once with exit 3); on a GPU machine they would start real runs.
. tests/cli/lib.inc
K="$KEVO"
README=${README:-README.md}

# one command a line: ```sh blocks only, backslash continuations joined
awk '/^```/ { insh = ($0 ~ /^```sh/); next }
     insh { if (sub(/\\$/, "")) { buf = buf $0; next }
            print buf $0; buf = "" }' "$README" \
    | grep '^kevo ' | grep -v '[<[]' | grep -vF '...' >"$SCRATCH/cmds"

if [ -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ] || ldconfig -p 2>/dev/null | grep -q libcuda.so.1; then
    nodriver=0
else
    nodriver=1
fi

# needs_gpu LINE: 0 when the command needs a GPU
needs_gpu() {
    set -- $1
    case $2 in
    run) case "$*" in *--simulate*) return 1;; esac; return 0;;
    bench) case "$*" in *--from-runs*) return 1;; esac; return 0;;
    resume|eval|doctor|verify) return 0;;
    esac
    return 1
}

# missing_run LINE: 0 when the line names a runs/... path that is not there
missing_run() {
    for w in $1; do
        case $w in runs/*) [ -e "$w" ] || return 0;; esac
    done
    return 1
}

n=0
while IFS= read -r line; do
    cmd=$(printf '%s\n' "$line" | sed "s|^kevo |\"\$K\" |; s|/tmp/|\$SCRATCH/|g")
    if needs_gpu "$line"; then
        [ $nodriver = 1 ] || continue
        K="$K" SCRATCH="$SCRATCH" sh -c "$cmd" >"$SCRATCH/out" 2>"$SCRATCH/err" </dev/null
        rc=$?
        if [ $rc = 3 ] || { [ $rc = 1 ] && missing_run "$line"; } || { [ $rc = 1 ] && grep -q "is not set\|cannot open\|cannot read\|no '" "$SCRATCH/err"; }; then
            n=$((n + 1))
        else
            fail "README: '$line' without a GPU exits $rc (want 3)"; cat "$SCRATCH/err"
        fi
        continue
    fi
    K="$K" SCRATCH="$SCRATCH" sh -c "$cmd" >"$SCRATCH/out" 2>"$SCRATCH/err" </dev/null
    rc=$?
    if missing_run "$line"; then
        [ $rc != 0 ] && [ $rc != 2 ] && n=$((n + 1)) \
            || { fail "README: '$line' exits $rc"; cat "$SCRATCH/err"; }
    elif [ $rc = 0 ]; then
        n=$((n + 1))
    else
        fail "README: '$line' exits $rc"; cat "$SCRATCH/err"
    fi
done <"$SCRATCH/cmds"
[ $n -ge 10 ] && ok "the README's $n example kevo commands run (or stop only for want of a GPU)" \
    || fail "the README's example commands: only $n checked"
finish
