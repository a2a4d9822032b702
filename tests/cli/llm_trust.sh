# An LLM endpoint as an attacker (or a broken one) would run it, against
# the loopback test server: a key echoed in answers and code comments
# reaches no file of the run and no later request; hostile usage numbers
# still spend --llm-budget; an endpoint that accepts and never answers
# cannot hold a --time run or the first Ctrl-C, and the run resumes and
# replays; proposals without usable code are asked again (saying what was
# wrong) until the budget ends, and then the run fails naming why.
. tests/cli/lib.inc
. tests/cli/llm.inc
LOUD="--evaluator test --problem softmax --shape 512x1000 --seed 3 \
      --islands 2 --population 6 --offspring 8"
ARGS="$LOUD --quiet"
serve() { # mode [server args...] -> sets PORT, SPID
    mode=$1; shift
    rm -f "$SCRATCH/port" "$SCRATCH/server.log"
    "$SERVER" --key-env KEVO_TEST_KEY --mode "$mode" --log "$SCRATCH/server.log" \
        --lifetime 120 "$@" >"$SCRATCH/port" &
    SPID=$!
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        PORT=$(head -1 "$SCRATCH/port" 2>/dev/null)
        [ -n "$PORT" ] && break
        sleep 0.2
    done
}
llm_args() { echo "--llm openai:test-model@http://127.0.0.1:$PORT/v1 --llm-key-env KEVO_TEST_KEY"; }
now() { date +%s; }

# 1. a key echoed in every answer, in its prose and in a code comment; no
# template of the problem, so every parent a rewrite quotes is LLM-born
mkdir -p "$SCRATCH/lib/templates/gemm"
cp templates/gemm/gemm_naive.cu "$SCRATCH/lib/templates/gemm/"
serve echokey --port 0 --answers tests/data/llm-answers/softmax
$T run $ARGS --generations 5 --templates-dir "$SCRATCH/lib/templates" $(llm_args) \
    --runs-dir "$SCRATCH" --name e 2>"$SCRATCH/e.err" ||
    { fail "run with a key-echoing server"; cat "$SCRATCH/e.err"; }
stop_server
grep -q '"verdict":"ok"' "$SCRATCH/e/journal.jsonl" &&
    grep -rqF 'served with key ***' "$SCRATCH/e/llm" &&
    ok "answers that quote the key are used, the key replaced by ***" ||
    fail "no answer was used, or not redacted"
if grep -rlF "$KEVO_TEST_KEY" "$SCRATCH/e" "$SCRATCH/e.err"; then
    fail "the echoed key reached the files above"
else
    ok "the echoed key is in no file of the run ($(find "$SCRATCH/e" -type f | wc -l) files: llm/, sources/, best.cu, journal)"
fi
n_req=$(wc -l <"$SCRATCH/server.log")
if grep -qF "$KEVO_TEST_KEY" "$SCRATCH/server.log"; then
    fail "a later request carried the echoed key to the server"
elif grep -qF 'served with key ***' "$SCRATCH/server.log"; then
    ok "none of the $n_req requests sent it back, though later ones quote those sources"
else
    fail "no request quoted an LLM-born source (the test proves nothing)"
fi

# 2. hostile usage numbers: the budget is reached, not overflowed (the
# proposals are sent at once, so 1 to 4 go out before the first answer)
serve ok --port 0 --answers tests/data/llm-answers/softmax --usage 1e308
$T run $ARGS --generations 8 --template softmax_block $(llm_args) \
    --llm-budget 200k --llm-price 1,1 --runs-dir "$SCRATCH" --name u \
    2>"$SCRATCH/u.err" || { fail "run with hostile usage"; cat "$SCRATCH/u.err"; }
stop_server
n_req=$(wc -l <"$SCRATCH/server.log")
grep -q '"status":"budget".*"why":"token budget spent: [0-9]* of 200000 tokens"' "$SCRATCH/u/journal.jsonl" &&
    grep -q '"tokens_out":1000000000,' "$SCRATCH/u/journal.jsonl" &&
    ! grep -q '"tokens_out":-' "$SCRATCH/u/journal.jsonl" && [ "$n_req" -le 4 ] &&
    ok "usage 1e308 counts as 1e9 tokens: --llm-budget 200k is spent after $n_req request(s) of at most 4" ||
    { fail "hostile usage did not spend the budget"; grep '"type":"llm"' "$SCRATCH/u/journal.jsonl" | head -3; }

# 3. an endpoint that accepts and never answers
serve hang --port 0
t0=$(now)
$T run $LOUD --time 5s --template softmax_block $(llm_args) \
    --runs-dir "$SCRATCH" --name h 2>"$SCRATCH/h.err"
rc=$?; took=$(( $(now) - t0 ))
[ $rc = 0 ] && [ $took -le 9 ] &&
    grep -q "abandoned unanswered (time budget reached)" "$SCRATCH/h.err" &&
    ok "--time 5s ends in ${took}s although no answer ever comes" ||
    { fail "--time 5s with a silent endpoint: exit $rc after ${took}s"; cat "$SCRATCH/h.err"; }
grep -q '"status":[[:space:]]*"abandoned"' "$SCRATCH"/h/llm/*.json &&
    ! grep -q '"status":"abandoned"' "$SCRATCH/h/journal.jsonl" &&
    ok "the pending requests are recorded as abandoned in llm/, not answered in the journal" ||
    fail "no abandoned transcript"
"$KEVO" replay "$SCRATCH/h" >"$SCRATCH/hr.out" 2>&1 && grep -q '^identical' "$SCRATCH/hr.out" &&
    ok "kevo replay of it: $(head -1 "$SCRATCH/hr.out")" ||
    { fail "replay after abandoned requests"; cat "$SCRATCH/hr.out"; }

# the first Ctrl-C while the run waits for an answer
t0=$(now)
$T run $LOUD --generations 4 --template softmax_block $(llm_args) \
    --runs-dir "$SCRATCH" --name s 2>"$SCRATCH/s.err" &
pid=$!
sleep 2
kill -INT $pid
wait $pid; rc=$?; took=$(( $(now) - t0 ))
[ $rc = 130 ] && [ $took -le 6 ] && grep -q "abandoned unanswered (stopped)" "$SCRATCH/s.err" &&
    ok "the first SIGINT ends a run waiting on a silent endpoint (exit 130 after ${took}s)" ||
    { fail "SIGINT while waiting: exit $rc after ${took}s"; cat "$SCRATCH/s.err"; }
stop_server
# the endpoint answers again (same port): resume asks the abandoned ones
serve ok --port "$PORT" --answers tests/data/llm-answers/softmax
$T resume "$SCRATCH/s" --quiet 2>"$SCRATCH/s2.err" ||
    { fail "resume after SIGINT"; cat "$SCRATCH/s2.err"; }
stop_server
"$KEVO" replay "$SCRATCH/s" >"$SCRATCH/sr.out" 2>&1 && grep -q '^identical' "$SCRATCH/sr.out" &&
    grep -q '"type":"llm".*"seq":0,.*"status":"ok"' "$SCRATCH/s/journal.jsonl" &&
    [ "$($T status "$SCRATCH/s" | grep -c 'generation:  3')" = 1 ] &&
    ok "resume asks the abandoned requests again and finishes; replay: $(head -1 "$SCRATCH/sr.out")" ||
    { fail "resume/replay after an abandoned wait"; cat "$SCRATCH/sr.out"; $T status "$SCRATCH/s"; }

# 4. no usable code in any proposal, and no template
serve nocode --port 0
t0=$(now)
$T run $ARGS --time 6s --templates-dir "$SCRATCH/lib/templates" $(llm_args) \
    --runs-dir "$SCRATCH" --name n 2>"$SCRATCH/n.err"
rc=$?; took=$(( $(now) - t0 ))
stop_server
rounds=$(grep -c "This is attempt" "$SCRATCH/server.log")
[ $rc = 1 ] && [ $took -ge 5 ] &&
    grep -q "nothing was evaluated (time budget reached): no usable template in [0-9]* rounds of proposals (last: no_code" "$SCRATCH/n.err" &&
    ok "no usable answer: asked again within --time 6s (${took}s), then exit 1 naming why" ||
    { fail "no usable answers: exit $rc after ${took}s"; cat "$SCRATCH/n.err"; }
[ "$rounds" -ge 4 ] && grep -q 'The last answer was rejected: no_code: no fenced code block' "$SCRATCH/server.log" &&
    ok "the $rounds proposals asked again say what was wrong with the last answer" ||
    fail "proposals asked again: $rounds"
"$KEVO" replay "$SCRATCH/n" >"$SCRATCH/nr.out" 2>&1 && grep -q '^identical' "$SCRATCH/nr.out" &&
    ok "kevo replay of it: identical" || { fail "replay of the no-answer run"; cat "$SCRATCH/nr.out"; }
finish
