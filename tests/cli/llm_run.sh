# LLM mutation end to end, against the loopback test server (real HTTP,
# OpenAI wire format) answering with realistic model answers
# (tests/data/llm-answers/): proposals and rewrites become templates that
# the cheap mutators explore; rejected answers are journaled with their
# reason; a run that starts with no template at all is optimized from
# proposals; a better LLM family wins; kevo replay reproduces the decisions;
# a new run with --llm replay:RUN gets the same proposals with no API; a run
# killed and resumed journals what an uninterrupted one does; the key never
# reaches the run directory.
. tests/cli/lib.inc
. tests/cli/llm.inc
# six proposals take the six answers (4 templates, a wrong ABI, no code):
# the one template version on the islands is asked for one rewrite only
echo '{"llm_propose": 6}' >"$SCRATCH/spec.json"
ARGS="--spec $SCRATCH/spec.json --evaluator test --problem softmax \
      --shape 512x1000 --seed 3 --islands 2 --population 6 --offspring 8 --quiet"
llm_seq() { # run-dir -> "op verdict template" per llm record
    grep '"type":"llm"' "$1/journal.jsonl" | sed 's/.*"op":"\([a-z_]*\)".*"verdict":"\([a-z_]*\)".*/\1 \2/'
}

# 1. a run with shipped templates and LLM answers
start_server tests/data/llm-answers/softmax
$T run $ARGS --generations 6 --template softmax_block \
    --llm "openai:test-model@http://127.0.0.1:$PORT/v1" \
    --llm-key-env KEVO_TEST_KEY --runs-dir "$SCRATCH" --name a \
    2>"$SCRATCH/a.err" || { fail "LLM run"; cat "$SCRATCH/a.err"; }
stop_server
J="$SCRATCH/a/journal.jsonl"
n_llm=$(grep -c '"type":"llm"' "$J")
n_req=$(grep -c '"path":"/v1/chat/completions"' "$SCRATCH/server.log")
[ "$n_llm" -ge 6 ] && [ "$n_req" -ge 4 ] &&
    ok "every LLM answer is journaled ($n_llm records; $n_req HTTP requests, identical prompts asked once)" ||
    fail "llm records: $n_llm, requests: $n_req"
grep -q '"op":"llm_propose".*"verdict":"ok".*"template":"llm_' "$J" &&
    ok "a proposal becomes a new template" || fail "no proposal template"
grep -q '"verdict":"bad_abi".*"why":"kernel .softmax_warp. has 4 parameters' "$J" &&
    grep -q '"verdict":"no_code"' "$J" &&
    ok "answers with the wrong ABI or no code are rejected with their reason" ||
    fail "rejections not journaled"
grep -q '"template":"llm_[0-9a-f]*".*"mutator":"llm_propose"' "$J" &&
    ok "an LLM template's default point is evaluated" || fail "no LLM child"
grep -q '"template":"llm_[0-9a-f]*".*"mutator":"tweak"' "$J" &&
    ok "the cheap mutators explore LLM templates' parameter spaces" ||
    fail "no tweak of an LLM template"
grep -rqF "$KEVO_TEST_KEY" "$SCRATCH/a" "$SCRATCH/a.err" &&
    fail "the API key reached the run directory" ||
    ok "the API key appears nowhere in the run directory or the output"
ls "$SCRATCH"/a/llm/*.json >/dev/null 2>&1 && [ -s "$SCRATCH/a/llm/index.jsonl" ] &&
    ok "requests and answers are stored content-addressed in llm/" ||
    fail "no transcripts"

# 2. replay proves the decisions, LLM answers included
"$KEVO" replay "$SCRATCH/a" >"$SCRATCH/replay.out" 2>&1 &&
    grep -q '^identical' "$SCRATCH/replay.out" &&
    ok "kevo replay of an LLM run: $(head -1 "$SCRATCH/replay.out")" ||
    { fail "replay of an LLM run"; cat "$SCRATCH/replay.out"; }

# 3. the same experiment re-run from the recorded answers, no API
$T run $ARGS --generations 6 --template softmax_block \
    --llm "replay:$SCRATCH/a" --runs-dir "$SCRATCH" --name b \
    2>"$SCRATCH/b.err" || { fail "replay-provider run"; cat "$SCRATCH/b.err"; }
llm_seq "$SCRATCH/a" >"$SCRATCH/a.seq"
llm_seq "$SCRATCH/b" >"$SCRATCH/b.seq"
grep -o '"template":"llm_[0-9a-f]*"' "$J" >"$SCRATCH/a.tpl"
grep -o '"template":"llm_[0-9a-f]*"' "$SCRATCH/b/journal.jsonl" >"$SCRATCH/b.tpl"
cmp -s "$SCRATCH/a.seq" "$SCRATCH/b.seq" && cmp -s "$SCRATCH/a.tpl" "$SCRATCH/b.tpl" &&
    ok "--llm replay:RUN gives the same sequence of proposals ($(wc -l <"$SCRATCH/a.seq") answers)" ||
    fail "replay provider gave other proposals"

# 4. killed and resumed = uninterrupted (answers from the replay provider),
# at several kill points: the resumed run must re-ask its pending requests
# under their own numbers and see the answers its journal recorded
$CANON "$SCRATCH/b/journal.jsonl" | grep -v '"type":"llm"' >"$SCRATCH/b.canon"
bad=0
for at in 0.15 0.3 0.45 0.6 0.8; do
    rm -rf "$SCRATCH/k"
    KEVO_TEST_EVAL_US=3000 $T run $ARGS --generations 6 --template softmax_block \
        --llm "replay:$SCRATCH/a" --runs-dir "$SCRATCH" --name k 2>/dev/null &
    KPID=$!
    sleep $at
    kill -9 $KPID 2>/dev/null
    wait $KPID 2>/dev/null
    if ! $T resume "$SCRATCH/k" --quiet 2>"$SCRATCH/k.err"; then
        bad=1; echo "killed at ${at}s: resume failed"; cat "$SCRATCH/k.err"; continue
    fi
    $CANON "$SCRATCH/k/journal.jsonl" | grep -v '"type":"llm"' >"$SCRATCH/k.canon"
    llm_seq "$SCRATCH/k" >"$SCRATCH/k.seq"
    cmp -s "$SCRATCH/b.canon" "$SCRATCH/k.canon" && cmp -s "$SCRATCH/b.seq" "$SCRATCH/k.seq" ||
        { bad=1; echo "killed at ${at}s: the resumed run differs"; }
done
[ $bad = 0 ] &&
    ok "an LLM run killed with kill -9 (at 5 points) and resumed journals what an uninterrupted one does" ||
    fail "resumed LLM run differs or failed"

# 5. no template at all: the population comes from proposals
mkdir -p "$SCRATCH/lib/templates/gemm"
cp templates/gemm/gemm_naive.cu "$SCRATCH/lib/templates/gemm/"
start_server tests/data/llm-answers/softmax
$T run $ARGS --generations 4 --templates-dir "$SCRATCH/lib/templates" \
    --llm "openai:test-model@http://127.0.0.1:$PORT/v1" \
    --llm-key-env KEVO_TEST_KEY --runs-dir "$SCRATCH" --name p \
    2>"$SCRATCH/p.err" || { fail "proposals-only run"; cat "$SCRATCH/p.err"; }
stop_server
grep -q '"template":[[:space:]]*"llm_' "$SCRATCH/p/best.json" 2>/dev/null &&
    [ "$(grep -c '"type":"eval".*"gen":0' "$SCRATCH/p/journal.jsonl")" -ge 1 ] &&
    ok "a problem with no template is optimized from LLM proposals alone" ||
    { fail "proposals-only run found no best"; cat "$SCRATCH/p.err"; }

# 6. a better LLM family wins
start_server tests/data/llm-answers/speedup
$T run $ARGS --generations 5 --template softmax_block \
    --llm "openai:test-model@http://127.0.0.1:$PORT/v1" \
    --llm-key-env KEVO_TEST_KEY --runs-dir "$SCRATCH" --name w \
    2>"$SCRATCH/w.err" || { fail "speedup run"; cat "$SCRATCH/w.err"; }
stop_server
grep -q '"template":[[:space:]]*"llm_' "$SCRATCH/w/best.json" 2>/dev/null &&
    ok "an LLM-proposed family that is faster becomes the best" ||
    { fail "the faster LLM family did not win"; cat "$SCRATCH/w/best.json"; }

# 7. an unreachable or refusing API stops LLM mutation, not the run
$T run $ARGS --generations 3 --template softmax_block \
    --llm "openai:test-model@http://127.0.0.1:9/v1" --llm-key-env KEVO_TEST_KEY \
    --runs-dir "$SCRATCH" --name u 2>"$SCRATCH/u.err" &&
    [ -s "$SCRATCH/u/best.json" ] &&
    ok "with the API unreachable the run finishes with the cheap mutators" ||
    { fail "unreachable API broke the run"; cat "$SCRATCH/u.err"; }
finish
