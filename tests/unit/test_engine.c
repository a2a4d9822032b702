/*
 * test_engine.c - the evolutionary engine driven by the deterministic test
 * evaluator: determinism, no duplicates, elitism, budgets, replay from a
 * journal, divergence detection, migration, and the mutators.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive.h"
#include "check.h"
#include "engine.h"
#include "fsutil.h"
#include "hash.h"
#include "jnl.h"
#include "mutator.h"
#include "record.h"
#include "testeval.h"

extern const struct mutator mut_tweak;
extern const struct mutator mut_crossover;

static const char tpl_a[] =
    "// kevo: problem gemm\n"
    "// kevo: dtypes fp32\n"
    "// kevo: param BM 16 32 64 128 default=64\n"
    "// kevo: param BN 16 32 64 128 default=64\n"
    "// kevo: param TM 1 2 4 8 default=4\n"
    "// kevo: param UNROLL 1 2 4 default=2\n"
    "// kevo: constraint (BM / TM) * BN <= 1024\n"
    "// kevo: launch ka\n"
    "// kevo: grid cdiv(N, BN), cdiv(M, BM)\n"
    "// kevo: block (BM / TM) * BN\n"
    "extern \"C\" __global__ void ka(const elem_t *A, const elem_t *B,\n"
    "    elem_t *C, int M, int N, int K, void *ws)\n"
    "{ int x = BM + BN + TM + UNROLL; (void)x; }\n";

static const char tpl_b[] =
    "// kevo: problem gemm\n"
    "// kevo: dtypes fp32\n"
    "// kevo: param TILE 8 16 32 default=16\n"
    "// kevo: param PAD 0 1 default=0\n"
    "// kevo: launch kb\n"
    "// kevo: grid cdiv(N, TILE), cdiv(M, TILE)\n"
    "// kevo: block TILE, TILE\n"
    "extern \"C\" __global__ void kb(const elem_t *A, const elem_t *B,\n"
    "    elem_t *C, int M, int N, int K, void *ws)\n"
    "{ int x = TILE + PAD; (void)x; }\n";

struct fixture {
    struct tpl *tpls[2];
    struct spec spec;
    char dir[256];
    struct testeval_stats stats;
};

static void fixture_init(struct fixture *f, uint64_t seed)
{
    char err[512];
    memset(f, 0, sizeof *f);
    if (tpl_parse("ka", NULL, tpl_a, &f->tpls[0], err, sizeof err) ||
        tpl_parse("kb", NULL, tpl_b, &f->tpls[1], err, sizeof err)) {
        fprintf(stderr, "fixture template: %s\n", err);
        exit(1);
    }
    spec_defaults(&f->spec);
    snprintf(f->spec.problem, sizeof f->spec.problem, "gemm");
    f->spec.shape = (struct shape){3, {1000, 1000, 1000}};
    f->spec.seed = seed;
    f->spec.islands = 3;
    f->spec.population = 6;
    f->spec.offspring = 6;
    f->spec.migrate_every = 2;
    f->spec.init_random = 4;
    f->spec.max_generations = 8;
    snprintf(f->dir, sizeof f->dir, "/tmp/kevo-test-engine.XXXXXX");
    if (!mkdtemp(f->dir))
        exit(1);
    char src[300];
    snprintf(src, sizeof src, "%s/sources", f->dir);
    if (fs_mkdirs(src))
        exit(1);
}

static void fixture_release(struct fixture *f)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd))
        fprintf(stderr, "cannot remove %s\n", f->dir);
    tpl_free(f->tpls[0]);
    tpl_free(f->tpls[1]);
}

/* Runs the engine over f, journaling to f->dir/journal.jsonl (or, with
 * existing != NULL, replaying without a journal). */
static int run_engine(struct fixture *f, const cJSON *existing,
                      struct engine_stats *st)
{
    struct evaluator ev;
    struct jnl *j = NULL;
    char path[300], err[512];
    snprintf(path, sizeof path, "%s/journal.jsonl", f->dir);
    if (testeval_new(&ev, &f->stats) || (!existing && jnl_create(path, &j)))
        return -1;
    struct runlog_cfg lc = {.records = existing, .live = 1, .jnl = j,
                            .ev = ev, .llm_dir = f->dir};
    struct runlog *log;
    if (runlog_new(&lc, &log))
        return -1;
    struct engine_env env = {
        .spec = &f->spec, .problem = problem_find("gemm"), .tpls = f->tpls,
        .n_tpls = 2, .dev = tpl_device_default, .log = log, .run_dir = f->dir};
    struct engine *e;
    int rc = engine_new(&env, NULL, &e, err, sizeof err);
    if (!rc) {
        rc = engine_run(e, err, sizeof err);
        *st = *engine_stats(e);
        engine_free(e);
    }
    runlog_free(log);
    if (rc)
        fprintf(stderr, "  engine: %s\n", err);
    jnl_close(j);
    ev.ops->destroy(ev.self);
    return rc;
}

static cJSON *journal(struct fixture *f)
{
    char path[300], err[512];
    cJSON *r = NULL;
    snprintf(path, sizeof path, "%s/journal.jsonl", f->dir);
    if (jnl_read_all(path, &r, err, sizeof err))
        fprintf(stderr, "  %s\n", err);
    return r;
}

/* Journal text without wall-clock members (a gen record's engine_ms
 * too). */
static char *canon(cJSON *recs)
{
    cJSON *r;
    cJSON_ArrayForEach(r, recs)
    {
        cJSON_DeleteItemFromObjectCaseSensitive(r, "t");
        cJSON_DeleteItemFromObjectCaseSensitive(r, "ms");
        cJSON_DeleteItemFromObjectCaseSensitive(r, "engine_ms");
    }
    return cJSON_PrintUnformatted(recs);
}

static void test_same_seed_same_journal(void)
{
    struct fixture a, b;
    struct engine_stats sa, sb;
    fixture_init(&a, 42);
    fixture_init(&b, 42);
    CHECK(run_engine(&a, NULL, &sa) == KEVO_OK);
    CHECK(run_engine(&b, NULL, &sb) == KEVO_OK);
    cJSON *ja = journal(&a), *jb = journal(&b);
    char *ta = canon(ja), *tb = canon(jb);
    CHECK(ta && tb && !strcmp(ta, tb));
    CHECK(sa.evals > 50 && sa.evals == sb.evals);
    free(ta);
    free(tb);
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    /* another seed takes other decisions */
    struct fixture c;
    struct engine_stats sc;
    fixture_init(&c, 43);
    CHECK(run_engine(&c, NULL, &sc) == KEVO_OK);
    cJSON *jc = journal(&c), *ja2 = journal(&a);
    char *tc = canon(jc), *ta2 = canon(ja2);
    CHECK(tc && ta2 && strcmp(tc, ta2));
    free(tc);
    free(ta2);
    cJSON_Delete(jc);
    cJSON_Delete(ja2);
    fixture_release(&a);
    fixture_release(&b);
    fixture_release(&c);
}

static void test_no_genome_twice(void)
{
    struct fixture f;
    struct engine_stats st;
    fixture_init(&f, 5);
    f.spec.max_generations = 30; /* small spaces: forces duplicates */
    CHECK(run_engine(&f, NULL, &st) == KEVO_OK);
    cJSON *j = journal(&f), *r;
    struct seen_list {
        uint64_t h[4096];
        int n;
    } *s = calloc(1, sizeof *s);
    int dups = 0, evals = 0;
    cJSON_ArrayForEach(r, j)
    {
        const char *t = record_str(r, "type"), *h = record_str(r, "hash");
        uint64_t v;
        if (!t || strcmp(t, "eval") || !h || hash_parse(h, &v))
            continue;
        evals++;
        for (int i = 0; i < s->n; i++)
            dups += s->h[i] == v;
        if (s->n < 4096)
            s->h[s->n++] = v;
    }
    CHECK(evals == st.evals && evals > 100);
    CHECK(dups == 0);
    /* both templates' spaces are finite: the engine must notice */
    free(s);
    cJSON_Delete(j);
    fixture_release(&f);
}

static void test_best_never_lost(void)
{
    struct fixture f;
    struct engine_stats st;
    fixture_init(&f, 9);
    CHECK(run_engine(&f, NULL, &st) == KEVO_OK);
    cJSON *j = journal(&f), *r;
    double last = 0, best_eval = 0;
    int gens = 0, monotonic = 1;
    cJSON_ArrayForEach(r, j)
    {
        const char *t = record_str(r, "type");
        if (t && !strcmp(t, "eval") && record_num(r, "fitness", 0) > best_eval)
            best_eval = record_num(r, "fitness", 0);
        if (!t || strcmp(t, "gen"))
            continue;
        gens++;
        double b = record_num(r, "best_fitness", 0);
        monotonic &= b >= last;
        last = b;
    }
    CHECK(gens == 8);
    CHECK(monotonic);
    CHECK(st.best_fitness > 0 && st.best_fitness <= best_eval);
    CHECK(st.outcomes[EVAL_OK] + st.outcomes[EVAL_WRONG] +
              st.outcomes[EVAL_COMPILE_ERROR] + st.outcomes[EVAL_CRASHED] ==
          st.evals);
    cJSON_Delete(j);
    fixture_release(&f);
}

static void test_eval_budget_exact(void)
{
    struct fixture f;
    struct engine_stats st;
    fixture_init(&f, 11);
    f.spec.max_generations = 0;
    f.spec.max_evals = 37;
    CHECK(run_engine(&f, NULL, &st) == KEVO_OK);
    CHECK(st.evals == 37);
    CHECK(st.stop == STOP_EVALS);
    fixture_release(&f);
}

static void replay_once(const char *init, int want_confirms)
{
    struct fixture f;
    struct engine_stats st, st2;
    fixture_init(&f, 21);
    snprintf(f.spec.init, sizeof f.spec.init, "%s", init);
    CHECK(run_engine(&f, NULL, &st) == KEVO_OK);
    long live = f.stats.evaluated, confirms = f.stats.confirms;
    CHECK(live == st.evals && (confirms > 0) >= want_confirms);
    cJSON *j = journal(&f);
    CHECK(run_engine(&f, j, &st2) == KEVO_OK);
    CHECK(f.stats.evaluated == live);   /* nothing evaluated again */
    CHECK(f.stats.confirms == confirms);
    CHECK(st2.evals == st.evals && st2.best_hash == st.best_hash);
    CHECK(st2.best_fitness == st.best_fitness);
    cJSON_Delete(j);
    fixture_release(&f);
}

static void test_replay_evaluates_nothing(void)
{
    /* (with a hypercube first, template kb's 6 points are all in
     * generation 0 and its best is the space's: no confirmation later) */
    replay_once("random", 1);
    replay_once("lhs", 0);
}

static void test_divergence_reported(void)
{
    struct fixture f;
    struct engine_stats st;
    fixture_init(&f, 23);
    CHECK(run_engine(&f, NULL, &st) == KEVO_OK);
    cJSON *j = journal(&f);
    cJSON *rec = cJSON_GetArrayItem(j, 20);
    while (rec && strcmp(record_str(rec, "type"), "eval"))
        rec = rec->next;
    CHECK(rec != NULL);
    if (rec)
        cJSON_ReplaceItemInObject(rec, "hash",
                                  cJSON_CreateString("0123456789abcdef"));
    CHECK(run_engine(&f, j, &st) == KEVO_EDIVERGE);
    cJSON_Delete(j);
    fixture_release(&f);
}

static void test_migration_shares_the_best(void)
{
    struct fixture f;
    struct engine_stats st;
    fixture_init(&f, 31);
    CHECK(run_engine(&f, NULL, &st) == KEVO_OK);
    cJSON *j = journal(&f), *r;
    int shared = 0;
    cJSON_ArrayForEach(r, j)
    {
        const char *t = record_str(r, "type");
        if (!t || strcmp(t, "gen") || (int)record_num(r, "gen", 0) % 2)
            continue;
        const cJSON *isl = cJSON_GetObjectItemCaseSensitive(r, "islands");
        const cJSON *a = cJSON_GetArrayItem(isl, 0), *b = cJSON_GetArrayItem(isl, 1);
        const cJSON *first = cJSON_GetArrayItem(a, 0), *x;
        cJSON_ArrayForEach(x, b) if (first && !strcmp(x->valuestring,
                                                      first->valuestring))
            shared++;
    }
    CHECK(shared > 0);
    cJSON_Delete(j);
    fixture_release(&f);
}

static void test_tweak_steps_to_neighbours(void)
{
    struct fixture f;
    fixture_init(&f, 1);
    struct rng r;
    rng_seed(&r, 77);
    struct mut_ctx ctx = {&r, f.tpls, 2, &tpl_device_default, 1};
    struct genome p = {.tpl = 0}, c;
    tpl_default_point(f.tpls[0], p.vals);
    const struct genome *par[2] = {&p, NULL};
    int far = 0, invalid = 0, same = 0;
    for (int i = 0; i < 500; i++) {
        CHECK(mut_tweak.apply(&ctx, par, &c) == 0);
        int changed = 0;
        for (int k = 0; k < f.tpls[0]->n_params; k++) {
            int d = tpl_value_index(f.tpls[0], k, c.vals[k]) -
                    tpl_value_index(f.tpls[0], k, p.vals[k]);
            changed += d != 0;
            far += d > 1 || d < -1;
        }
        same += changed == 0;
        invalid += !tpl_point_valid(f.tpls[0], c.vals, &tpl_device_default);
    }
    CHECK(invalid == 0 && same == 0);
    CHECK(far > 0 && far < 200); /* mostly neighbours, some jumps */
    fixture_release(&f);
}

/* A switch on by default that only applies with CL == 2: stepping CL must
 * not be a dead end (the step is repaired by turning the switch off). */
static const char tpl_sw[] =
    "// kevo: problem gemm\n"
    "// kevo: dtypes fp32\n"
    "// kevo: param CL 1 2 4 default=2\n"
    "// kevo: param SW 0 1 default=1\n"
    "// kevo: param T 16 32 64 default=32\n"
    "// kevo: constraint !SW || CL == 2\n"
    "// kevo: launch ks\n"
    "// kevo: grid cdiv(N, T), cdiv(M, T)\n"
    "// kevo: block T\n"
    "extern \"C\" __global__ void ks(const elem_t *A, const elem_t *B,\n"
    "    elem_t *C, int M, int N, int K, void *ws)\n"
    "{ int x = CL + SW + T; (void)x; }\n";

static void test_tweak_repairs_a_broken_constraint(void)
{
    struct tpl *t = NULL;
    char err[512];
    CHECK_MSG(tpl_parse("ks", NULL, tpl_sw, &t, err, sizeof err) == 0, "%s",
              err);
    if (!t)
        return;
    struct rng r;
    rng_seed(&r, 5);
    struct tpl *tp[1] = {t};
    struct mut_ctx ctx = {&r, tp, 1, &tpl_device_default, 1};
    struct genome p = {.tpl = 0}, c;
    tpl_default_point(t, p.vals);
    const struct genome *par[2] = {&p, NULL};
    int moved[2] = {0, 0};
    for (int repair = 1; repair >= 0; repair--) {
        ctx.repair = repair;
        int invalid = 0, t_kept = 0;
        for (int i = 0; i < 300; i++) {
            CHECK(mut_tweak.apply(&ctx, par, &c) == 0);
            invalid += !tpl_point_valid(t, c.vals, &tpl_device_default);
            if (c.vals[0] != 2) { /* CL left 2: SW off */
                moved[repair]++;
                CHECK(c.vals[1] == 0);
                t_kept += c.vals[2] == 32;
            }
        }
        CHECK(invalid == 0);
        /* the repair moved SW, not T (without it: both stepped at once) */
        CHECK(!repair || t_kept > moved[repair] / 2);
    }
    /* without the repair (runs before session 13) only a two-parameter
     * step that happens to turn SW off leaves CL = 2 */
    CHECK_MSG(moved[1] > 50 && moved[1] > 2 * moved[0],
              "CL stepped away from 2 in %d of 300 (%d without repair)",
              moved[1], moved[0]);
    tpl_free(t);
}

static void test_crossover_mixes_parents(void)
{
    struct fixture f;
    fixture_init(&f, 1);
    struct rng r;
    rng_seed(&r, 78);
    struct mut_ctx ctx = {&r, f.tpls, 2, &tpl_device_default, 1};
    struct genome a = {.tpl = 0, .vals = {16, 16, 1, 1}};
    struct genome b = {.tpl = 0, .vals = {128, 128, 8, 4}}, c;
    const struct genome *par[2] = {&a, &b};
    for (int i = 0; i < 200; i++) {
        if (mut_crossover.apply(&ctx, par, &c))
            continue;
        for (int k = 0; k < 4; k++)
            CHECK(c.vals[k] == a.vals[k] || c.vals[k] == b.vals[k]);
        CHECK(tpl_point_valid(f.tpls[0], c.vals, &tpl_device_default));
    }
    struct genome other = {.tpl = 1};
    const struct genome *mixed[2] = {&a, &other};
    CHECK(mut_crossover.apply(&ctx, mixed, &c) == -1);
    fixture_release(&f);
}

static void test_archive_keeps_best_per_cell(void)
{
    struct archive a;
    archive_init(&a);
    struct archive_desc d1 = {0, 8, 0, 1}, d2 = {0, 7, 0, 1};
    struct genome g1 = {.hash = 1}, g2 = {.hash = 2}, g3 = {.hash = 3};
    CHECK(archive_offer(&a, &d1, &g1, 10) == 1);
    CHECK(archive_offer(&a, &d1, &g2, 5) == 0);  /* worse, same cell */
    CHECK(archive_offer(&a, &d1, &g3, 20) == 1); /* better replaces */
    CHECK(archive_offer(&a, &d2, &g2, 5) == 1);  /* new cell */
    CHECK(a.n == 2);
    cJSON *j = archive_to_json(&a);
    struct archive b;
    archive_init(&b);
    CHECK(archive_from_json(&b, j) == KEVO_OK && b.n == 2);
    archive_release(&a);
    archive_release(&b);
    cJSON_Delete(j);
}

/* Generation 0 of template ka from the journal: how many points, and how
 * many values of its parameters none of them has. */
static void gen0_cover(struct fixture *f, int *n, int *missed)
{
    cJSON *j = journal(f), *r;
    int hit[4][8] = {{0}};
    static const char *const names[4] = {"BM", "BN", "TM", "UNROLL"};
    *n = 0;
    cJSON_ArrayForEach(r, j)
    {
        const char *t = record_str(r, "type"), *tp = record_str(r, "template");
        if (!t || strcmp(t, "eval") || record_num(r, "gen", -1) != 0 ||
            strcmp(tp, "ka"))
            continue;
        (*n)++;
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "params");
        for (int k = 0; k < 4; k++) {
            int at = tpl_value_index(f->tpls[0], k,
                                     (int64_t)record_num(p, names[k], -1));
            if (at >= 0)
                hit[k][at] = 1;
        }
    }
    *missed = 0;
    for (int k = 0; k < 4; k++)
        for (int v = 0; v < f->tpls[0]->params[k].n_values; v++)
            *missed += !hit[k][v];
    cJSON_Delete(j);
}

static void test_first_generation_fills_the_space(void)
{
    struct fixture f;
    struct engine_stats st;
    int n, missed, n_old = 0, missed_old = 0;
    for (uint64_t seed = 1; seed <= 10; seed++) {
        fixture_init(&f, seed);
        f.spec.max_generations = 1;
        CHECK(run_engine(&f, NULL, &st) == KEVO_OK);
        gen0_cover(&f, &n, &missed);
        /* the default point + 3 per parameter (4 x 3 = 12 > 4 + 1) */
        CHECK_MSG(n >= 12 && n <= 13, "seed %llu: %d points",
                  (unsigned long long)seed, n);
        CHECK_MSG(missed == 0, "seed %llu: %d values never tried",
                  (unsigned long long)seed, missed);
        fixture_release(&f);
        /* runs recorded before: 1 + init_random random points */
        fixture_init(&f, seed);
        f.spec.max_generations = 1;
        snprintf(f.spec.init, sizeof f.spec.init, "random");
        CHECK(run_engine(&f, NULL, &st) == KEVO_OK);
        gen0_cover(&f, &n, &missed);
        n_old += n;
        missed_old += missed;
        fixture_release(&f);
    }
    CHECK(n_old <= 50);
    CHECK(missed_old > 0); /* what the hypercube is for */
}

/* Mean log fitness of the correct children after generation 0, and the
 * journal's canonical text. */
static double offspring_quality(struct fixture *f, char **text)
{
    cJSON *j = journal(f), *r;
    double sum = 0;
    int n = 0;
    cJSON_ArrayForEach(r, j)
    {
        const char *t = record_str(r, "type"), *o = record_str(r, "outcome");
        if (t && !strcmp(t, "eval") && record_num(r, "gen", 0) > 0 && o &&
            !strcmp(o, "ok")) {
            sum += log(record_num(r, "fitness", 1));
            n++;
        }
    }
    *text = canon(j);
    cJSON_Delete(j);
    return n ? sum / n : 0;
}

static void test_surrogate_screens_offspring(void)
{
    double with = 0, without = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        struct fixture a, b, c;
        struct engine_stats st;
        char *ta, *tb, *tc;
        fixture_init(&a, seed);
        fixture_init(&b, seed);
        fixture_init(&c, seed);
        a.spec.max_generations = b.spec.max_generations = 4;
        c.spec.max_generations = 4;
        a.spec.surrogate = b.spec.surrogate = 4;
        c.spec.surrogate = 0;
        CHECK(run_engine(&a, NULL, &st) == KEVO_OK);
        CHECK(run_engine(&b, NULL, &st) == KEVO_OK);
        CHECK(run_engine(&c, NULL, &st) == KEVO_OK);
        with += offspring_quality(&a, &ta);
        offspring_quality(&b, &tb);
        without += offspring_quality(&c, &tc);
        CHECK(ta && tb && !strcmp(ta, tb)); /* deterministic */
        CHECK(tc && strcmp(ta, tc));        /* and it decides something */
        free(ta);
        free(tb);
        free(tc);
        fixture_release(&a);
        fixture_release(&b);
        fixture_release(&c);
    }
    CHECK_MSG(with > without, "mean log fitness %g with, %g without",
              with / 8, without / 8);
}

int main(void)
{
    RUN(test_same_seed_same_journal, "one seed fixes every choice");
    RUN(test_no_genome_twice, "no genome is evaluated twice in a run");
    RUN(test_best_never_lost, "elitism: the best never gets worse");
    RUN(test_eval_budget_exact, "the evaluation budget is exact");
    RUN(test_replay_evaluates_nothing,
        "a run replayed from its journal evaluates nothing again");
    RUN(test_divergence_reported,
        "a journal that differs from the engine is reported");
    RUN(test_migration_shares_the_best,
        "migration brings an island's best to the next island");
    RUN(test_tweak_steps_to_neighbours,
        "tweak steps to valid neighbouring values");
    RUN(test_tweak_repairs_a_broken_constraint,
        "tweak repairs a step that breaks a constraint");
    RUN(test_crossover_mixes_parents,
        "crossover takes each parameter from a parent of one template");
    RUN(test_archive_keeps_best_per_cell,
        "the archive keeps the best kernel per descriptor cell");
    RUN(test_first_generation_fills_the_space,
        "generation 0 is a Latin hypercube that tries every value of "
        "every parameter");
    RUN(test_surrogate_screens_offspring,
        "the surrogate picks better offspring, the same for the same seed");
    TEST_DONE();
}
