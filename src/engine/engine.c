/*
 * engine.c - the generation loop (see engine.h for the determinism and
 * resume contract). Owns the islands, the archive, the set of genomes
 * already evaluated and the journal position; knows nothing of GPUs.
 *
 * One generation: the children the last one deferred (engine_defer.c),
 * then make children (mutators, or the initial points for generation 0;
 * with the pipeline, engine_pipe.c, they were made while the generation
 * before was measured) -> instantiate and store their sources
 * -> (pipeline) breed the next generation and prefetch it -> results from
 * the journal or the evaluator, journaled in order (deferred ones leave
 * for the next generation) -> noise-aware
 * confirmation of a new best -> (mu + lambda) survivors per island ->
 * migration -> "gen" record -> checkpoint.
 */
#include "engine.h"
#include "engine_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "cpus.h"
#include "fsutil.h"
#include "genome.h"
#include "hash.h"
#include "mutator.h"
#include "record.h"
#include "records.h"
#include "rng.h"
#include "secret.h"
#include "seen.h"


const char *engine_stop_text(enum engine_stop s)
{
    switch (s) {
    case STOP_NONE: return "running";
    case STOP_GENERATIONS: return "finished (generation budget)";
    case STOP_EVALS: return "finished (evaluation budget)";
    case STOP_TIME: return "finished (time budget)";
    case STOP_STAGNATION: return "finished (stagnated: no new best)";
    case STOP_EXHAUSTED: return "finished (search space exhausted)";
    case STOP_SIGNAL: return "stopped by signal";
    }
    return "?";
}

const struct engine_stats *engine_stats(const struct engine *e)
{
    return &e->st;
}

/* ---------------------------------------------------------------- time */

static double elapsed_s(const struct engine *e)
{
    return e->env.elapsed_before_s + (double)(fs_now_ns() - e->t0_ns) * 1e-9;
}

double engine_elapsed_s(const struct engine *e)
{
    return elapsed_s(e);
}

/* ------------------------------------------------------------- helpers */

const struct tpl *engine_tpl_of(const struct engine *e,
                                const struct genome *g)
{
    return e->tpls[g->tpl];
}

int engine_supports(const struct engine *e, const struct genome *g)
{
    if (e->has_members &&
        !seen_has(&e->members, genome_hash(engine_tpl_of(e, g), g->vals)))
        return 0;
    return tpl_prepare(engine_tpl_of(e, g), g->vals, e->env.spec->dtype,
                       &e->env.spec->shape, &e->env.dev, NULL, NULL,
                       0) == KEVO_OK &&
           runlog_admit(e->env.log, engine_tpl_of(e, g), g->vals);
}

int engine_tpl_usable(const struct engine *e, int t)
{
    return (e->tpls[t]->dtype_mask & 1u << e->env.spec->dtype) != 0;
}

static void describe(const struct engine *e, const struct genome *g,
                     char *out, size_t cap)
{
    char params[200];
    genome_format(g, engine_tpl_of(e, g), params, sizeof params);
    snprintf(out, cap, "%s %s", engine_tpl_of(e, g)->name, params);
}

const struct tpl *engine_template(const struct engine *e, int idx)
{
    return idx >= 0 && idx < e->n_tpls ? e->tpls[idx] : NULL;
}

int engine_record_point(const struct engine *e, const struct rec_eval *rec,
                     int *tpl, int64_t *vals)
{
    int t = e->n_tpls - 1;
    while (t >= 0 && strcmp(e->tpls[t]->name, rec->tpl))
        t--;
    if (t < 0)
        return -1;
    const struct tpl *tp = e->tpls[t];
    for (int i = 0; i < tp->n_params; i++) {
        int k = 0;
        while (k < rec->n_params && strcmp(rec->names[k], tp->params[i].name))
            k++;
        if (k == rec->n_params)
            return -1;
        vals[i] = rec->vals[k];
    }
    *tpl = t;
    return 0;
}

static const struct pointset *points_of(struct engine *e, int t, int full,
                                        int *rc);

/* 1 if the run draws random points from the templates' point lists and
 * starts from a Latin hypercube (spec init "lhs"); 0: by rejection, as
 * runs made before issue 13. */
static int use_lists(const struct engine *e)
{
    return !strcmp(e->env.spec->init, "lhs");
}

/* Sets g's launch-only params to their defaults when the point stays
 * valid and supported (else leaves them): a random point costs a
 * compile, and the fill measures its launch-only neighbours without one,
 * so drawing them at random only spends compiles on their worse values
 * (softmax's OCC). */
static void launch_only_defaults(struct engine *e, const struct tpl *tp,
                                 struct genome *g)
{
    int64_t save[TPL_MAX_PARAMS];
    int any = 0;
    memcpy(save, g->vals, sizeof save);
    for (int i = 0; i < tp->n_params; i++)
        if (tp->params[i].launch_only) {
            g->vals[i] = tp->params[i].values[tp->params[i].def];
            any |= g->vals[i] != save[i];
        }
    if (any && !(tpl_point_valid(tp, g->vals, &e->env.dev) &&
                 engine_supports(e, g)))
        memcpy(g->vals, save, sizeof save);
}

/* A random valid, supported point of template t, its launch-only params
 * at their defaults where they can be; -1 if none found. With point
 * lists, uniform over t's complete list (by rejection if t has none, or
 * only a sample). */
static int random_point(struct engine *e, int t, struct genome *g)
{
    const struct tpl *tp = e->tpls[t];
    memset(g, 0, sizeof *g);
    g->tpl = t;
    int rc;
    const struct pointset *ps = use_lists(e) ? points_of(e, t, 0, &rc)
                                             : NULL;
    if (ps && e->pts_state[t] == 2)
        ps = NULL; /* a sample: draw from the whole space instead */
    if (ps) { /* uniform over the usable points, no rejection */
        if (ps->n == 0)
            return -1;
        pointset_get(ps, tp, (long)rng_below(&e->rng, (uint64_t)ps->n),
                     g->vals);
        launch_only_defaults(e, tp, g);
        genome_rehash(g, tp);
        return 0;
    }
    for (int tries = 0; tries < RANDOM_TRIES; tries++) {
        for (int i = 0; i < tp->n_params; i++) {
            const struct tpl_param *p = &tp->params[i];
            g->vals[i] = p->values[rng_below(&e->rng, (uint64_t)p->n_values)];
        }
        if (tpl_point_valid(tp, g->vals, &e->env.dev) &&
            engine_supports(e, g)) {
            launch_only_defaults(e, tp, g);
            genome_rehash(g, tp);
            return 0;
        }
    }
    return -1;
}

/* ------------------------------------------------- point lists (issue 13) */

struct point_ok_ctx {
    const struct engine *e;
    int tpl;
};

static int point_ok(void *ud, const int64_t *vals)
{
    const struct point_ok_ctx *x = ud;
    struct genome g = {.tpl = x->tpl};
    memcpy(g.vals, vals, sizeof g.vals);
    return engine_supports(x->e, &g);
}

/* Past this many raw points a list for the hypercube is a sample (the
 * enumeration of sgemm_warptile's 7.3M takes seconds). */
#define FAST_RAW 1e6
#define SAMPLED_POINTS 20000

/* The usable points of base template t (the env's list, else enumerated
 * once); NULL if t has no list (made by an LLM, or too large to
 * enumerate). full = 0 accepts, for a space of more than FAST_RAW raw
 * points, a sample of SAMPLED_POINTS (drawn by a PRNG seeded from the
 * run's seed and t) unless the evaluator admits only some points (a
 * table). *rc is set on an error (out of memory). */
static const struct pointset *points_of(struct engine *e, int t, int full,
                                        int *rc)
{
    *rc = KEVO_OK;
    if (t >= e->n_base)
        return NULL;
    if (e->env.points)
        return &e->env.points[t];
    if (!full && e->pts_state[t] == 0 && !runlog_has_admit(e->env.log) &&
        tpl_space_raw(e->tpls[t]) > FAST_RAW) {
        struct point_ok_ctx x = {e, t};
        struct rng r;
        rng_seed(&r, hash_final(hash_u64(hash_u64(HASH_SEED ^ 0x6c6873ULL,
                                                  e->env.spec->seed),
                                         (uint64_t)t)));
        pointset_init(&e->pts[t], e->tpls[t]->n_params);
        if ((*rc = pointset_sample(&e->pts[t], e->tpls[t], &e->env.dev,
                                   point_ok, &x, SAMPLED_POINTS, &r))) {
            pointset_release(&e->pts[t]);
            return NULL;
        }
        e->pts_state[t] = 2;
    }
    if (e->pts_state[t] == 2 && !full)
        return &e->pts[t];
    if (e->pts_state[t] == 2)
        pointset_release(&e->pts[t]);
    if (e->pts_state[t] == 0 || e->pts_state[t] == 2) {
        struct point_ok_ctx x = {e, t};
        pointset_init(&e->pts[t], e->tpls[t]->n_params);
        int r = pointset_enumerate(&e->pts[t], e->tpls[t], &e->env.dev,
                                   point_ok, &x);
        if (r == KEVO_ENOMEM) {
            pointset_release(&e->pts[t]);
            *rc = r;
            return NULL;
        }
        e->pts_state[t] = r ? -1 : 1;
        if (r)
            pointset_release(&e->pts[t]);
    }
    return e->pts_state[t] == 1 ? &e->pts[t] : NULL;
}

int engine_add_child(struct engine *e, const struct child *c)
{
    if (e->n_kids == e->cap_kids) {
        int cap = e->cap_kids ? e->cap_kids * 2 : 64;
        void *p = realloc(e->kids, sizeof *e->kids * (size_t)cap);
        if (!p)
            return KEVO_ENOMEM;
        e->kids = p;
        e->cap_kids = cap;
    }
    e->kids[e->n_kids++] = *c;
    /* an optional one is seen once measured (take_result): a dropped one
     * may come again, as in a run resumed after it (the journal's
     * evaluations make the seen set there) */
    return c->optional ? KEVO_OK : seen_add(&e->seen, c->g.hash);
}

static void clear_children(struct engine *e)
{
    engine_clear_kids(e->kids, e->n_kids);
    e->n_kids = 0;
    e->gen_dropped = 0;
}

void engine_free_source(struct child *c)
{
    if (!c->src_lent)
        free(c->source);
    c->source = NULL;
    c->src_lent = 0;
}

void engine_clear_kids(struct child *kids, int n)
{
    for (int i = 0; i < n; i++) {
        engine_free_source(&kids[i]);
        eval_result_release(&kids[i].r);
    }
}

/* How many more evaluations the budget allows (LONG_MAX if none). */
/* The evaluation budget of this generation: the spec's, or the one its
 * recorded gen record says it reached (a run that ended on --evals and
 * was resumed with a larger one: its last generation stays as cut as it
 * was, so the resume and its replay make the same children); 0 = none. */
static long evals_cap(const struct engine *e)
{
    long max = e->env.spec->max_evals;
    return e->gen_cap > 0 && (max <= 0 || e->gen_cap < max) ? e->gen_cap
                                                            : max;
}

long engine_evals_cap(const struct engine *e)
{
    return evals_cap(e);
}

/* What the budget leaves for the children being made: the evaluations
 * in flight (a generation measured while the pipeline breeds the next,
 * engine_pipe.c) count as spent. */
static long evals_left(const struct engine *e)
{
    long max = evals_cap(e);
    return max > 0 ? max - e->st.evals - e->in_flight : 1L << 62;
}

long engine_evals_left(const struct engine *e)
{
    return evals_left(e);
}

long engine_recorded_cap(const struct engine *e, int gen)
{
    const struct runlog *log = e->env.log;
    const cJSON *r;
    if (!runlog_replaying(log))
        return 0;
    for (long i = runlog_pos(log); (r = runlog_recorded(log, i)); i++) {
        if (rec_type_of(r) != REC_GEN)
            continue;
        int g = record_int(r, "gen", -1);
        if (g == gen)
            return (long)record_i64(r, "evals_budget", 0);
        if (g > gen)
            return 0;
    }
    return 0;
}

/* ------------------------------------------------- making generation 0 */

static int offer_initial(struct engine *e, const struct genome *g, int *k)
{
    if (!engine_supports(e, g) || seen_has(&e->seen, g->hash) ||
        e->n_kids >= evals_left(e))
        return KEVO_OK;
    struct child c = {.g = *g, .island = (*k)++ % e->n_isl,
                      .mutator = "init"};
    return engine_add_child(e, &c);
}

/* How many points the Latin hypercube of template t has: at least the
 * spec's random points plus the default, and 3 per compiled parameter,
 * so that every such parameter's range is cut into that many strata (a
 * space of 7 parameters starts from 21 points, not 9). Launch-only
 * parameters stay at their defaults (sample_lhs): the fill measures
 * their other values without a compile. */
static long lhs_count(const struct engine *e, const struct tpl *tp)
{
    int compiled = 0;
    for (int i = 0; i < tp->n_params; i++)
        compiled += !tp->params[i].launch_only;
    long k = e->env.spec->init_random + 1, per = 3L * compiled;
    return k > per ? k : per;
}

/* The Latin hypercube over t's point list; 1 if t has none (then the
 * caller draws random points). */
static int offer_lhs(struct engine *e, int t, int *k, int *rc)
{
    const struct pointset *ps = points_of(e, t, 0, rc);
    if (*rc || !ps)
        return !*rc;
    long n = lhs_count(e, e->tpls[t]);
    long *at = malloc(sizeof *at * (size_t)n);
    if (!at) {
        *rc = KEVO_ENOMEM;
        return 0;
    }
    n = sample_lhs(ps, e->tpls[t], n, &e->rng, at);
    for (long i = 0; i < n && !*rc; i++) {
        struct genome g = {.tpl = t};
        pointset_get(ps, e->tpls[t], at[i], g.vals);
        /* (a sampled list may hold a point without its default sibling) */
        launch_only_defaults(e, e->tpls[t], &g);
        genome_rehash(&g, e->tpls[t]);
        *rc = offer_initial(e, &g, k);
    }
    free(at);
    return 0;
}

/* One template's point list, on a thread of its own (lists_at_once). */
struct list_job {
    struct engine *e;
    int t;
    int rc;
};

static void *list_thread(void *arg)
{
    struct list_job *j = arg;
    points_of(j->e, j->t, 0, &j->rc);
    return NULL;
}

/* The point lists of generation 0's hypercubes, a thread a template,
 * with more than one CPU: each list depends only on its template, the
 * device and the run's seed (points_of), never on the order they are
 * made in, and together they were most of the time before the first
 * compile could start (softmax's eight: 0.6 s on one core). Not with an
 * evaluator that admits points (a table: its own calls) or a run's list
 * of points. */
static int lists_at_once(struct engine *e)
{
    int n = 0, rc = KEVO_OK, cap = cpus_usable();
    if (e->env.points || runlog_has_admit(e->env.log) || !use_lists(e) ||
        cap < 2)
        return KEVO_OK;
    struct list_job job[CPUS_MAX_JOBS];
    if (cap > CPUS_MAX_JOBS)
        cap = CPUS_MAX_JOBS;
    /* (more templates than CPUs: the rest one by one, as before) */
    for (int t = 0; t < e->n_base && t < e->n_tpls && n < cap; t++)
        if (engine_tpl_usable(e, t) && e->pts_state[t] == 0)
            job[n++] = (struct list_job){e, t, KEVO_OK};
    if (n < 2)
        return KEVO_OK;
    cpus_run(n, list_thread, job, sizeof *job);
    for (int i = 0; i < n && !rc; i++)
        rc = job[i].rc;
    return rc;
}

static int make_initial(struct engine *e)
{
    int k = 0, rc;
    if ((rc = lists_at_once(e)))
        return rc;
    for (int t = 0; t < e->n_tpls; t++) {
        if (!engine_tpl_usable(e, t))
            continue;
        const struct tpl *tp = e->tpls[t];
        struct genome g = {.tpl = t};
        tpl_default_point(tp, g.vals);
        genome_rehash(&g, tp);
        if ((rc = offer_initial(e, &g, &k)))
            return rc;
        if (use_lists(e)) {
            int none = offer_lhs(e, t, &k, &rc);
            if (rc)
                return rc;
            if (!none)
                continue;
        }
        for (int r = 0; r < e->env.spec->init_random; r++) {
            if (random_point(e, t, &g))
                break;
            if ((rc = offer_initial(e, &g, &k)))
                return rc;
        }
    }
    return KEVO_OK;
}

/* ----------------------------------------------------------- the sweep */

#define SWEEP_SHIFT 40

/* The order of the sweep: every usable point of every usable template,
 * shuffled by a PRNG of its own (seeded from the run's seed), so the
 * order is a function of the seed alone and a resumed sweep finds it
 * again. */
static int build_sweep(struct engine *e)
{
    long n = 0;
    int rc;
    for (int t = 0; t < e->n_base; t++) {
        if (!engine_tpl_usable(e, t))
            continue;
        const struct pointset *ps = points_of(e, t, 1, &rc);
        if (rc)
            return rc;
        if (!ps) {
            snprintf(e->errbuf, sizeof e->errbuf, "sweep: template '%s' has "
                     "too many points to enumerate (%.3g raw, at most %.3g)",
                     e->tpls[t]->name, tpl_space_raw(e->tpls[t]),
                     SAMPLE_ENUM_LIMIT);
            return KEVO_ETOOBIG;
        }
        n += ps->n;
    }
    e->sweep = malloc(sizeof *e->sweep * (size_t)(n ? n : 1));
    if (!e->sweep)
        return KEVO_ENOMEM;
    for (int t = 0; t < e->n_base; t++) {
        const struct pointset *ps =
            engine_tpl_usable(e, t) ? points_of(e, t, 1, &rc) : NULL;
        for (long i = 0; ps && i < ps->n; i++)
            e->sweep[e->n_sweep++] = (long)t << SWEEP_SHIFT | i;
    }
    struct rng r;
    rng_seed(&r, hash_final(hash_u64(HASH_SEED ^ 0x7377656570ULL,
                                     e->env.spec->seed)));
    sample_shuffle(e->sweep, e->n_sweep, &r);
    e->sweep_ready = 1;
    return KEVO_OK;
}

/* The next points of the sweep not yet evaluated, one generation's worth
 * (islands x offspring) at most. */
static int make_sweep(struct engine *e)
{
    int rc, k = 0;
    if (!e->sweep_ready && (rc = build_sweep(e)))
        return rc;
    long want = (long)e->n_isl * e->env.spec->offspring;
    while (e->n_kids < want && e->n_kids < evals_left(e) &&
           e->sweep_at < e->n_sweep) {
        long code = e->sweep[e->sweep_at++];
        struct child c = {.g.tpl = (int)(code >> SWEEP_SHIFT),
                          .island = k % e->n_isl, .mutator = "sweep"};
        pointset_get(points_of(e, c.g.tpl, 1, &rc), e->tpls[c.g.tpl],
                     code & ((1L << SWEEP_SHIFT) - 1), c.g.vals);
        genome_rehash(&c.g, e->tpls[c.g.tpl]);
        if (seen_has(&e->seen, c.g.hash))
            continue;
        k++;
        if ((rc = engine_add_child(e, &c)))
            return rc;
    }
    return KEVO_OK;
}

/* ---------------------------------------------- selection and mutation */

const struct member *engine_tournament(struct engine *e,
                                       const struct island *is,
                                       int tpl)
{
    const struct member *best = NULL;
    int want = e->env.spec->tournament, got = 0;
    for (int i = 0; i < want * 4 && got < want; i++) {
        const struct member *m = &is->m[rng_below(&e->rng, (uint64_t)is->n)];
        if (tpl >= 0 && m->g.tpl != tpl)
            continue;
        got++;
        if (!best || m->fitness > best->fitness ||
            (m->fitness == best->fitness && m->g.hash < best->g.hash))
            best = m;
    }
    return best;
}

static int count_tpl(const struct island *is, int tpl)
{
    int n = 0;
    for (int i = 0; i < is->n; i++)
        n += is->m[i].g.tpl == tpl;
    return n;
}

static const struct genome *pick_parent(struct engine *e, const struct island *is)
{
    if (e->arc.n > 0 && rng_unit(&e->rng) < e->env.spec->archive_prob)
        return &archive_pick(&e->arc, &e->rng)->g;
    return &engine_tournament(e, is, -1)->g;
}

/* The mutator for a one-parent child: the bandit's arm when it picked a
 * one-parent mutator, else one of the table's (mutator_draw). */
static const struct mutator *one_parent(struct engine *e, int arm)
{
    if (arm >= 0 && e->arms[arm].cheap->n_parents == 1)
        return e->arms[arm].cheap;
    return mutator_draw(1, &e->rng);
}

/* One attempt at a child of island i; 0 = made, -1 = try again. arm is
 * the bandit's choice (a cheap mutator of e->arms, applied as picked;
 * a two-parent one falls back to a one-parent mutator when the island
 * holds no second parent of the template) or -1: a mutator of the table,
 * two-parent with the spec's crossover probability. */
static int try_child(struct engine *e, int i, int arm, struct child *c)
{
    const struct island *is = &e->isl[i];
    struct mut_ctx ctx = {&e->rng, e->tpls, e->n_tpls, &e->env.dev,
                          e->env.spec->tweak_repair};
    memset(c, 0, sizeof *c);
    c->island = i;
    if (is->n == 0) {
        int t = (int)rng_below(&e->rng, (uint64_t)e->n_tpls);
        if (!engine_tpl_usable(e, t) || random_point(e, t, &c->g))
            return -1;
        c->mutator = "random";
        return seen_has(&e->seen, c->g.hash) ? -1 : 0;
    }
    const struct genome *par[2] = {pick_parent(e, is), NULL};
    const struct mutator *m = NULL;
    int cross = arm < 0 ? rng_unit(&e->rng) < e->env.spec->crossover_prob
                        : e->arms[arm].cheap->n_parents == 2;
    if (cross && count_tpl(is, par[0]->tpl) >= 2) {
        const struct mutator *two = arm >= 0 ? e->arms[arm].cheap
                                             : mutator_draw(2, &e->rng);
        const struct member *p2 =
            two ? engine_tournament(e, is, par[0]->tpl) : NULL;
        if (p2 && p2->g.hash != par[0]->hash) {
            par[1] = &p2->g;
            m = two;
        }
    }
    if (!m && !(m = one_parent(e, arm)))
        return -1;
    if (m->apply(&ctx, par, &c->g))
        return -1;
    genome_rehash(&c->g, engine_tpl_of(e, &c->g));
    if (seen_has(&e->seen, c->g.hash) || !engine_supports(e, &c->g))
        return -1;
    c->mutator = m->name;
    c->n_par = m->n_parents;
    c->par[0] = par[0]->hash;
    c->par[1] = par[1] ? par[1]->hash : 0;
    return 0;
}

/* A child of island i at a random point not evaluated yet; -1 if none
 * found. */
static int random_child(struct engine *e, int i, struct child *c)
{
    memset(c, 0, sizeof *c);
    c->island = i;
    c->mutator = "random";
    for (int tries = 0; tries < MAKE_TRIES; tries++) {
        int t = (int)rng_below(&e->rng, (uint64_t)e->n_tpls);
        if (engine_tpl_usable(e, t) && random_point(e, t, &c->g) == 0 &&
            !seen_has(&e->seen, c->g.hash))
            return 0;
    }
    return -1;
}

/* One cheap-mutator child for island i (arm as for try_child); a fresh
 * random point if no mutation finds a new one. 0 = made. */
static int one_child(struct engine *e, int i, int arm, struct child *c)
{
    for (int t = 0; t < MAKE_TRIES; t++)
        if (try_child(e, i, arm, c) == 0)
            return 0;
    /* no new neighbour (a sparse table, a region mined out): a fresh
     * random point keeps the search going */
    return use_lists(e) ? random_child(e, i, c) : -1;
}

/* ----------------------------------------------------------- surrogate */

static int make_offspring(struct engine *e);

int engine_pool_has(const struct pool *p, uint64_t h)
{
    return p->in.keys && seen_has(&p->in, h);
}

int engine_pool_add(struct pool *p, const struct child *c)
{
    if ((!p->in.keys && seen_init(&p->in)) || seen_add(&p->in, c->g.hash))
        return KEVO_ENOMEM;
    if (p->n == p->cap) {
        int cap = p->cap ? p->cap * 2 : 64;
        void *q = realloc(p->c, sizeof *p->c * (size_t)cap);
        if (!q)
            return KEVO_ENOMEM;
        p->c = q;
        p->cap = cap;
    }
    p->c[p->n++] = *c;
    return KEVO_OK;
}

void engine_pool_clear(struct pool *p)
{
    p->n = 0;
    seen_release(&p->in);
}

void engine_pool_free(struct pool *p)
{
    free(p->c);
    seen_release(&p->in);
    memset(p, 0, sizeof *p);
}

int engine_by_score(const void *a, const void *b)
{
    const struct child *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return (x->g.hash > y->g.hash) - (x->g.hash < y->g.hash);
}

/* Moves want children of pool p to out: the best rated, and a quarter
 * drawn at random from the rest (exploration the forest cannot rate
 * well). */
static int keep_best(struct engine *e, struct pool *p, int want,
                     struct pool *out)
{
    int rc = KEVO_OK;
    if (p->n == 0)
        return KEVO_OK;
    for (int k = 0; k < p->n; k++)
        p->c[k].score = engine_sur_score(e, &p->c[k].g);
    qsort(p->c, (size_t)p->n, sizeof *p->c, engine_by_score);
    if (want > p->n)
        want = p->n;
    int explore = want / 4, top = want - explore;
    for (int k = top; k < top + explore; k++) {
        int j = k + (int)rng_below(&e->rng, (uint64_t)(p->n - k));
        struct child t = p->c[j];
        p->c[j] = p->c[k];
        p->c[k] = t;
    }
    for (int k = 0; k < want && !rc; k++)
        if (!engine_pool_has(out, p->c[k].g.hash))
            rc = engine_pool_add(out, &p->c[k]);
    return rc;
}

/* Offspring of island i through the surrogate (into out): for each of
 * its slots the spec's number of candidates (cheap mutators), plus as
 * many random unseen points, then keep_best. The budget plays no part,
 * so a generation cut by it is a prefix of the uncut one. */
static int offspring_pool(struct engine *e, int i, struct pool *p,
                          struct pool *out)
{
    int slots = 0, rc;
    engine_pool_clear(p);
    for (int k = 0; k < e->env.spec->offspring; k++) {
        int arm = -1;
        if (e->use_bandit && e->isl[i].n > 0) {
            if ((rc = engine_llm_pick(e, i, &arm)))
                return rc;
            if (e->arms[arm].llm)
                continue; /* asked an LLM: its child comes later */
        }
        slots++;
        for (int m = 0; m < e->env.spec->surrogate; m++) {
            struct child c;
            if (one_child(e, i, arm, &c) == 0 &&
                !engine_pool_has(p, c.g.hash) && (rc = engine_pool_add(p, &c)))
                return rc;
        }
    }
    for (int k = 0; k < slots && use_lists(e); k++) {
        struct child c;
        if (random_child(e, i, &c) == 0 && !engine_pool_has(p, c.g.hash) &&
            (rc = engine_pool_add(p, &c)))
            return rc;
    }
    return keep_best(e, p, slots, out);
}

int engine_make_children(struct engine *e)
{
    if (!strcmp(e->env.spec->strategy, "sweep"))
        return make_sweep(e);
    if (e->gen > 0)
        return make_offspring(e);
    int rc = make_initial(e);
    return rc ? rc : engine_fill0_add(e);
}

static int make_offspring(struct engine *e)
{
    int rc;
    if ((rc = engine_sur_fit(e)))
        return rc;
    if (e->sur) { /* rated: the most promising are evaluated first */
        struct pool p = {0}, out = {0};
        for (int i = 0; i < e->n_isl && !rc; i++)
            rc = offspring_pool(e, i, &p, &out);
        if (!rc && out.n)
            qsort(out.c, (size_t)out.n, sizeof *out.c, engine_by_score);
        for (int k = 0; !rc && k < out.n && e->n_kids < evals_left(e); k++)
            rc = engine_add_child(e, &out.c[k]);
        engine_pool_free(&p);
        engine_pool_free(&out);
        /* then launch-only neighbours for the GPU's idle time */
        return rc ? rc : engine_fill_add(e);
    }
    for (int i = 0; i < e->n_isl; i++)
        for (int k = 0; k < e->env.spec->offspring; k++) {
            if (e->n_kids >= evals_left(e))
                return KEVO_OK;
            struct child c;
            int arm = -1;
            if (e->use_bandit && e->isl[i].n > 0) {
                if ((rc = engine_llm_pick(e, i, &arm)))
                    return rc;
                if (e->arms[arm].llm)
                    continue; /* asked an LLM: its child comes later */
            }
            if (one_child(e, i, arm, &c) == 0 && (rc = engine_add_child(e, &c)))
                return rc;
        }
    return KEVO_OK;
}

/* -------------------------------------------------------- evaluation */

static void child_desc(struct engine *e, struct child *c)
{
    struct launch_plan plan;
    char err[8];
    c->d = (struct archive_desc){.tpl = c->g.tpl, .regs_bucket = -1};
    if (!tpl_plan(engine_tpl_of(e, &c->g), c->g.vals, &e->env.spec->shape,
                  &e->env.dev, &plan, err, sizeof err)) {
        const struct launch_dims *l = &plan.l[0];
        uint32_t th = l->block[0] * l->block[1] * l->block[2];
        c->d.threads_log2 = (int)log2((double)th);
        int smem_kb = (int)((l->smem_bytes + (uint32_t)c->r.res.smem_static) >> 10);
        c->d.smem_log2 = (int)log2(1.0 + smem_kb);
    }
    if (c->r.res.regs > 0)
        c->d.regs_bucket = c->r.res.regs / 32;
}

int engine_instantiate(struct engine *e, struct child *c)
{
    if (c->source) /* (a pipelined child, made when it was prefetched) */
        return KEVO_OK;
    return srcmemo_get(&e->srcs, engine_tpl_of(e, &c->g), c->g.tpl,
                       c->g.vals, e->env.spec->dtype, &e->env.spec->shape,
                       e->env.spec->source_header, &c->source, &c->src_hash,
                       &c->src_lent);
}

/* rc (a write of bgw's that failed) into errbuf, naming the file. */
static int bgw_failed(struct engine *e, int rc)
{
    if (rc)
        snprintf(e->errbuf, sizeof e->errbuf, "cannot write '%.200s': %s",
                 e->bgw.failed, kevo_strerror(rc));
    return rc;
}

static int write_source(struct engine *e, struct child *c)
{
    int rc = engine_instantiate(e, c);
    if (rc)
        return rc;
    if (!runlog_writes(e->env.log) || seen_has(&e->written, c->src_hash))
        return KEVO_OK;
    char hex[17], rel[64], path[4096];
    hash_hex(c->src_hash, hex);
    snprintf(rel, sizeof rel, "sources/%s.cu", hex);
    if (fs_join(path, sizeof path, e->env.run_dir, rel))
        return KEVO_EINVAL;
    char *text = secret_scrub_dup(c->source, strlen(c->source));
    /* written on bgw's thread (created only if it does not exist); a
     * full disk or a planted link is reported by the wait before the
     * generation's record, bgw_failed */
    rc = text ? bgwrite_new(&e->bgw, path, text) : KEVO_ENOMEM;
    if (rc)
        return bgw_failed(e, rc);
    return seen_add(&e->written, c->src_hash);
}

static cJSON *eval_record(struct engine *e, int idx)
{
    const struct child *c = &e->kids[idx];
    const struct tpl *t = engine_tpl_of(e, &c->g);
    struct rec_eval r = {.gen = e->gen, .idx = idx, .island = c->island,
                         .hash = c->g.hash, .n_params = t->n_params,
                         .n_par = c->n_par, .source = c->src_hash,
                         .r = c->r, .t = elapsed_s(e)};
    snprintf(r.tpl, sizeof r.tpl, "%s", t->name);
    for (int i = 0; i < t->n_params; i++) {
        snprintf(r.names[i], sizeof r.names[i], "%s", t->params[i].name);
        r.vals[i] = c->g.vals[i];
    }
    snprintf(r.mutator, sizeof r.mutator, "%s", c->mutator);
    memcpy(r.par, c->par, sizeof r.par);
    return rec_eval_json(&r);
}

static void progress_tick(struct engine *e, const struct child *c)
{
    if (!e->env.prog)
        return;
    double el = elapsed_s(e), sess = (double)(fs_now_ns() - e->t0_ns) * 1e-9;
    struct progress_state s = {
        .gen = e->gen, .evals = e->st.evals,
        .evals_budget = e->env.spec->max_evals, .best = e->st.best_fitness,
        .unit = e->env.problem->work_unit,
        .best_what = e->st.best_tpl >= 0 ? e->best_what : NULL,
        .best_ratio = e->st.best_ratio, .elapsed_s = el,
        .rate_per_min = sess > 0 ? e->st.session_evals * 60.0 / sess : 0,
        .left_s = e->env.spec->max_time_s > 0 ? e->env.spec->max_time_s - el
                                              : -1,
        .gpu_idle_pct = busy_idle_pct(&e->sess_busy, sess),
        .compile_bound = busy_compile_bound(&e->sess_busy, sess),
        .last = eval_outcome_name(c->r.outcome)};
    progress_update(e->env.prog, &s);
}

/* Counts the result of kid idx and offers it to the archive. */
static int take_result(struct engine *e, int idx)
{
    struct child *c = &e->kids[idx];
    if (c->optional && seen_add(&e->seen, c->g.hash))
        return KEVO_ENOMEM;
    e->st.evals++;
    e->st.outcomes[c->r.outcome]++;
    engine_fill_note(e, &e->fill_cur, c->mutator, &c->r);
    child_desc(e, c);
    if (engine_llm_note(e, c) ||
        engine_sur_note(e, c->g.tpl, c->g.vals, c->r.outcome, c->r.fitness))
        return KEVO_ENOMEM;
    if (c->r.outcome == EVAL_OK &&
        archive_offer(&e->arc, &c->d, &c->g, c->r.fitness) < 0)
        return KEVO_ENOMEM;
    progress_tick(e, c);
    return KEVO_OK;
}

struct batch_ctx {
    struct engine *e;
    int rc;
    int on_time; /* the evaluator ends the batch at the time budget
                    (runlog_set_deadline): no stop before its end */
};

/* A result, recorded or live (the run log knows which): journaled, then
 * counted. */
static int on_result(void *ud, int idx, const struct eval_result *r)
{
    struct batch_ctx *b = ud;
    struct engine *e = b->e;
    int live = !runlog_replaying(e->env.log);
    if (r->deferred) { /* unmeasured: to the next generation */
        if ((b->rc = engine_defer_note(e, idx, r->deferred)))
            return 1;
        if (!live)
            return 0;
    } else {
        eval_result_release(&e->kids[idx].r);
        if ((b->rc = eval_result_copy(&e->kids[idx].r, r)))
            return 1;
        cJSON *rec = eval_record(e, idx);
        b->rc = rec ? runlog_put(e->env.log, rec, 0) : KEVO_ENOMEM;
        cJSON_Delete(rec);
        if (live)
            busy_add(&e->sess_busy, r);
        if (b->rc || (b->rc = take_result(e, idx)))
            return 1;
        if (!live)
            return 0;
        e->st.session_evals++;
    }
    if (e->env.stop && *e->env.stop) {
        e->st.stop = STOP_SIGNAL;
        return 1;
    }
    if (!b->on_time && e->env.spec->max_time_s > 0 &&
        elapsed_s(e) >= e->env.spec->max_time_s) {
        e->st.stop = STOP_TIME;
        return 1;
    }
    return 0;
}

/* Ends the batch at the time budget where the evaluator can (eval.h
 * set_deadline): what is measured by then is recorded, what is not is
 * deferred ("end"), and the generation is finished; 1 if so. */
static int end_on_time(struct engine *e)
{
    double left = e->env.spec->max_time_s - e->env.elapsed_before_s;
    if (e->env.spec->max_time_s <= 0 || !engine_defer_on(e) ||
        !runlog_can_end_on_time(e->env.log))
        return 0;
    if (left > 1e9) /* (31 years: no deadline the clock could reach) */
        left = 1e9;
    runlog_set_deadline(e->env.log,
                        e->t0_ns + (long long)(left > 0 ? left * 1e9 : 1));
    return 1;
}

int engine_candidates(const struct engine *e, const struct child *kids,
                      int n, struct candidate **cands,
                      const struct candidate ***ptrs)
{
    *cands = calloc((size_t)n + 1, sizeof **cands);
    *ptrs = calloc((size_t)n + 1, sizeof **ptrs);
    if (!*cands || !*ptrs) {
        free(*cands);
        free(*ptrs);
        return KEVO_ENOMEM;
    }
    for (int k = 0; k < n; k++) {
        const struct child *c = &kids[k];
        (*cands)[k] = (struct candidate){engine_tpl_of(e, &c->g), c->g.vals,
                                         c->g.hash, c->source, c->src_hash,
                                         c->optional};
        (*ptrs)[k] = &(*cands)[k];
    }
    return KEVO_OK;
}

static double ms_since(long long t0)
{
    return (double)(fs_now_ns() - t0) / 1e6;
}

static int evaluate_children(struct engine *e)
{
    int rc, n = e->n_kids;
    long long t0 = fs_now_ns();
    for (int k = 0; k < n; k++)
        if ((rc = write_source(e, &e->kids[k])))
            return rc;
    struct candidate *cands;
    const struct candidate **ptrs;
    if ((rc = engine_candidates(e, e->kids, n, &cands, &ptrs)))
        return rc;
    /* the pipeline (engine_pipe.c): the next generation, bred from the
     * results before this one, starts compiling behind it */
    if ((rc = engine_pipe_breed(e))) {
        free(cands);
        free(ptrs);
        return rc;
    }
    struct batch_ctx b = {e, KEVO_OK, end_on_time(e)};
    runlog_set_defer(e->env.log, engine_defer_max(e));
    int optional = 0; /* (the optional fill: engine_fill0_add, spare) */
    for (int k = 0; k < n && !optional; k++)
        optional = e->kids[k].optional;
    runlog_set_drop(e->env.log, optional);
    e->ms_sources = ms_since(t0);
    rc = runlog_evaluate(e->env.log, ptrs, n, on_result, &b);
    free(cands);
    free(ptrs);
    if (b.rc)
        return b.rc;
    if (e->st.stop == STOP_SIGNAL || e->st.stop == STOP_TIME)
        return KEVO_ESTOPPED;
    return rc ? rc : engine_defer_carry(e);
}

/* ------------------------------------------------ best and confirmation */

static void set_best(struct engine *e, const struct child *c)
{
    e->st.best_fitness = c->r.fitness;
    e->st.best_median_ns = c->r.median_ns;
    e->st.best_hash = c->g.hash;
    e->st.best_tpl = c->g.tpl;
    memcpy(e->st.best_vals, c->g.vals, sizeof e->st.best_vals);
    e->st.best_ratio = c->r.ratio;
    e->st.best_gen = e->gen;
    describe(e, &c->g, e->best_what, sizeof e->best_what);
    runlog_set_best(e->env.log, c->r.median_ns);
}

static int best_child(const struct engine *e)
{
    int best = -1;
    for (int i = 0; i < e->n_kids; i++) {
        const struct child *c = &e->kids[i];
        if (c->r.outcome != EVAL_OK)
            continue;
        if (best < 0 || c->r.fitness > e->kids[best].r.fitness ||
            (c->r.fitness == e->kids[best].r.fitness &&
             c->g.hash < e->kids[best].g.hash))
            best = i;
    }
    return best;
}

/* Noise-aware acceptance of challenger c against the incumbent. */
static int confirm(struct engine *e, const struct child *c, int *accept)
{
    struct genome inc = {.tpl = e->st.best_tpl, .hash = e->st.best_hash};
    memcpy(inc.vals, e->st.best_vals, sizeof inc.vals);
    char *src = tpl_instantiate_hdr(engine_tpl_of(e, &inc), inc.vals,
                                    e->env.spec->dtype, &e->env.spec->shape,
                                    e->env.spec->source_header);
    if (!src)
        return KEVO_ENOMEM;
    struct candidate ch = {engine_tpl_of(e, &c->g), c->g.vals, c->g.hash,
                           c->source,
                           c->src_hash, 0};
    struct candidate in = {engine_tpl_of(e, &inc), inc.vals, inc.hash, src,
                           hash_final(hash_str(HASH_SEED, src)), 0};
    int rc = runlog_confirm(e->env.log, e->gen, elapsed_s(e), &ch, &in,
                            accept);
    free(src);
    return rc;
}

static int update_best(struct engine *e)
{
    int b = best_child(e);
    if (b < 0 || e->kids[b].r.fitness <= e->st.best_fitness)
        return KEVO_OK;
    const struct child *c = &e->kids[b];
    int accept = 1, rc = KEVO_OK;
    if (e->st.best_tpl >= 0 && runlog_confirms(e->env.log) &&
        (rc = confirm(e, c, &accept)))
        return rc;
    if (accept) {
        set_best(e, c);
        if ((rc = engine_prof_take(e, c->g.tpl, c->g.vals, c->g.hash,
                                   "best")))
            return rc;
        engine_report_best(e);
    }
    return KEVO_OK;
}

/* ---------------------------------------------------------- survivors */

static int member_cmp(const void *a, const void *b)
{
    const struct member *x = a, *y = b;
    if (x->fitness != y->fitness)
        return x->fitness > y->fitness ? -1 : 1;
    return x->g.hash < y->g.hash ? -1 : x->g.hash > y->g.hash;
}

static int island_has(const struct island *is, uint64_t hash)
{
    for (int i = 0; i < is->n; i++)
        if (is->m[i].g.hash == hash)
            return 1;
    return 0;
}

static void select_survivors(struct engine *e)
{
    for (int i = 0; i < e->n_kids; i++) {
        const struct child *c = &e->kids[i];
        struct island *is = &e->isl[c->island];
        if (c->r.outcome != EVAL_OK || is->n >= e->cap_members)
            continue;
        is->m[is->n++] = (struct member){c->g, c->r.fitness, c->r.median_ns};
    }
    for (int i = 0; i < e->n_isl; i++) {
        struct island *is = &e->isl[i];
        qsort(is->m, (size_t)is->n, sizeof *is->m, member_cmp);
        if (is->n > e->env.spec->population)
            is->n = e->env.spec->population;
    }
}

/* Ring migration: each island's best replaces the next island's worst. */
static void migrate(struct engine *e)
{
    int every = e->env.spec->migrate_every;
    if (e->n_isl < 2 || every <= 0 || e->gen == 0 || e->gen % every)
        return;
    struct member *best = calloc((size_t)e->n_isl, sizeof *best);
    if (!best)
        return;
    for (int i = 0; i < e->n_isl; i++)
        if (e->isl[i].n)
            best[i] = e->isl[i].m[0];
    for (int i = 0; i < e->n_isl; i++) {
        struct island *to = &e->isl[(i + 1) % e->n_isl];
        if (!e->isl[i].n || island_has(to, best[i].g.hash))
            continue;
        if (to->n < e->env.spec->population)
            to->n++;
        to->m[to->n - 1] = best[i];
        qsort(to->m, (size_t)to->n, sizeof *to->m, member_cmp);
    }
    free(best);
}

/* ------------------------------------------------ records, checkpoints */

static cJSON *genome_json(const struct genome *g, double fitness, double ns)
{
    char hex[17];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "t", g->tpl);
    cJSON *v = cJSON_AddArrayToObject(o, "v");
    for (int k = 0; k < TPL_MAX_PARAMS; k++)
        cJSON_AddItemToArray(v, cJSON_CreateNumber((double)g->vals[k]));
    hash_hex(g->hash, hex);
    cJSON_AddStringToObject(o, "h", hex);
    cJSON_AddNumberToObject(o, "f", fitness);
    cJSON_AddNumberToObject(o, "ns", ns);
    return o;
}

static int genome_from_json(const cJSON *o, struct genome *g, double *f,
                            double *ns)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "v");
    const char *h = record_str(o, "h");
    if (cJSON_GetArraySize(v) != TPL_MAX_PARAMS || !h)
        return KEVO_EPARSE;
    memset(g, 0, sizeof *g);
    g->tpl = record_int(o, "t", -1);
    for (int k = 0; k < TPL_MAX_PARAMS; k++)
        g->vals[k] = (int64_t)cJSON_GetArrayItem(v, k)->valuedouble;
    *f = record_num(o, "f", 0);
    *ns = record_num(o, "ns", 0);
    return hash_parse(h, &g->hash) ? KEVO_EPARSE : KEVO_OK;
}

static cJSON *gen_record(struct engine *e)
{
    struct rec_gen g = {.gen = e->gen, .evals = e->st.evals,
                        .children = e->n_kids, .has_best = e->st.best_tpl >= 0,
                        .best = e->st.best_hash,
                        .best_fitness = e->st.best_fitness,
                        .n_islands = e->n_isl, .archive_cells = e->arc.n,
                        .compilers = e->env.compilers, .t = elapsed_s(e)};
    /* the budget cut this generation's children (those it deferred,
     * e->carry now, were children too, and so were the optional ones it
     * dropped: counted in runs with the spare fill, whose journals were
     * made since; a resume with a larger budget replays them so) */
    long kids = e->st.evals + e->n_carry +
                (e->env.spec->fill_spare ? e->gen_dropped : 0);
    if (evals_cap(e) > 0 && kids >= evals_cap(e))
        g.evals_budget = evals_cap(e);
    int total = 0;
    for (int i = 0; i < e->n_isl; i++)
        total += e->isl[i].n;
    g.island_n = calloc((size_t)e->n_isl + 1, sizeof *g.island_n);
    g.members = calloc((size_t)total + 1, sizeof *g.members);
    cJSON *o = NULL;
    if (g.island_n && g.members) {
        for (int i = 0, at = 0; i < e->n_isl; i++) {
            g.island_n[i] = e->isl[i].n;
            for (int k = 0; k < e->isl[i].n; k++)
                g.members[at++] = e->isl[i].m[k].g.hash;
        }
        o = rec_gen_json(&g);
    }
    rec_gen_release(&g);
    cJSON *ms = o ? cJSON_AddObjectToObject(o, "engine_ms") : NULL;
    if (ms) {
        cJSON_AddNumberToObject(ms, "breed", round(e->ms_breed * 10) / 10);
        cJSON_AddNumberToObject(ms, "sources",
                                round(e->ms_sources * 10) / 10);
        cJSON_AddNumberToObject(ms, "after", round(e->ms_after * 10) / 10);
        cJSON_AddNumberToObject(ms, "finish_last",
                                round(e->ms_finish_last * 10) / 10);
    }
    return o;
}

static cJSON *checkpoint_json(struct engine *e)
{
    char hex[17];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "gen", e->gen);
    cJSON_AddNumberToObject(o, "journal_records",
                            (double)runlog_pos(e->env.log));
    cJSON *r = cJSON_AddArrayToObject(o, "rng");
    for (int i = 0; i < 4; i++) {
        hash_hex(e->rng.s[i], hex);
        cJSON_AddItemToArray(r, cJSON_CreateString(hex));
    }
    cJSON *isl = cJSON_AddArrayToObject(o, "islands");
    for (int i = 0; i < e->n_isl; i++) {
        cJSON *a = cJSON_CreateArray();
        for (int k = 0; k < e->isl[i].n; k++) {
            const struct member *m = &e->isl[i].m[k];
            cJSON_AddItemToArray(a, genome_json(&m->g, m->fitness, m->median_ns));
        }
        cJSON_AddItemToArray(isl, a);
    }
    cJSON_AddItemToObject(o, "archive", archive_to_json(&e->arc));
    if (e->st.best_tpl >= 0) {
        struct genome g = {.tpl = e->st.best_tpl, .hash = e->st.best_hash};
        memcpy(g.vals, e->st.best_vals, sizeof g.vals);
        cJSON *b = genome_json(&g, e->st.best_fitness, e->st.best_median_ns);
        cJSON_AddNumberToObject(b, "ratio", e->st.best_ratio);
        cJSON_AddNumberToObject(b, "gen", e->st.best_gen);
        cJSON_AddItemToObject(o, "best", b);
    }
    if (e->env.llm_on)
        cJSON_AddItemToObject(o, "llm", engine_llm_to_json(e));
    if (engine_pipe_on(e))
        cJSON_AddItemToObject(o, "next", engine_pipe_to_json(e));
    if (engine_pipe_on(e) && e->next_cap > 0)
        cJSON_AddNumberToObject(o, "next_cap", (double)e->next_cap);
    cJSON *carry = engine_defer_to_json(e);
    if (carry)
        cJSON_AddItemToObject(o, "carry", carry);
    cJSON_AddNumberToObject(o, "elapsed_s", elapsed_s(e));
    return o;
}

static int write_checkpoint(struct engine *e)
{
    if (!runlog_writes(e->env.log))
        return KEVO_OK;
    char path[4096];
    if (fs_join(path, sizeof path, e->env.run_dir, "checkpoint.json"))
        return KEVO_EINVAL;
    cJSON *o = checkpoint_json(e);
    if (!o)
        return KEVO_ENOMEM;
    /* printed and written on bgw's thread while the next generation is
     * bred and measured */
    return bgw_failed(e, bgwrite_json(&e->bgw, path, o));
}

static int finish_generation(struct engine *e)
{
    long long t0 = fs_now_ns();
    /* the sources it names on disk before the generation's record */
    int rc = bgw_failed(e, bgwrite_wait(&e->bgw));
    if (rc)
        return rc;
    cJSON *rec = gen_record(e);
    rc = rec ? runlog_put(e->env.log, rec, 1) : KEVO_ENOMEM;
    cJSON_Delete(rec);
    if (rc)
        return rc;
    e->st.gen = e->gen;
    engine_fill_roll(e);
    engine_report_gen(e);
    rc = write_checkpoint(e);
    e->ms_finish_last = ms_since(t0);
    return rc;
}

/* ----------------------------------------------------------- the loop */

static enum engine_stop budget_reached(struct engine *e)
{
    const struct spec *s = e->env.spec;
    if (e->env.stop && *e->env.stop)
        return STOP_SIGNAL;
    if (s->max_generations > 0 && e->st.gen + 1 >= s->max_generations)
        return STOP_GENERATIONS;
    if (s->max_evals > 0 && e->st.evals >= s->max_evals)
        return STOP_EVALS;
    if (s->max_time_s > 0 && elapsed_s(e) >= s->max_time_s)
        return STOP_TIME;
    if (s->stagnation > 0 && e->st.gen >= 0 &&
        e->st.gen - e->st.best_gen >= s->stagnation)
        return STOP_STAGNATION;
    return STOP_NONE;
}

static int one_generation(struct engine *e)
{
    int rc;
    long long t0 = fs_now_ns();
    e->ms_breed = e->ms_sources = e->ms_after = 0;
    clear_children(e);
    e->gen = e->st.gen + 1;
    e->gen_cap = engine_recorded_cap(e, e->gen);
    engine_prof_soon(e);
    if (e->env.llm_on) {
        /* gen 0 asks for proposals; with no template of the run's dtype
         * they are the initial population, else they join generation 1 */
        if (e->gen == 0 && (rc = engine_llm_propose(e)))
            return rc;
        if ((e->gen > 0 || engine_llm_usable_tpls(e) == 0) &&
            (rc = engine_llm_collect(e)))
            return rc;
        if ((rc = engine_llm_until_usable(e)) || e->st.stop != STOP_NONE)
            return rc;
    }
    /* those the last generation deferred first (engine_defer.c); then
     * those bred while it was measured (engine_pipe.c), or now */
    if ((rc = engine_defer_take(e)))
        return rc;
    if (!engine_pipe_take(e) && (rc = engine_make_children(e)))
        return rc;
    e->ms_breed = ms_since(t0);
    if (e->n_kids == 0 && e->n_pend == 0) {
        e->st.stop = STOP_EXHAUSTED;
        return KEVO_OK;
    }
    if ((rc = evaluate_children(e)))
        return rc;
    long long t1 = fs_now_ns();
    if ((rc = engine_llm_after_eval(e)))
        return rc;
    if ((rc = update_best(e)))
        return rc;
    select_survivors(e);
    migrate(e);
    e->ms_after = ms_since(t1);
    return finish_generation(e);
}

int engine_run(struct engine *e, char *err, size_t errcap)
{
    int rc = KEVO_OK;
    e->t0_ns = fs_now_ns();
    busy_init(&e->sess_busy);
    e->errbuf[0] = '\0';
    engine_clear_end(e);
    while (!rc && e->st.stop == STOP_NONE) {
        enum engine_stop s = budget_reached(e);
        if (s != STOP_NONE) {
            e->st.stop = s;
            break;
        }
        rc = one_generation(e);
    }
    e->st.elapsed_s = elapsed_s(e);
    if (e->st.stop == STOP_SIGNAL && !rc)
        rc = KEVO_ESTOPPED;
    if (e->st.stop == STOP_TIME && rc == KEVO_ESTOPPED)
        rc = KEVO_OK; /* a budget, not an interruption */
    int cw = bgwrite_wait(&e->bgw); /* (the error said is the one kept) */
    if (cw && (!rc || rc == KEVO_ESTOPPED))
        rc = bgw_failed(e, cw);
    if (!rc && e->st.evals == 0)
        rc = engine_llm_end_check(e); /* nothing for want of answers? */
    int wr = rc ? KEVO_OK : engine_note_end(e);
    if (wr) {
        snprintf(e->errbuf, sizeof e->errbuf, "cannot write end.json in "
                 "'%s': %s", e->env.run_dir, kevo_strerror(wr));
        rc = wr;
    }
    const struct runlog_divergence *d = runlog_divergence(e->env.log);
    if (rc == KEVO_EDIVERGE && d->index >= 0)
        snprintf(err, errcap, "journal record %ld differs from what the "
                 "engine produced: %s", d->index + 1, d->what);
    else if (rc && rc != KEVO_ESTOPPED)
        snprintf(err, errcap, "%s",
                 e->errbuf[0] ? e->errbuf
                 : runlog_error(e->env.log)[0] ? runlog_error(e->env.log)
                                               : kevo_strerror(rc));
    if (e->env.prog)
        progress_finish(e->env.prog);
    return rc;
}

/* ----------------------------------------------------- construction */

static int restore_islands(struct engine *e, const cJSON *arr)
{
    if (cJSON_GetArraySize(arr) != e->n_isl)
        return KEVO_EPARSE;
    for (int i = 0; i < e->n_isl; i++) {
        const cJSON *a = cJSON_GetArrayItem(arr, i), *m;
        cJSON_ArrayForEach(m, a)
        {
            struct member *x = &e->isl[i].m[e->isl[i].n];
            if (e->isl[i].n >= e->cap_members ||
                genome_from_json(m, &x->g, &x->fitness, &x->median_ns) ||
                x->g.tpl < 0 || x->g.tpl >= e->n_tpls)
                return KEVO_EPARSE;
            e->isl[i].n++;
        }
    }
    return KEVO_OK;
}

static int restore_best(struct engine *e, const cJSON *b)
{
    struct genome g;
    double f, ns;
    if (!b)
        return KEVO_OK;
    if (genome_from_json(b, &g, &f, &ns) || g.tpl < 0 || g.tpl >= e->n_tpls)
        return KEVO_EPARSE;
    e->st.best_tpl = g.tpl;
    e->st.best_hash = g.hash;
    memcpy(e->st.best_vals, g.vals, sizeof g.vals);
    e->st.best_fitness = f;
    e->st.best_median_ns = ns;
    e->st.best_ratio = record_num(b, "ratio", 0);
    e->st.best_gen = record_int(b, "gen", 0);
    describe(e, &g, e->best_what, sizeof e->best_what);
    runlog_set_best(e->env.log, ns);
    return KEVO_OK;
}

static int restore(struct engine *e, const cJSON *ck)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(ck, "rng");
    if (cJSON_GetArraySize(r) != 4)
        return KEVO_EPARSE;
    for (int i = 0; i < 4; i++) {
        const cJSON *s = cJSON_GetArrayItem(r, i);
        if (!cJSON_IsString(s) || hash_parse(s->valuestring, &e->rng.s[i]))
            return KEVO_EPARSE;
    }
    e->st.gen = record_int(ck, "gen", -2);
    e->env.elapsed_before_s = record_num(ck, "elapsed_s", 0);
    if (e->st.gen < 0 ||
        runlog_seek(e->env.log, (long)record_i64(ck, "journal_records", -1)))
        return KEVO_EPARSE;
    int rc = engine_llm_restore(e, ck);
    if (!rc)
        rc = restore_islands(e, cJSON_GetObjectItemCaseSensitive(ck, "islands"));
    if (!rc)
        rc = archive_from_json(&e->arc,
                               cJSON_GetObjectItemCaseSensitive(ck, "archive"));
    if (!rc)
        rc = restore_best(e, cJSON_GetObjectItemCaseSensitive(ck, "best"));
    if (!rc)
        rc = engine_pipe_restore(e, ck);
    if (!rc)
        rc = engine_defer_restore(e, ck);
    return rc;
}

/* Counts the evaluations before the log's position (the checkpoint's)
 * and marks their genomes as seen. */
static int count_history(struct engine *e)
{
    for (long i = 0; i < runlog_pos(e->env.log); i++) {
        const cJSON *o = runlog_recorded(e->env.log, i);
        struct rec_eval r;
        char why[128];
        if (rec_type_of(o) == REC_PROFILE && engine_prof_note_record(e, o))
            return KEVO_ENOMEM;
        if (rec_type_of(o) != REC_EVAL)
            continue;
        int rc = rec_eval_parse(o, &r, why, sizeof why);
        if (!rc)
            rc = seen_add(&e->seen, r.hash);
        if (!rc)
            rc = engine_llm_note_record(e, &r);
        if (!rc)
            rc = engine_sur_note_record(e, &r);
        if (!rc) {
            e->st.evals++;
            e->st.outcomes[r.r.outcome]++;
            /* (the last finished generation's sizes the next fill) */
            engine_fill_note(e, r.gen == e->st.gen ? &e->fill_last : NULL,
                             r.mutator, &r.r);
        }
        rec_eval_release(&r);
        if (rc)
            return rc;
    }
    return KEVO_OK;
}

static int alloc_engine(const struct engine_env *env, struct engine **out)
{
    struct engine *e = calloc(1, sizeof *e);
    if (!e)
        return KEVO_ENOMEM;
    e->env = *env;
    e->n_isl = env->spec->islands;
    e->cap_members = env->spec->population + env->spec->offspring *
                     (env->spec->islands + 1) + env->n_tpls *
                     (env->spec->init_random + 1) + 1;
    if (env->spec->fill) /* the fill's children (engine_fill.c) */
        e->cap_members += env->spec->fill_per_bred * env->spec->offspring *
                          env->spec->islands;
    if (env->llm_on)
        e->cap_members += env->spec->llm_per_gen + env->spec->llm_propose +
                          env->spec->offspring * env->spec->islands;
    e->isl = calloc((size_t)e->n_isl, sizeof *e->isl);
    e->n_base = env->n_tpls;
    e->pts = calloc((size_t)env->n_tpls + 1, sizeof *e->pts);
    e->pts_state = calloc((size_t)env->n_tpls + 1, 1);
    int rc = e->isl && e->pts && e->pts_state ? seen_init(&e->seen)
                                              : KEVO_ENOMEM;
    if (!rc)
        rc = seen_init(&e->written);
    for (int i = 0; !rc && i < e->n_isl; i++)
        if (!(e->isl[i].m = calloc((size_t)e->cap_members, sizeof(struct member))))
            rc = KEVO_ENOMEM;
    archive_init(&e->arc);
    if (!rc)
        rc = engine_llm_init(e);
    if (!rc)
        rc = engine_prof_init(e);
    e->st.gen = -1;
    e->st.best_tpl = -1;
    *out = e;
    return rc;
}

/* With env.points: the set of their genome hashes (the search space). */
static int index_points(struct engine *e)
{
    if (!e->env.points)
        return KEVO_OK;
    int rc = seen_init(&e->members);
    e->has_members = !rc;
    for (int t = 0; !rc && t < e->env.n_tpls; t++) {
        const struct pointset *ps = &e->env.points[t];
        for (long i = 0; !rc && i < ps->n; i++) {
            int64_t vals[TPL_MAX_PARAMS] = {0};
            pointset_get(ps, e->env.tpls[t], i, vals);
            rc = seen_add(&e->members, genome_hash(e->env.tpls[t], vals));
        }
    }
    return rc;
}

int engine_new(const struct engine_env *env, const cJSON *checkpoint,
               struct engine **out, char *err, size_t errcap)
{
    struct engine *e = NULL;
    int rc = alloc_engine(env, &e);
    if (!e)
        return KEVO_ENOMEM;
    if (!rc)
        rc = index_points(e);
    rng_seed(&e->rng, env->spec->seed);
    if (!rc && checkpoint && (rc = restore(e, checkpoint)))
        snprintf(err, errcap, "malformed checkpoint");
    if (!rc && (rc = count_history(e)))
        snprintf(err, errcap, "malformed journal record before the checkpoint");
    if (rc) {
        if (rc == KEVO_ENOMEM)
            snprintf(err, errcap, "out of memory");
        engine_free(e);
        return rc;
    }
    *out = e;
    return KEVO_OK;
}

void engine_free(struct engine *e)
{
    if (!e)
        return;
    bgwrite_release(&e->bgw);
    clear_children(e);
    free(e->kids);
    engine_clear_kids(e->next, e->n_next);
    free(e->next);
    engine_clear_kids(e->carry, e->n_carry);
    free(e->carry);
    for (int i = 0; e->isl && i < e->n_isl; i++)
        free(e->isl[i].m);
    free(e->isl);
    archive_release(&e->arc);
    seen_release(&e->seen);
    seen_release(&e->written);
    srcmemo_release(&e->srcs);
    engine_llm_free(e);
    engine_prof_free(e);
    for (int t = 0; e->pts && t < e->n_base; t++)
        pointset_release(&e->pts[t]);
    free(e->pts);
    free(e->pts_state);
    free(e->sweep);
    if (e->has_members)
        seen_release(&e->members);
    engine_sur_release(e);
    if (e->has_compiled)
        seen_release(&e->compiled);
    free(e->hist);
    free(e->fill_done);
    free(e);
}
