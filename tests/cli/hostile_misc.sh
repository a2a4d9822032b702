# Smaller trust-boundary cases of issue 29.11: a full disk names the file
# and says how to go on; replay refuses a journal cut below its checkpoint
# and an emptied gpu_facts.txt, naming the file; leaderboard --out keeps
# one T4 file per run when two runs share a name; a sweep too large to
# enumerate is refused before its run directory exists; the table of a
# user-problem run carries the problem's file (bench-search and run
# --simulate read it alone); a table listing a template twice says so; a
# run whose problem.problem is gone says that, not "manifest error"; a
# problem file with a NUL byte, bytes that are not UTF-8 or a terminal
# control character is refused with file:line, a UTF-8 BOM is skipped, a
# description too long for a prompt is refused where it starts; kevo list
# takes 20 problem files.
. tests/cli/lib.inc
K="$KEVO"

# a full disk: a small tmpfs in a private mount namespace (skipped where
# neither root nor user namespaces allow a mount)
M="$SCRATCH/mnt"; mkdir -p "$M"
cat >"$SCRATCH/full.sh" <<SH
mount -t tmpfs -o size=300k tmpfs "$M" || exit 77
$T run --evaluator test --problem softmax --shape 64x64 --seed 1 --generations 8 \
    --runs-dir "$M" --name r --quiet 2>"$SCRATCH/full.err"
echo "run \$?" >"$SCRATCH/full.rc"
mount -o remount,size=256m "$M" || exit 77
$T resume "$M/r" --quiet 2>"$SCRATCH/resume.err"
echo "resume \$?" >>"$SCRATCH/full.rc"
$K replay "$M/r" >"$SCRATCH/replay.out" 2>&1
echo "replay \$?" >>"$SCRATCH/full.rc"
SH
if unshare -rm sh "$SCRATCH/full.sh" 2>"$SCRATCH/unshare.err" || [ -s "$SCRATCH/full.rc" ]; then
    # (the journal, a source or the checkpoint: which one meets the full
    # disk first depends on when the writer thread gets to its files)
    grep -Eq "kevo run: cannot (write|append to) '$M/r/[a-z/]*[0-9a-f.]*[a-z]*': no space left on device; free space and run 'kevo resume $M/r'" \
        "$SCRATCH/full.err" && grep -q "^run 1$" "$SCRATCH/full.rc" \
        && ok "a full disk names the file kevo was writing and says to free space and resume" \
        || { fail "disk full message"; cat "$SCRATCH/full.err" "$SCRATCH/full.rc"; }
    grep -q "^resume 0$" "$SCRATCH/full.rc" && grep -q "^replay 0$" "$SCRATCH/full.rc" \
        && grep -q "^identical:" "$SCRATCH/replay.out" \
        && ok "after space is freed the run resumes and replays identical" \
        || { fail "resume after a full disk"; cat "$SCRATCH/resume.err" "$SCRATCH/replay.out" "$SCRATCH/full.rc"; }
else
    echo "skip disk-full check: cannot mount a tmpfs here ($(head -1 "$SCRATCH/unshare.err"))"
fi

$T run --evaluator test --problem softmax --shape 64x64 --seed 2 --generations 3 \
    --runs-dir "$SCRATCH/a" --name r --quiet || fail "setup run a/r"
R="$SCRATCH/a/r"
cp -r "$R" "$SCRATCH/cut"; head -20 "$R/journal.jsonl" >"$SCRATCH/cut/journal.jsonl"
expect_fail "replay of a journal cut below its checkpoint says records are lost" \
    "'$SCRATCH/cut/journal.jsonl' has lost records: it holds 20" $K replay "$SCRATCH/cut"

# an LLM run's gpu_facts.txt emptied
. tests/cli/llm.inc
llm_winner_run w
: >"$SCRATCH/w/gpu_facts.txt"
expect_fail "replay of an LLM run with an empty gpu_facts.txt names the file" \
    "'$SCRATCH/w/gpu_facts.txt' is empty" $K replay "$SCRATCH/w"

# two runs of the same name: two T4 files
$T run --evaluator test --problem softmax --shape 64x64 --seed 3 --generations 2 \
    --runs-dir "$SCRATCH/b" --name r --quiet || fail "setup run b/r"
$K leaderboard "$SCRATCH/a/r" "$SCRATCH/b/r" --out "$SCRATCH/lb" --quiet >/dev/null 2>"$SCRATCH/lb.err"
[ -s "$SCRATCH/lb-t4/r.json" ] && [ -s "$SCRATCH/lb-t4/r-2.json" ] \
    && ! cmp -s "$SCRATCH/lb-t4/r.json" "$SCRATCH/lb-t4/r-2.json" \
    && ok "leaderboard --out writes r.json and r-2.json for two runs named r" \
    || { fail "leaderboard T4 names"; ls "$SCRATCH/lb-t4"; cat "$SCRATCH/lb.err"; }

expect_fail "a sweep too large to enumerate is refused" "too many points to enumerate" \
    $T run --evaluator test --problem gemm --dtype fp16 --shape 256x256x256 --strategy sweep \
        --template hgemm_wgmma --generations 1 --runs-dir "$SCRATCH/sw" --name s
[ ! -e "$SCRATCH/sw/s" ] && ok "... before its run directory exists" \
    || fail "a refused sweep left '$SCRATCH/sw/s'"

# user problems: the table stands alone; problem.problem missing
P="$SCRATCH/p"; mkdir -p "$P"
cp examples/problems/scale/scale.problem examples/problems/scale/scale_vec.cu "$P/"
$T run --evaluator test --problem-file "$P/scale.problem" --dtype fp32 --shape 300x200 \
    --generations 3 --runs-dir "$SCRATCH/u" --name u --quiet || fail "setup user-problem run"
U="$SCRATCH/u/u"
$K table "$U" --out "$SCRATCH/t.jsonl" 2>/dev/null || fail "kevo table of a user-problem run"
$K bench-search "$SCRATCH/t.jsonl" --seeds 2 --budget 20 >"$SCRATCH/bs.out" 2>&1 \
    && $K run --simulate "$SCRATCH/t.jsonl" --generations 2 --runs-dir "$SCRATCH/sim" --name s --quiet 2>"$SCRATCH/sim.err" \
    && ok "a user problem's table is read by bench-search and run --simulate with no other option" \
    || { fail "user-problem table"; cat "$SCRATCH/bs.out" "$SCRATCH/sim.err"; }
{ head -2 "$SCRATCH/t.jsonl"; sed -n 2p "$SCRATCH/t.jsonl"; tail -n +3 "$SCRATCH/t.jsonl"; } >"$SCRATCH/t2.jsonl"
expect_fail "a table listing one template twice says so with file:line" \
    "$SCRATCH/t2.jsonl:3: template 'scale_vec' is listed twice" $K bench-search "$SCRATCH/t2.jsonl" --seeds 1
cp -r "$U" "$SCRATCH/nopf"; rm "$SCRATCH/nopf/problem.problem"
expect_fail "a run whose problem.problem is gone names that file" \
    "its copy of the problem file '$SCRATCH/nopf/problem.problem' is missing" $K status "$SCRATCH/nopf"

# problem files that are not text
S=examples/problems/scale/scale.problem
B="$SCRATCH/bad.problem"
try_bad() { # sentence, expected message
    expect_fail "$1" "$B:$2" $T run --evaluator test --problem-file "$B" --shape 8x8 --runs-dir "$SCRATCH/bad"
}
{ head -3 $S; printf 'summary a\000b\n'; tail -n +5 $S; } >"$B"
try_bad "a NUL byte in a problem file is refused with file:line" "4: contains a NUL byte"
{ head -3 $S; printf 'summary caf\351\n'; tail -n +5 $S; } >"$B"
try_bad "a problem file that is not UTF-8 is refused with file:line" "4: is not UTF-8"
{ head -3 $S; printf 'summary \033[2J\033]0;pwned\007\n'; tail -n +5 $S; } >"$B"
try_bad "terminal control characters in a problem file are refused with file:line" "4: contains a control character"
mkdir -p "$SCRATCH/bomp"; cp examples/problems/scale/scale_vec.cu "$SCRATCH/bomp/"
{ printf '\357\273\277'; cat $S; } >"$SCRATCH/bomp/scale.problem"
$T run --evaluator test --problem-file "$SCRATCH/bomp/scale.problem" --dtype fp32 --shape 64x64 --generations 1 \
    --runs-dir "$SCRATCH/bom" --name b --quiet 2>"$SCRATCH/bom.err" \
    && ok "a UTF-8 BOM at the start of a problem file is skipped" || { fail "BOM"; cat "$SCRATCH/bom.err"; }
{ head -5 $S; head -c 1048576 /dev/zero | tr '\0' 'x' | fold -w 100; echo; tail -n +6 $S; } >"$B"
try_bad "a 1 MiB description is refused where it starts" "5: description longer than 65536 bytes"
mkdir -p "$SCRATCH/many"
for i in $(seq 1 20); do
    sed "s/^problem scale/problem scale$i/" $S >"$SCRATCH/many/scale$i.problem"
done
$K list --problems-dir "$SCRATCH/many" >"$SCRATCH/list.out" 2>&1 \
    && [ "$(grep -c '(user problem' "$SCRATCH/list.out")" = 20 ] \
    && ok "kevo list takes 20 problem files (no limit of 16)" || { fail "20 problems"; tail -3 "$SCRATCH/list.out"; }
finish
