# A run directory someone planted links and FIFOs in (issue 29.9, 29.10):
# kevo writes through no symbolic link inside a run directory - report/,
# export/, sources/, journal.jsonl, a dangling .lock each pointing outside
# are refused with an error naming the path, and nothing appears outside -
# and waits on nothing: status with a FIFO at .lock, report with a FIFO or
# a link to /dev/zero at a plot data file, and a gnuplot that never ends,
# all return (each under a timeout guard).
. tests/cli/lib.inc
K="$KEVO"
$T run --evaluator test --problem softmax --shape 64x64 --seed 1 --generations 2 \
    --runs-dir "$SCRATCH" --name base --quiet || fail "hostile rundir setup run"
OUT="$SCRATCH/outside"
fresh() { # fresh NAME: a copy of the base run, an empty outside dir
    rm -rf "$SCRATCH/$1" "$OUT"; cp -r "$SCRATCH/base" "$SCRATCH/$1"; mkdir -p "$OUT"
    R="$SCRATCH/$1"; rm -f "$R/.lock"
}
nothing_outside() { [ -z "$(ls -A "$OUT")" ]; }
# refused "sentence" "substring of stderr" cmd...: fails, says why, and
# leaves the outside directory empty
refused() {
    what=$1; want=$2; shift 2
    if timeout 60 "$@" >"$SCRATCH/o" 2>"$SCRATCH/e"; then
        fail "$what (command succeeded)"; cat "$SCRATCH/e"
    elif ! grep -qF -- "$want" "$SCRATCH/e"; then
        fail "$what (stderr lacks '$want':)"; cat "$SCRATCH/e"
    elif ! nothing_outside; then
        fail "$what (wrote outside: $(ls "$OUT"))"
    else
        ok "$what"
    fi
}
LINKMSG="symbolic link inside the run directory"

fresh rep; ln -s "$OUT" "$R/report"
refused "report/ linked outside: report refuses, names it, writes nothing there" \
    "cannot create '$R/report': a $LINKMSG" $K report "$R" --quiet
fresh exp; ln -s "$OUT" "$R/export"
refused "export/ linked outside: export refuses, names it, writes nothing there" \
    "cannot create '$R/export': a $LINKMSG" $K export "$R" --quiet
fresh src; mv "$R/sources" "$OUT/sources"; ln -s "$OUT/sources" "$R/sources"
n0=$(ls "$OUT/sources" | wc -l)
timeout 120 $T resume "$R" --generations 4 --quiet >"$SCRATCH/o" 2>"$SCRATCH/e"
rc=$?
[ $rc != 0 ] && [ "$(ls "$OUT/sources" | wc -l)" = "$n0" ] && grep -q "$R/sources/[0-9a-f]*.cu.*$LINKMSG" "$SCRATCH/e" \
    && ok "sources/ linked outside: resume stops naming the source it would write, adds nothing there" \
    || { fail "sources/ linked outside (rc $rc)"; cat "$SCRATCH/e"; }
# ...and when its only GPU also dies in that generation, the error said is
# the one the exit status is (the sources are written on a thread of
# their own, and their failure comes out at the generation's end too)
fresh src2; mv "$R/sources" "$OUT/sources"; ln -s "$OUT/sources" "$R/sources"
KEVO_TEST_GPU_FAIL=0:1 timeout 120 $T resume "$R" --generations 4 --gpus 0 --quiet \
    >"$SCRATCH/o" 2>"$SCRATCH/e"
rc=$?
[ $rc = 3 ] && grep -q "no evaluator left (gpu 0 failed" "$SCRATCH/e" && ! grep -q "cannot write" "$SCRATCH/e" \
    && [ "$(ls "$OUT/sources" | wc -l)" = "$n0" ] \
    && ok "sources/ linked outside and the only GPU dead: exit 3 says the GPU, adds nothing there" \
    || { fail "sources/ linked outside and the GPU dead (rc $rc)"; cat "$SCRATCH/e"; }
fresh jnl; mv "$R/journal.jsonl" "$OUT/journal.jsonl"; ln -s "$OUT/journal.jsonl" "$R/journal.jsonl"
cp "$OUT/journal.jsonl" "$SCRATCH/jnl.before"
timeout 120 $T resume "$R" --generations 4 --quiet >"$SCRATCH/o" 2>"$SCRATCH/e"
rc=$?
[ $rc != 0 ] && cmp -s "$OUT/journal.jsonl" "$SCRATCH/jnl.before" && grep -qF "'$R/journal.jsonl'" "$SCRATCH/e" \
    && grep -qF "$LINKMSG" "$SCRATCH/e" \
    && ok "journal.jsonl linked outside: resume refuses to append through it, names it" \
    || { fail "journal.jsonl linked outside (rc $rc)"; cat "$SCRATCH/e"; }
fresh lck; rm -rf "$OUT"; mkdir -p "$OUT"; ln -s "$OUT/pwned" "$R/.lock"
refused "a dangling .lock link: resume refuses, creates nothing outside" \
    "cannot open '$R/.lock': a $LINKMSG" $T resume "$R" --generations 4 --quiet
# charts are optional: the report is written without them, saying why
fresh plt; mkdir -p "$R/report"; ln -s "$OUT" "$R/report/plots"
timeout 60 $K report "$R" >"$SCRATCH/o" 2>"$SCRATCH/e"
grep -qF "cannot create '$R/report/plots': a $LINKMSG" "$SCRATCH/e" && nothing_outside \
    && [ -s "$R/report/report.md" ] \
    && ok "report/plots linked outside: report names it, draws no charts, writes nothing there" \
    || { fail "report/plots linked outside"; cat "$SCRATCH/e"; ls "$OUT"; }
# a report --out outside the run may be anything the user names
fresh ok1; ln -s "$OUT" "$SCRATCH/userlink"
timeout 60 $K report "$R" --out "$SCRATCH/userlink/rep" --quiet 2>"$SCRATCH/e" && [ -s "$OUT/rep/report.md" ] \
    && ok "a link the user names outside a run directory is still followed" \
    || { fail "report --out through the user's own link"; cat "$SCRATCH/e"; }

# hangs: a FIFO at .lock, a FIFO or /dev/zero at a plot data file
fresh fifo; mkfifo "$R/.lock"
timeout 20 $K status "$R" >"$SCRATCH/o" 2>"$SCRATCH/e"
rc=$?
[ $rc != 124 ] && [ $rc = 0 ] && ok "status with a FIFO at .lock returns (rc $rc)" \
    || { fail "status with a FIFO at .lock (rc $rc)"; cat "$SCRATCH/e"; }
refused "resume with a FIFO at .lock refuses it at once" \
    "cannot open '$R/.lock': not a regular file" $T resume "$R" --generations 4 --quiet
for kind in fifo zero; do
    fresh p$kind; mkdir -p "$R/report/plots"
    if [ $kind = fifo ]; then mkfifo "$R/report/plots/best_evals.dat"
    else ln -s /dev/zero "$R/report/plots/best_evals.dat"; fi
    timeout 30 $K report "$R" >"$SCRATCH/o" 2>"$SCRATCH/e"
    rc=$?
    [ $rc != 124 ] && grep -qF "cannot write '$R/report/plots/best_evals.dat'" "$SCRATCH/e" \
        && [ -s "$R/report/report.md" ] \
        && ok "report with a $kind at a plot data file returns, names it, writes the report without charts" \
        || { fail "report with a $kind plot data file (rc $rc)"; cat "$SCRATCH/e"; }
done
# gnuplot that never ends is killed at its deadline
cat >"$SCRATCH/gnuplot" <<'SH'
#!/bin/sh
[ "$1" = --version ] && exit 0
exec sleep 600
SH
chmod +x "$SCRATCH/gnuplot"
fresh gp
KEVO_GNUPLOT="$SCRATCH/gnuplot" KEVO_PLOT_TIMEOUT_S=2 timeout 60 $K report "$R" >"$SCRATCH/o" 2>"$SCRATCH/e"
rc=$?
[ $rc != 124 ] && grep -q "gnuplot ran past 2 s and was stopped" "$SCRATCH/e" && [ -s "$R/report/report.md" ] \
    && ok "a gnuplot that never ends is killed after KEVO_PLOT_TIMEOUT_S" \
    || { fail "gnuplot timeout (rc $rc)"; cat "$SCRATCH/e"; }
finish
