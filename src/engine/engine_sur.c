/*
 * engine_sur.c - the engine's surrogate (issue 13): every measured point
 * of the run, in journal order, and a random forest (surrogate.h) fitted
 * to them once per generation, which rates offspring before they cost an
 * evaluation (engine.c draws a larger pool and keeps the best rated).
 *
 * Target: log fitness for a correct point; a failed one (compile error,
 * wrong, crash, ...) counts as one e-fold below the slowest correct point
 * seen, so failures form their own low class and the forest learns where
 * they lie. Features: per template an indicator and its parameters' value
 * indices (SUR_MISSING for another template's parameters). The forest's
 * seed is derived from the run's seed and the generation, and the data is
 * the journal's, so a resumed or replayed run fits the same forest. With
 * spec forest_apart each tree has a PRNG of its own and the trees grow on
 * the engine's CPUs at once: the fit is most of the engine's time
 * between two generations, while every GPU waits (issue 32).
 */
#include "engine_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpus.h"
#include "hash.h"
#include "record.h"
#include "surrogate.h"

#define SUR_MIN_OK 6       /* correct points needed before fitting */
#define SUR_MAX_TRAIN 3000 /* the best half and the latest half of these */
#define SUR_KAPPA 1.0      /* exploration bonus per tree disagreement */

/* Score bonus (log fitness) of a point whose binary the run already has:
 * it differs from a measured point only in launch-only parameters (tpl.h
 * "arg"), so it costs a check and a timing but no compile (NVRTC 0.5-4 s
 * a point against 7-33 ms on the GPU for fp32 GEMM and softmax, issue 32).
 * The search still ranks by predicted fitness; a free point goes ahead of
 * compiled ones predicted up to e^0.3 = 1.35x better. Chosen on the test
 * evaluator's landscape (sgemm_warptile, 6 seeds, best found within a cost
 * of 1.8 s a compile + 0.04 s an evaluation): 0.3 found a better or equal
 * best than no bonus in every seed at 100, 250 and 500 s (better in 6 of 6
 * at 250 s), with 1.65 evaluations a compile against 1.38; 0.05 was worse
 * at 500 s in 3 seeds. */
#define SUR_CHEAP 0.3

/* Hash of what a point's compile depends on: its template and the values
 * of the params that are not launch-only. */
static uint64_t compile_key(const struct tpl *t, const int64_t *vals)
{
    uint64_t h = hash_u64(HASH_SEED ^ 0x636b6579ULL, t->hash);
    for (int i = 0; i < t->n_params; i++)
        if (!t->params[i].launch_only)
            h = hash_u64(h, (uint64_t)vals[i]);
    return hash_final(h);
}

int engine_sur_note_compiling(struct engine *e, int tpl, const int64_t *vals)
{
    if (e->env.spec->surrogate < 2 || tpl < 0)
        return KEVO_OK;
    if (!e->has_compiled) {
        if (seen_init(&e->compiled))
            return KEVO_ENOMEM;
        e->has_compiled = 1;
    }
    return seen_add(&e->compiled, compile_key(e->tpls[tpl], vals));
}

uint64_t engine_sur_binary(const struct engine *e, const struct genome *g,
                           int *have)
{
    uint64_t k = compile_key(e->tpls[g->tpl], g->vals);
    *have = e->has_compiled && seen_has(&e->compiled, k);
    return k;
}

int engine_sur_note(struct engine *e, int tpl, const int64_t *vals,
              enum eval_outcome o, double fitness)
{
    if (e->env.spec->surrogate < 2 || tpl < 0)
        return KEVO_OK;
    if (engine_sur_note_compiling(e, tpl, vals))
        return KEVO_ENOMEM;
    if (e->n_hist == e->cap_hist) {
        long cap = e->cap_hist ? e->cap_hist * 2 : 256;
        void *p = realloc(e->hist, sizeof *e->hist * (size_t)cap);
        if (!p)
            return KEVO_ENOMEM;
        e->hist = p;
        e->cap_hist = cap;
    }
    struct sur_hist *h = &e->hist[e->n_hist];
    const struct tpl *t = e->tpls[tpl];
    memset(h, 0, sizeof *h);
    h->tpl = tpl;
    for (int i = 0; i < t->n_params; i++) {
        int at = tpl_value_index(t, i, vals[i]);
        h->at[i] = (uint8_t)(at < 0 ? 0 : at);
    }
    h->ok = o == EVAL_OK && fitness > 0;
    h->fitness = fitness;
    e->n_hist++;
    e->n_hist_ok += h->ok;
    return KEVO_OK;
}

int engine_sur_note_record(struct engine *e, const struct rec_eval *rec)
{
    if (e->env.spec->surrogate < 2)
        return KEVO_OK;
    int64_t vals[TPL_MAX_PARAMS] = {0};
    int tpl;
    if (engine_record_point(e, rec, &tpl, vals))
        return KEVO_OK; /* not a point the surrogate can place */
    return engine_sur_note(e, tpl, vals, rec->r.outcome, rec->r.fitness);
}

void engine_sur_release(struct engine *e)
{
    surrogate_free(e->sur);
    e->sur = NULL;
    free(e->sur_off);
    e->sur_off = NULL;
}

/* Feature codes of (tpl, value indices at) into x[e->sur_d]. */
static void features(const struct engine *e, int tpl, const uint8_t *at,
                     uint8_t *x)
{
    memset(x, SUR_MISSING, (size_t)e->sur_d);
    for (int t = 0; t < e->sur_n_tpls; t++)
        x[e->sur_off[t]] = t == tpl;
    if (tpl >= e->sur_n_tpls)
        return;
    for (int i = 0; i < e->tpls[tpl]->n_params; i++)
        x[e->sur_off[tpl] + 1 + i] = at[i];
}

int engine_hist_by_fitness(const void *a, const void *b, void *ud)
{
    const struct sur_hist *h = ud;
    long x = *(const long *)a, y = *(const long *)b;
    if (h[x].fitness != h[y].fitness)
        return h[x].fitness > h[y].fitness ? -1 : 1;
    return (x > y) - (x < y);
}

/* The rows to train on: all, or past SUR_MAX_TRAIN the best half and the
 * latest half (the region being searched and what is known to be good). */
static long training_rows(const struct engine *e, long *rows)
{
    long n = 0;
    if (e->n_hist <= SUR_MAX_TRAIN) {
        for (long i = 0; i < e->n_hist; i++)
            rows[n++] = i;
        return n;
    }
    long *all = malloc(sizeof *all * (size_t)e->n_hist);
    char *pick = calloc((size_t)e->n_hist, 1);
    if (!all || !pick) {
        free(all);
        free(pick);
        return -1;
    }
    for (long i = 0; i < e->n_hist; i++)
        all[i] = i;
    qsort_r(all, (size_t)e->n_hist, sizeof *all, engine_hist_by_fitness,
            e->hist);
    for (long i = 0; i < SUR_MAX_TRAIN / 2; i++)
        pick[all[i]] = 1;
    for (long i = e->n_hist - 1, k = 0; i >= 0 && k < SUR_MAX_TRAIN / 2;
         i--, k++)
        pick[i] = 1;
    for (long i = 0; i < e->n_hist; i++)
        if (pick[i])
            rows[n++] = i;
    free(all);
    free(pick);
    return n;
}

int engine_sur_fit(struct engine *e)
{
    engine_sur_release(e);
    if (e->env.spec->surrogate < 2 || e->n_hist_ok < SUR_MIN_OK)
        return KEVO_OK;
    e->sur_n_tpls = e->n_tpls;
    e->sur_off = malloc(sizeof *e->sur_off * (size_t)e->n_tpls);
    if (!e->sur_off)
        return KEVO_ENOMEM;
    e->sur_d = 0;
    for (int t = 0; t < e->n_tpls; t++) {
        e->sur_off[t] = e->sur_d;
        e->sur_d += 1 + e->tpls[t]->n_params;
    }
    long cap = e->n_hist < SUR_MAX_TRAIN ? e->n_hist : SUR_MAX_TRAIN;
    long *rows = malloc(sizeof *rows * (size_t)cap);
    uint8_t *x = malloc((size_t)cap * (size_t)e->sur_d);
    double *y = malloc(sizeof *y * (size_t)cap);
    long n = rows && x && y ? training_rows(e, rows) : -1;
    int rc = n < 0 ? KEVO_ENOMEM : KEVO_OK;
    double lo = INFINITY;
    for (long i = 0; i < n; i++)
        if (e->hist[rows[i]].ok && log(e->hist[rows[i]].fitness) < lo)
            lo = log(e->hist[rows[i]].fitness);
    for (long i = 0; i < n; i++) {
        const struct sur_hist *h = &e->hist[rows[i]];
        features(e, h->tpl, h->at, x + (size_t)i * (size_t)e->sur_d);
        y[i] = h->ok ? log(h->fitness) : lo - 1.0;
    }
    if (!rc && isfinite(lo)) {
        struct sur_opts o = {.trees = 32, .max_depth = 12, .min_leaf = 2,
                             .apart = e->env.spec->forest_apart,
                             .threads = cpus_usable()};
        uint64_t seed = hash_final(hash_u64(
            hash_u64(HASH_SEED ^ 0x7375726fULL, e->env.spec->seed),
            (uint64_t)e->gen));
        rc = surrogate_fit(x, y, (int)n, e->sur_d, &o, seed, &e->sur);
        if (rc == KEVO_EINVAL)
            rc = KEVO_OK; /* too little to fit: no surrogate this time */
    }
    free(rows);
    free(x);
    free(y);
    return rc;
}

double engine_sur_score(const struct engine *e, const struct genome *g)
{
    if (!e->sur)
        return 0;
    if (g->tpl >= e->sur_n_tpls)
        return HUGE_VAL; /* a family newer than the forest: try it first */
    uint8_t at[TPL_MAX_PARAMS] = {0}, x[1024];
    const struct tpl *t = e->tpls[g->tpl];
    if (e->sur_d > (int)sizeof x)
        return 0;
    for (int i = 0; i < t->n_params; i++) {
        int k = tpl_value_index(t, i, g->vals[i]);
        at[i] = (uint8_t)(k < 0 ? 0 : k);
    }
    features(e, g->tpl, at, x);
    double sd, m = surrogate_predict(e->sur, x, &sd);
    int free_bin = e->has_compiled &&
                   seen_has(&e->compiled, compile_key(t, g->vals));
    return m + SUR_KAPPA * sd + (free_bin ? SUR_CHEAP : 0);
}
