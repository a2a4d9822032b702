/*
 * test_records.c - the journal's record codec (records.h) and the run log
 * (runlog.h): every record type survives a round trip through its text
 * with every member; unknown members are ignored; a missing member is an
 * error naming it; truncated lines are errors; the comparison ignores
 * accounting members only; a run log answers recorded results and reports
 * the first divergence with both values; a recording-only log ends where
 * the recording ends.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "check.h"
#include "fsutil.h"
#include "jnl.h"
#include "record.h"
#include "records.h"
#include "runlog.h"
#include "secret.h"

static struct rec_eval sample_eval(void)
{
    struct rec_eval r = {.gen = 3, .idx = 7, .island = 1,
                         .hash = 0x0123456789abcdefULL, .n_params = 2,
                         .n_par = 2, .par = {0x1111, 0xfedcba9876543210ULL},
                         .source = 0xabcdULL, .t = 12.5};
    snprintf(r.tpl, sizeof r.tpl, "sgemm_tiled");
    snprintf(r.names[0], sizeof r.names[0], "BM");
    snprintf(r.names[1], sizeof r.names[1], "BN");
    r.vals[0] = 128;
    r.vals[1] = 64;
    snprintf(r.mutator, sizeof r.mutator, "crossover");
    eval_result_init(&r.r);
    r.r.outcome = EVAL_OK;
    r.r.fitness = 4.5e13;
    r.r.median_ns = 123456.5;
    r.r.min_ns = 120000;
    r.r.spread = 0.01;
    r.r.reps = 20;
    r.r.ratio = 0.93;
    r.r.roofline = 0.5;
    r.r.res.regs = 128;
    snprintf(r.r.detail, sizeof r.r.detail, "ok");
    return r;
}

static char *text_of(const cJSON *o)
{
    return cJSON_PrintUnformatted(o);
}

static void eval_round_trip(void)
{
    struct rec_eval a = sample_eval(), b;
    cJSON *o = rec_eval_json(&a);
    char *t1 = text_of(o), err[128] = "";
    struct record r;
    CHECK(rec_parse_text(t1, &r, err, sizeof err) == KEVO_OK);
    CHECK(r.type == REC_EVAL);
    b = r.u.eval;
    CHECK(b.gen == 3 && b.idx == 7 && b.island == 1);
    CHECK(b.hash == a.hash && b.source == a.source);
    CHECK(!strcmp(b.tpl, "sgemm_tiled") && !strcmp(b.mutator, "crossover"));
    CHECK(b.n_params == 2 && rec_eval_param(&b, "BN", -1) == 64 &&
          rec_eval_param(&b, "XX", -1) == -1);
    CHECK(b.n_par == 2 && b.par[1] == a.par[1]);
    CHECK(b.r.outcome == EVAL_OK && b.r.fitness == 4.5e13 &&
          b.r.median_ns == 123456.5 && b.r.reps == 20 && b.r.res.regs == 128);
    CHECK(b.t == 12.5);
    cJSON *o2 = rec_eval_json(&b);
    char *t2 = text_of(o2);
    CHECK_MSG(!strcmp(t1, t2), "%s\n  vs %s", t1, t2);
    rec_release(&r);
    cJSON_Delete(o);
    cJSON_Delete(o2);
    free(t1);
    free(t2);
}

static void other_round_trips(void)
{
    struct rec_confirm c = {.gen = 4, .challenger = 5, .incumbent = 6,
                            .accept = 1, .ratio = 1.25, .noise = 0.01,
                            .t = 3};
    int isl_n[2] = {2, 1};
    uint64_t mem[3] = {7, 8, 9};
    struct rec_gen g = {.gen = 4, .evals = 99, .children = 12, .has_best = 1,
                        .best = 7, .best_fitness = 2.5, .n_islands = 2,
                        .island_n = isl_n, .members = mem,
                        .archive_cells = 11, .compilers = 3, .t = 4};
    struct rec_llm l = {.gen = 2, .seq = 5, .island = 1, .n_par = 1,
                        .par = {42}, .prompt = 0x99, .has_tpl = 1,
                        .tpl_hash = 0x77, .tokens_in = 100, .tokens_out = 50,
                        .cost_usd = 0.25, .cached = 1, .latency_ms = 900,
                        .t = 8};
    snprintf(l.op, sizeof l.op, "llm_rewrite");
    snprintf(l.key, sizeof l.key, "00000000000000aa");
    snprintf(l.status, sizeof l.status, "ok");
    snprintf(l.verdict, sizeof l.verdict, "ok");
    snprintf(l.why, sizeof l.why, "new template");
    snprintf(l.tpl, sizeof l.tpl, "llm_deadbeef");
    cJSON *objs[3] = {rec_confirm_json(&c), rec_gen_json(&g),
                      rec_llm_json(&l)};
    enum rec_type want[3] = {REC_CONFIRM, REC_GEN, REC_LLM};
    for (int i = 0; i < 3; i++) {
        char *t1 = text_of(objs[i]), err[128] = "";
        struct record r;
        CHECK(rec_parse_text(t1, &r, err, sizeof err) == KEVO_OK);
        CHECK(r.type == want[i]);
        cJSON *o2 = rec_json(&r);
        char *t2 = o2 ? text_of(o2) : NULL;
        CHECK_MSG(t2 && !strcmp(t1, t2), "%s\n  vs %s", t1, t2 ? t2 : "-");
        if (i == 1)
            CHECK(r.u.gen.n_islands == 2 && r.u.gen.island_n[0] == 2 &&
                  r.u.gen.members[2] == 9 && r.u.gen.compilers == 3);
        if (i == 2)
            CHECK(r.u.llm.seq == 5 && r.u.llm.has_tpl &&
                  r.u.llm.tpl_hash == 0x77 && r.u.llm.par[0] == 42);
        rec_release(&r);
        cJSON_Delete(o2);
        cJSON_Delete(objs[i]);
        free(t1);
        free(t2);
    }
}

static void unknown_missing_truncated(void)
{
    struct record r;
    char err[128] = "";
    /* an unknown member (a newer kevo's) is ignored */
    CHECK(rec_parse_text("{\"type\":\"confirm\",\"gen\":1,\"challenger\":"
                         "\"0000000000000001\",\"incumbent\":"
                         "\"0000000000000002\",\"accept\":false,"
                         "\"future\":[1,2]}", &r, err, sizeof err) == 0);
    CHECK(r.type == REC_CONFIRM && !r.u.confirm.accept);
    rec_release(&r);
    /* a missing required member is named */
    CHECK(rec_parse_text("{\"type\":\"confirm\",\"gen\":1,\"challenger\":"
                         "\"0000000000000001\",\"accept\":true}", &r, err,
                         sizeof err) == KEVO_EPARSE);
    CHECK_MSG(strstr(err, "'incumbent'") != NULL, "%s", err);
    CHECK(rec_parse_text("{\"type\":\"eval\",\"gen\":1,\"hash\":\"zz\"}", &r,
                         err, sizeof err) == KEVO_EPARSE);
    CHECK_MSG(strstr(err, "'hash'") != NULL, "%s", err);
    /* an unknown type */
    CHECK(rec_parse_text("{\"type\":\"nope\"}", &r, err, sizeof err) ==
          KEVO_EPARSE);
    CHECK(strstr(err, "type") != NULL);
    /* every truncation of a real record is an error, never a record */
    struct rec_eval a = sample_eval();
    cJSON *o = rec_eval_json(&a);
    char *t = text_of(o);
    size_t n = strlen(t);
    int bad = 0;
    for (size_t k = 0; k < n; k++) {
        char *cut = strndup(t, k);
        if (rec_parse_text(cut, &r, err, sizeof err) != KEVO_EPARSE)
            bad++;
        rec_release(&r);
        free(cut);
    }
    CHECK_MSG(bad == 0, "%d truncations parsed", bad);
    cJSON_Delete(o);
    free(t);
}

static void difference(void)
{
    struct rec_eval a = sample_eval();
    cJSON *x = rec_eval_json(&a);
    a.t = 99;           /* accounting */
    cJSON *y = rec_eval_json(&a);
    cJSON_AddNumberToObject(y, "gpu", 1);
    CHECK(rec_first_difference(x, y) == NULL);
    a.island = 0;       /* a decision */
    cJSON *z = rec_eval_json(&a);
    const char *k = rec_first_difference(x, z);
    CHECK(k && !strcmp(k, "island"));
    cJSON_AddNumberToObject(x, "extra", 1);
    k = rec_first_difference(y, x);
    CHECK(k && !strcmp(k, "extra"));
    CHECK(rec_is_accounting("cost_usd") && !rec_is_accounting("fitness"));
    cJSON_Delete(x);
    cJSON_Delete(y);
    cJSON_Delete(z);
}

/* An eval record carries its evidence as text (the journal copies it,
 * no number printed again) and compares as the object it parses to. */
static void evidence_text(void)
{
    struct rec_eval a = sample_eval();
    /* (a space no print of cJSON's would make: the text is copied) */
    const char *ev = "{\"phase_ms\": {\"load\":0.105622,\"job\":4.22},"
                     "\"floor_ns\":14810.690808058653,\"log\":\"a\\nb\"}";
    a.r.evidence_json = (char *)ev;
    cJSON *x = rec_eval_json(&a);
    char *t = text_of(x);
    CHECK_MSG(t && strstr(t, ev), "%s", t ? t : "(none)");
    cJSON *y = t ? cJSON_Parse(t) : NULL; /* as a replay reads it */
    CHECK(y && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(y, "evidence")));
    CHECK(rec_first_difference(x, y) == NULL &&
          rec_first_difference(y, x) == NULL);
    a.r.evidence_json = "{\"phase_ms\":{\"load\":0.105623,\"job\":4.22},"
                        "\"floor_ns\":14810.690808058653,\"log\":\"a\\nb\"}";
    cJSON *z = rec_eval_json(&a);
    const char *k = rec_first_difference(z, y);
    CHECK(k && !strcmp(k, "evidence"));
    k = rec_first_difference(y, z);
    CHECK(k && !strcmp(k, "evidence"));
    CHECK(record_evidence_ok(ev) && !record_evidence_ok("{\"a\":1} x") &&
          !record_evidence_ok("[1,2]") && !record_evidence_ok("{\"a\":") &&
          !record_evidence_ok("{\"a\":\n1}") &&
          !record_evidence_ok(NULL));
    free(t);
    cJSON_Delete(x);
    cJSON_Delete(y);
    cJSON_Delete(z);
}

/* A "gen" record's compile processes are the session's (kevo status): a
 * journal written before they were recorded, or by a session on other
 * CPUs, resumes and replays as the same decisions. */
static void gen_compilers(void)
{
    struct rec_gen g = {.gen = 1, .evals = 8, .compilers = 16, .t = 2};
    cJSON *a = rec_gen_json(&g);
    g.compilers = 0; /* not recorded: no member */
    cJSON *b = rec_gen_json(&g);
    CHECK(a && b && cJSON_GetObjectItemCaseSensitive(a, "compilers") &&
          !cJSON_GetObjectItemCaseSensitive(b, "compilers"));
    CHECK(rec_first_difference(a, b) == NULL &&
          rec_first_difference(b, a) == NULL);
    CHECK(rec_is_accounting("compilers"));
    static const char *const edited[] = {"-3", "1e300", "2000", "\"x\""};
    for (size_t i = 0; i < sizeof edited / sizeof *edited; i++) {
        char line[256], err[128];
        struct record r;
        snprintf(line, sizeof line, "{\"type\":\"gen\",\"gen\":1,"
                 "\"evals\":8,\"islands\":[],\"compilers\":%s}",
                 edited[i]);
        CHECK(rec_parse_text(line, &r, err, sizeof err) == KEVO_OK);
        CHECK_MSG(r.u.gen.compilers == 0, "compilers %s read as %d",
                  edited[i], r.u.gen.compilers);
        rec_release(&r);
    }
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* A two-record recording: the log answers the first eval from it, reports
 * a produced record that differs, and (recording-only) ends after it. */
static void log_takes_records(void)
{
    struct rec_eval a = sample_eval();
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToArray(arr, rec_eval_json(&a));
    struct runlog_cfg c = {.records = arr, .live = 0};
    struct runlog *rl;
    CHECK(runlog_new(&c, &rl) == KEVO_OK);
    CHECK(runlog_replaying(rl) && !runlog_writes(rl));
    /* the produced record equals the recorded one: taken */
    cJSON *same = rec_eval_json(&a);
    CHECK(runlog_put(rl, same, 0) == KEVO_OK && runlog_pos(rl) == 1);
    /* past the end of a recording-only log: it ends */
    CHECK(runlog_put(rl, same, 0) == KEVO_ESTOPPED && runlog_ended(rl));
    runlog_free(rl);
    /* a produced record with another parent diverges, with both values */
    CHECK(runlog_new(&c, &rl) == KEVO_OK);
    a.par[0] = 0x2222;
    cJSON *other = rec_eval_json(&a);
    CHECK(runlog_put(rl, other, 0) == KEVO_EDIVERGE);
    const struct runlog_divergence *d = runlog_divergence(rl);
    CHECK(d->index == 0 && strstr(d->what, "'parents' differs") &&
          d->recorded && d->produced);
    runlog_free(rl);
    cJSON_Delete(same);
    cJSON_Delete(other);
    cJSON_Delete(arr);
}

/* A live evaluator whose compile log carries a key (an answer that
 * #includes /proc/self/environ): its one result, once cut mid-key. */
static const char leak_key[] = "sk-ant-api03-Leak9xQ2mB7vT4zR";
static int leak_cut;

static int leak_batch(void *self, const struct candidate *const *cands,
                      int n, eval_cb cb, void *ud)
{
    (void)self;
    (void)cands;
    struct eval_result r;
    eval_result_init(&r);
    r.outcome = EVAL_COMPILE_ERROR;
    snprintf(r.detail, sizeof r.detail, "error: static assertion failed: "
             "ANTHROPIC_API_KEY=%.*s", leak_cut ? 14 : 40, leak_key);
    char ev[200];
    snprintf(ev, sizeof ev, "{\"log\":\"environ: X=1 KEY=%s\"}", leak_key);
    r.evidence_json = strdup(ev);
    int stop = n > 0 && cb(ud, 0, &r);
    eval_result_release(&r);
    return stop ? KEVO_ESTOPPED : KEVO_OK;
}

struct leak_ctx {
    struct runlog *rl;
    int saw_key;
};

static int leak_cb(void *ud, int idx, const struct eval_result *r)
{
    struct leak_ctx *x = ud;
    (void)idx;
    x->saw_key |= strstr(r->detail, "Leak9x") != NULL ||
                  (r->evidence_json && strstr(r->evidence_json, "Leak9x"));
    struct rec_eval e = sample_eval();
    e.r = *r;
    cJSON *o = rec_eval_json(&e);
    int rc = runlog_put(x->rl, o, 1);
    cJSON_Delete(o);
    return rc != KEVO_OK;
}

static void log_scrubs_keys(void)
{
    static const struct evaluator_ops ops = {.name = "leak",
                                             .eval_batch = leak_batch};
    char dir[] = "/tmp/kevo-test-records.XXXXXX", path[64], *text = NULL;
    CHECK(mkdtemp(dir) != NULL && secret_add(leak_key) == KEVO_OK);
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    struct jnl *j = NULL;
    CHECK(jnl_create(path, &j) == KEVO_OK);
    for (leak_cut = 0; leak_cut < 2; leak_cut++) {
        struct runlog_cfg c = {.live = 1, .jnl = j, .ev = {&ops, NULL}};
        struct runlog *rl;
        struct leak_ctx x = {NULL, 0};
        struct candidate cand = {0};
        const struct candidate *cp = &cand;
        CHECK(runlog_new(&c, &rl) == KEVO_OK);
        x.rl = rl;
        CHECK(runlog_evaluate(rl, &cp, 1, leak_cb, &x) == KEVO_OK);
        CHECK_MSG(!x.saw_key, "the engine got the key (cut %d)", leak_cut);
        runlog_free(rl);
    }
    jnl_close(j);
    CHECK(fs_read_file(path, &text, NULL) == KEVO_OK);
    CHECK_MSG(text && !strstr(text, "Leak9x") &&
              strstr(text, "ANTHROPIC_API_KEY=***"), "%s", text);
    free(text);
    unlink(path);
    rmdir(dir);
}

/* A live result's evidence reaches the engine as its text when it is one
 * JSON object, and not at all when it is not (as the journal, which could
 * not hold it, will say in a replay). */
static const char *ev_given;

static int ev_batch(void *self, const struct candidate *const *cands, int n,
                    eval_cb cb, void *ud)
{
    (void)self;
    (void)cands;
    struct eval_result r;
    eval_result_init(&r);
    r.outcome = EVAL_OK;
    r.evidence_json = strdup(ev_given);
    int stop = n > 0 && cb(ud, 0, &r);
    eval_result_release(&r);
    return stop ? KEVO_ESTOPPED : KEVO_OK;
}

static int ev_cb(void *ud, int idx, const struct eval_result *r)
{
    (void)idx;
    char **got = ud;
    *got = r->evidence_json ? strdup(r->evidence_json) : NULL;
    return 0;
}

static void live_evidence(void)
{
    static const struct evaluator_ops ops = {.name = "ev",
                                             .eval_batch = ev_batch};
    /* kept as they are; printed again by cJSON (a line break, an escaped
     * printable character: a key so written is scrubbed all the same);
     * dropped */
    static const char *const given[] = {
        "{\"phase_ms\":{\"job\":4.220697},\"fp\":\"cb4f\"}",
        "{\"a\":\n1,\r\n\"b\":\"x\"}",
        "{\"log\":\"KEY=\\u0073k-ant-api03-Leak9xQ2mB7vT4zR \\/ ok\"}",
        "{\"a\":1} trailing", "[1,2]", "{\"a\":", "{\"a\":1}\n{\"b\":2}"};
    static const char *const want[] = {
        "{\"phase_ms\":{\"job\":4.220697},\"fp\":\"cb4f\"}",
        "{\"a\":1,\"b\":\"x\"}", NULL};
    CHECK(secret_add(leak_key) == KEVO_OK);
    for (size_t i = 0; i < sizeof given / sizeof *given; i++) {
        struct runlog_cfg c = {.live = 1, .ev = {&ops, NULL}};
        struct runlog *rl;
        struct candidate cand = {0};
        const struct candidate *cp = &cand;
        char *got = NULL;
        ev_given = given[i];
        CHECK(runlog_new(&c, &rl) == KEVO_OK);
        CHECK(runlog_evaluate(rl, &cp, 1, ev_cb, &got) == KEVO_OK);
        if (i < 2)
            CHECK_MSG(got && !strcmp(got, want[i]), "%s", got ? got : "-");
        else if (i == 2)
            CHECK_MSG(got && !strstr(got, "Leak9x") && !strchr(got, '\n') &&
                          strstr(got, "/ ok"), "%s", got ? got : "-");
        else
            CHECK_MSG(!got, "'%s' reached the engine as '%s'", given[i], got);
        free(got);
        runlog_free(rl);
    }
}

/* best.json and a manifest baseline: the readers' typed views */
static void best_and_baseline(void)
{
    struct rec_eval e = sample_eval();
    struct rec_best a, b;
    char err[128] = "";
    rec_best_from_eval(&e, &a);
    CHECK(a.hash == e.hash && a.fitness == 4.5e13 && a.gen == 3 &&
          a.median_ns == 123456.5 && rec_best_param(&a, "BM", -1) == 128);
    snprintf(a.unit, sizeof a.unit, "FLOP/s");
    cJSON *o = rec_best_json(&a);
    CHECK(o && rec_best_parse(o, &b, err, sizeof err) == KEVO_OK);
    CHECK(b.hash == a.hash && !strcmp(b.tpl, "sgemm_tiled") &&
          b.n_params == 2 && rec_best_param(&b, "BN", -1) == 64 &&
          b.fitness == a.fitness && b.median_ns == a.median_ns &&
          b.ratio == a.ratio && b.gen == 3 && !strcmp(b.unit, "FLOP/s"));
    cJSON_DeleteItemFromObject(o, "hash");
    CHECK(rec_best_parse(o, &b, err, sizeof err) == KEVO_EPARSE &&
          strstr(err, "'hash'"));
    cJSON_Delete(o);
    struct record_baseline bl, in = {"cublas", 25152, 3.2e13, 0};
    cJSON *x = cJSON_CreateObject();
    record_put_baseline(x, &in);
    record_get_baseline(x, &bl);
    CHECK(!strcmp(bl.name, "cublas") && bl.median_ns == 25152 &&
          bl.fitness == 3.2e13);
    record_get_baseline(NULL, &bl);
    CHECK(!bl.name[0] && bl.fitness == 0);
    cJSON_Delete(x);
    rec_eval_release(&e);
}

/* a journal's records all at once: strict stops at the first bad one
 * (its index and the codec's words), lenient leaves it out */
static void parse_all(void)
{
    struct rec_eval e = sample_eval();
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, rec_eval_json(&e));
    cJSON_AddItemToArray(a, cJSON_Parse("{\"type\":\"eval\",\"gen\":1}"));
    e.t = 20;
    cJSON_AddItemToArray(a, rec_eval_json(&e));
    struct record *recs;
    int n, bad = -1;
    char err[128] = "";
    CHECK(rec_parse_all(a, 1, &recs, &n, &bad, err, sizeof err) ==
              KEVO_EPARSE &&
          n == 1 && bad == 1 && strstr(err, "eval record has no valid"));
    rec_release_all(recs, n);
    CHECK(rec_parse_all(a, 0, &recs, &n, &bad, err, sizeof err) == KEVO_OK &&
          n == 2 && recs[1].type == REC_EVAL && rec_time(&recs[0]) == 12.5 &&
          rec_time(&recs[1]) == 20);
    rec_release_all(recs, n);
    cJSON_Delete(a);
    rec_eval_release(&e);
}

/* A foreign journal's numbers never reach a cast out of range: integers
 * clamp, absurd durations read as not recorded. */
static void hostile_numbers(void)
{
    cJSON *o = cJSON_Parse("{\"big\": 1e300, \"neg\": -1e300, \"n\": 42.9,"
                           " \"m\": -7.9, \"s\": \"x\", \"two63\": "
                           "9223372036854775808, \"huge\": 1e400}");
    CHECK(o != NULL);
    CHECK(record_int(o, "big", 3) == INT_MAX);
    CHECK(record_int(o, "neg", 3) == INT_MIN);
    CHECK(record_int(o, "n", 3) == 42 && record_int(o, "m", 3) == -7);
    CHECK(record_int(o, "s", 3) == 3 && record_int(o, "none", -1) == -1);
    CHECK(record_i64(o, "big", 0) == INT64_MAX);
    CHECK(record_i64(o, "neg", 0) == INT64_MIN);
    CHECK(record_i64(o, "two63", 0) == INT64_MAX);
    CHECK(record_i64(o, "n", 0) == 42 && record_i64(o, "s", 5) == 5);
    CHECK(record_ms(o, "n") == 42.9);
    CHECK(record_ms(o, "big") == 0 && record_ms(o, "huge") == 0);
    CHECK(record_ms(o, "m") == 0 && record_ms(o, "s") == 0);
    cJSON_Delete(o);
    /* an eval record edited to absurd values reads without them */
    cJSON *e = cJSON_Parse("{\"outcome\": \"ok\", \"fitness\": 1, "
                           "\"reps\": 1e300, \"ms\": {\"compile\": "
                           "1e300, \"check\": 2.5, \"time\": -4}}");
    struct eval_result r;
    memset(&r, 0, sizeof r);
    CHECK(e && record_get_result(e, &r) == KEVO_OK);
    CHECK(r.reps == INT_MAX && r.compile_ms == 0 && r.check_ms == 2.5 &&
          r.time_ms == 0);
    free(r.evidence_json);
    cJSON_Delete(e);
}

int main(void)
{
    RUN(eval_round_trip, "an eval record survives its text with every member");
    RUN(hostile_numbers, "a journal's out-of-range numbers clamp as integers "
        "and read as not recorded as durations");
    RUN(other_round_trips,
        "confirm, gen and llm records survive their text with every member");
    RUN(unknown_missing_truncated,
        "unknown members are ignored; missing ones and truncated lines are "
        "errors naming what is wrong");
    RUN(best_and_baseline,
        "best.json survives its text; one without 'hash' is an error naming "
        "it; a baseline survives its object and reads with defaults");
    RUN(parse_all, "a journal parses at once: strictly (the first bad record "
        "named by index) or leaving bad records out");
    RUN(difference, "records are compared on decisions, not accounting");
    RUN(live_evidence, "a live result's evidence reaches the engine as its "
        "text when it is one JSON object, else not at all");
    RUN(evidence_text, "an eval record's evidence goes to the journal as its "
        "text and compares as the object it parses to");
    RUN(gen_compilers, "a gen record's compile processes are accounting; "
        "absent, negative or beyond 1024 they read as not recorded");
    RUN(log_scrubs_keys, "a key in a live result's compile log (whole or "
                         "cut) reaches neither the engine nor the journal");
    RUN(log_takes_records,
        "a run log takes matching records, reports the first divergence "
        "with both values, and a recording ends where it ends");
    TEST_DONE();
}
