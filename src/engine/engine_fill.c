/*
 * engine_fill.c - the GPU fill (spec "fill", issue 32): launch-only
 * neighbours of measured points, added to a generation to use the time
 * the GPU would otherwise spend waiting for compiles.
 *
 * Why: a point that differs from a measured one only in launch-only
 * parameters (tpl.h "arg", or a param only grid/block/smem expressions
 * name) shares its binary, so it costs a check and a timing (fp32 GEMM
 * 4096^3: 32 ms on the H200) and no compile (0.5-4 s of a CPU). Where
 * compiles set the pace the GPU idles 40-80 % of a run (issue 32), and
 * those idle milliseconds can measure such neighbours for free.
 *
 * What: after the bred children, the fill appends F children: for every
 * island member and archive elite, each value of each launch-only
 * parameter not yet measured; when those are fewer than FILL_CHOICE x F,
 * the same for the run's other ok points, fastest first, until they are
 * not (so the fill does not run dry once the members' neighbours are
 * measured). They are rated by the surrogate, best first (ties: lower
 * genome hash). They come last in the batch, and the evaluator
 * gives the worker the lowest-numbered candidate whose binary is ready,
 * so they run only when no bred child is ready: before the first compile
 * ends, and in the gaps between compiles.
 *
 * How many: F = FILL_SHARE x (the last finished generation's worker idle
 * + the GPU time its fill took) / its mean GPU time per evaluation, at
 * most fill_per_bred (spec, 8 by default) per bred child. The idle time
 * is what each result records (evidence phase_ms.worker_idle, how long
 * the GPU evaluator's worker had been without a job, since its last
 * answer to any request, across batches: under MPI the rank's wait for
 * its next request); check and timing ms are recorded too, so a replay
 * or a resume computes the same F from the journal: the decision depends
 * on recorded numbers, never on the clock. When the fill outruns the
 * compiles (no idle left), F shrinks by FILL_SHARE a generation.
 * Evaluators that record no idle time (the test and table evaluators)
 * get no fill unless they report some.
 */
#include "engine_int.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

/* Share of the last generation's idle GPU time the fill plans to use:
 * below 1, so the fill shrinks when it outruns the compiles. */
#define FILL_SHARE 0.8
/* Candidates the surrogate chooses the fill from, per fill child. */
#define FILL_CHOICE 4

const char engine_fill_mutator[] = "launch";

void engine_fill_note(struct engine *e, struct fill_stats *s, const char *m,
                      const struct eval_result *r)
{
    double wait, procs;
    busy_fill_facts(r, &wait, &procs);
    struct fill_compiles *c = &e->fill_comp;
    if (r->compile_ms > 0 && r->compile_ms < 1e9) {
        c->ms += r->compile_ms;
        c->n++;
    }
    if (procs > 0)
        c->procs = procs;
    if (!s)
        return;
    double gpu = (r->check_ms > 0 ? r->check_ms : 0) +
                 (r->time_ms > 0 ? r->time_ms : 0);
    s->idle_ms += wait;
    s->gpu_ms += gpu;
    if (m && !strcmp(m, engine_fill_mutator))
        s->fill_gpu_ms += gpu;
    s->n++;
}

void engine_fill_roll(struct engine *e)
{
    e->fill_last = e->fill_cur;
    memset(&e->fill_cur, 0, sizeof e->fill_cur);
}

/* How many fill children generation e->gen gets (before the caps). */
static long fill_size(const struct engine *e)
{
    const struct fill_stats *s = &e->fill_last;
    if (s->n <= 0 || s->gpu_ms <= 0)
        return 0;
    double per = s->gpu_ms / (double)s->n;
    double f = FILL_SHARE * (s->idle_ms + s->fill_gpu_ms) / per;
    return f < 1 ? 0 : f > 1e9 ? 1000000000L : (long)f;
}

/* Point m with the launch-only values of vals, as a child of island i,
 * into out unless it is measured, in out already (then *left = 1),
 * invalid or not supported; else *left = 1. */
static int offer(struct engine *e, int i, const struct genome *m,
                 const int64_t *vals, struct pool *out, int *left)
{
    const struct tpl *t = engine_tpl_of(e, m);
    struct child c = {.g = *m, .island = i, .mutator = engine_fill_mutator,
                      .n_par = 1, .par = {m->hash, 0}};
    memcpy(c.g.vals, vals, sizeof c.g.vals);
    genome_rehash(&c.g, t);
    if (c.g.hash == m->hash || seen_has(&e->seen, c.g.hash))
        return KEVO_OK;
    if (engine_pool_has(out, c.g.hash)) {
        *left = 1;
        return KEVO_OK;
    }
    if (!tpl_point_valid(t, c.g.vals, &e->env.dev) ||
        !engine_supports(e, &c.g))
        return KEVO_OK;
    *left = 1;
    return engine_pool_add(out, &c);
}

/* At most this many points of one binary's launch-only grid are looked
 * at (spec fill_grid): softmax's have 42 (OCC x GRID). */
#define FILL_GRID_MAX 512

/* The binaries whose whole launch-only grid one engine_fill_add looked
 * at already, and of those the ones with a point left: the same grid is
 * every measured point's of one binary (softmax: up to 45 points a
 * binary, each looking at all 42), and what a look adds and says is the
 * same for all of them, the measured set and the validity being fixed
 * during the fill (with fill_grid, a grid of at most FILL_GRID_MAX). */
struct grids {
    struct seen done, left;
};

/* The unmeasured launch-only neighbours of measured point m, as
 * children of island i, into out: with spec fill_grid, every other point
 * of its binary (each combination of its launch-only values, the last
 * param's fastest, from m's own on: in a grid of more than FILL_GRID_MAX
 * points each measured point offers the FILL_GRID_MAX after it, so the
 * points of one binary together reach all of it); else those that differ in one
 * launch-only param (what runs made before fill_grid did: a binary's
 * other combinations only through its measured neighbours, so on
 * softmax, with 42 points a binary, generations ran short of fill while
 * the GPU waited for compiles, bench/results/2026-11-30-h200x2-s30).
 * *left: 1 if m has a neighbour neither measured nor invalid (added, or
 * in out already). gr (NULL: none): each whole grid looked at once. */
static int neighbours(struct engine *e, int i, const struct genome *m,
                      struct pool *out, int *left, struct grids *gr)
{
    const struct tpl *t = engine_tpl_of(e, m);
    int rc = KEVO_OK, lp[TPL_MAX_PARAMS], n = 0;
    int64_t vals[TPL_MAX_PARAMS];
    long size = 1;
    *left = 0;
    for (int p = 0; p < t->n_params; p++)
        if (t->params[p].launch_only && t->params[p].n_values > 0) {
            lp[n++] = p;
            size = size * t->params[p].n_values > FILL_GRID_MAX
                       ? FILL_GRID_MAX + 1
                       : size * t->params[p].n_values;
        }
    uint64_t key = 0;
    if (gr && n > 0 && e->env.spec->fill_grid && size <= FILL_GRID_MAX) {
        int have;
        key = hash_u64(engine_sur_binary(e, m, &have), (uint64_t)m->tpl);
        if (seen_has(&gr->done, key)) {
            *left = seen_has(&gr->left, key);
            return KEVO_OK;
        }
    }
    memcpy(vals, m->vals, sizeof vals);
    if (!e->env.spec->fill_grid) {
        for (int k = 0; k < n && !rc; k++) {
            int p = lp[k];
            for (int v = 0; v < t->params[p].n_values && !rc; v++) {
                if (t->params[p].values[v] == m->vals[p])
                    continue;
                vals[p] = t->params[p].values[v];
                rc = offer(e, i, m, vals, out, left);
            }
            vals[p] = m->vals[p];
        }
        return rc;
    }
    int at[TPL_MAX_PARAMS] = {0};
    for (int k = 0; k < n; k++) /* m's own combination (else the first) */
        for (int v = 0; v < t->params[lp[k]].n_values; v++)
            if (t->params[lp[k]].values[v] == m->vals[lp[k]])
                at[k] = v;
    for (int looked = 0; n > 0 && looked < FILL_GRID_MAX && !rc;
         looked++) {
        int k = n - 1; /* the next combination, round the grid */
        while (k >= 0 && ++at[k] == t->params[lp[k]].n_values)
            at[k--] = 0;
        for (k = 0; k < n; k++)
            vals[lp[k]] = t->params[lp[k]].values[at[k]];
        rc = offer(e, i, m, vals, out, left);
        if (!memcmp(vals, m->vals, sizeof vals))
            break; /* round to m: every point looked at */
    }
    if (!rc && key && !(rc = seen_add(&gr->done, key)) && *left)
        rc = seen_add(&gr->left, key);
    return rc;
}

/* Neighbours of the run's ok points (the surrogate's history), fastest
 * first, into p until it holds want candidates; island: the point's
 * history index modulo the islands. A point none of whose neighbours is
 * left is marked done and not looked at again (the measured set only
 * grows), so long runs do not rescan their history every generation; a
 * resumed run marks them again as it meets them, with the same result. */
static int history_neighbours(struct engine *e, struct pool *p, long want,
                              struct grids *gr)
{
    if (e->cap_fill_done < e->n_hist) {
        long cap = e->n_hist * 2;
        unsigned char *d = realloc(e->fill_done, (size_t)cap);
        if (!d)
            return KEVO_ENOMEM;
        memset(d + e->cap_fill_done, 0, (size_t)(cap - e->cap_fill_done));
        e->fill_done = d;
        e->cap_fill_done = cap;
    }
    long *ix = malloc(sizeof *ix * (size_t)(e->n_hist > 0 ? e->n_hist : 1));
    if (!ix)
        return KEVO_ENOMEM;
    long n = 0;
    for (long i = 0; i < e->n_hist; i++)
        if (e->hist[i].ok && e->hist[i].tpl < e->n_tpls && !e->fill_done[i])
            ix[n++] = i;
    qsort_r(ix, (size_t)n, sizeof *ix, engine_hist_by_fitness, e->hist);
    int rc = KEVO_OK;
    for (long k = 0; k < n && p->n < want && !rc; k++) {
        const struct sur_hist *h = &e->hist[ix[k]];
        const struct tpl *t = e->tpls[h->tpl];
        struct genome g = {.tpl = h->tpl};
        for (int i = 0; i < t->n_params; i++)
            g.vals[i] = t->params[i].values[h->at[i]];
        genome_rehash(&g, t);
        int left;
        rc = neighbours(e, (int)(ix[k] % e->n_isl), &g, p, &left, gr);
        e->fill_done[ix[k]] = !left;
    }
    free(ix);
    return rc;
}

/* The spare fill (spec fill_spare): past the planned fill, up to
 * fill_spare halves of it more (0 to 4; 2, the default: as many; at least
 * half as many as the bred children), the next best rated, optional: the
 * evaluator measures them
 * only while a compile keeps the GPU from every required candidate, and
 * drops the rest when the generation's required candidates are measured
 * (eval.h set_drop). The planned size follows the last generation's idle
 * time, but the idle sits in the generation's last compiles, whose length
 * changes from one generation to the next: on two H200s softmax fp32
 * 4096^2 left each GPU 0.5 s of a 1.8 s generation idle with the planned
 * fill measured (bench/results/2026-11-29-h200-s23); with half the
 * planned fill as spare (fill_spare 1), two H200s (and two MPI ranks)
 * still measured all of it in most generations (bench/results/
 * 2026-11-29-h200-s24, call 2).
 * Measured spare ones count as fill in the next generation's size. Not
 * with the pipeline or LLM mutation (as fill0).
 *
 * The compile rule (spec fill_compile): the last generation's idle time
 * does not see this one's compiles, and their number changes from one
 * generation to the next (softmax fp32 4096^2, one H200 and 16 CPUs: 24
 * to 119 a generation; the worker waited 2.2-3.4 s for the generation
 * with the most, bench/results/2026-11-30-h200x2-s29). So the spare is at
 * least what the GPU can measure while this generation's compiles run,
 * less what needs no compile: the distinct binaries its children need
 * that the run has not measured, times the run's mean compile time,
 * over the compile processes a GPU has (recorded with each result,
 * evidence "compilers"), in the last generation's GPU time an
 * evaluation, less the planned fill, the children whose binary the run
 * has and the compiled children themselves. Every number is one the
 * results record, so a replay or a resume sizes it alike; 0 until a
 * result records compile processes (the test and table evaluators). */
static long compile_spare(struct engine *e, long f, int *rc)
{
    const struct fill_compiles *c = &e->fill_comp;
    const struct fill_stats *s = &e->fill_last;
    if (!e->env.spec->fill_compile || c->n <= 0 || c->procs <= 0 ||
        s->n <= 0 || s->gpu_ms <= 0)
        return 0;
    struct seen keys;
    if ((*rc = seen_init(&keys)))
        return 0;
    long compiles = 0, ready = 0;
    for (int k = 0; k < e->n_kids && !*rc; k++) {
        int have;
        uint64_t key = engine_sur_binary(e, &e->kids[k].g, &have);
        if (have)
            ready++;
        else if (!seen_has(&keys, key)) {
            *rc = seen_add(&keys, key);
            compiles++;
        }
    }
    seen_release(&keys);
    double wall_ms = (double)compiles * (c->ms / (double)c->n) / c->procs;
    double n = wall_ms / (s->gpu_ms / (double)s->n) -
               (double)(f + ready + compiles);
    return n < 1 ? 0 : n > 1e9 ? 1000000000L : (long)n;
}

static long spare_size(struct engine *e, long f, int *rc)
{
    const struct spec *s = e->env.spec;
    if (!s->fill_spare || s->pipeline || e->env.llm_on)
        return 0;
    long n = f * s->fill_spare / 2, k = e->n_kids / 2;
    long c = compile_spare(e, f, rc);
    n = n > k ? n : k;
    return n > c ? n : c;
}

int engine_fill_add(struct engine *e)
{
    if (!e->env.spec->fill || !e->sur || e->n_kids == 0)
        return KEVO_OK;
    long most = (long)e->env.spec->fill_per_bred * e->n_kids;
    long cap = engine_evals_cap(e);
    long f = fill_size(e);
    if (f > most)
        f = most;
    int rc = KEVO_OK;
    long spare = spare_size(e, f, &rc);
    if (rc)
        return rc;
    if (spare > most - f)
        spare = most - f;
    if (cap > 0) {
        long left = cap - e->st.evals - e->in_flight - e->n_kids;
        if (f > left)
            f = left;
        if (spare > left - f)
            spare = left - f;
    }
    if (f < 0)
        f = 0;
    if (spare < 0)
        spare = 0;
    long want = f + spare;
    if (want <= 0)
        return KEVO_OK;
    struct pool p = {0};
    struct grids gr;
    int left;
    if (seen_init(&gr.done))
        return KEVO_ENOMEM;
    if (seen_init(&gr.left)) {
        seen_release(&gr.done);
        return KEVO_ENOMEM;
    }
    for (int i = 0; i < e->n_isl && !rc; i++)
        for (int k = 0; k < e->isl[i].n && !rc; k++)
            rc = neighbours(e, i, &e->isl[i].m[k].g, &p, &left, &gr);
    /* and the archive's elites (diverse kernels the islands may have
     * lost), as children of island 0 */
    for (int k = 0; k < e->arc.n && !rc; k++)
        rc = neighbours(e, 0, &e->arc.cells[k].g, &p, &left, &gr);
    if (!rc && p.n < FILL_CHOICE * want)
        rc = history_neighbours(e, &p, FILL_CHOICE * want, &gr);
    seen_release(&gr.done);
    seen_release(&gr.left);
    for (int k = 0; k < p.n && !rc; k++)
        p.c[k].score = engine_sur_score(e, &p.c[k].g);
    if (!rc && p.n)
        qsort(p.c, (size_t)p.n, sizeof *p.c, engine_by_score);
    for (int k = 0; k < p.n && k < want && !rc; k++) {
        p.c[k].optional = k >= f;
        rc = engine_add_child(e, &p.c[k]);
    }
    engine_pool_free(&p);
    return rc;
}

/* Generation 0's fill (spec fill0): nothing is measured before it, so the
 * fill above has no idle time to size it by, and the GPU waited for
 * generation 0's compiles (softmax fp32 4096^2 on the H200: 5 of its 9 s,
 * bench/results/2026-11-29-h200-s22). Each of its points gets up to
 * FILL0_UNIT x fill0 launch-only neighbours (a pseudo-random pick: lowest
 * genome hash first), taken in turn across the points; they are
 * optional: the evaluator measures them while compiles run (they share
 * their point's binary) and drops those not measured when the rest is
 * (eval.h set_drop), so they never make generation 0 longer. Which were
 * dropped is a journal record ("defer" with "dropped"), so replay stays
 * exact; a dropped one is not seen (the fill may offer it again later).
 * Not with the pipeline (the next generation is bred while this one is
 * measured, its optional ones not yet seen). 8 a point (fill0 2, the
 * default) rather than 4: once softmax_block and softmax_cluster had GRID
 * as well as OCC, two H200s measured all but 10 of the 4 a point while
 * generation 0's compiles ran, and still waited 2.8 s for them (bench/
 * results/2026-11-30-h200x2-s27). */
#define FILL0_UNIT 4

static int by_hash(const void *a, const void *b)
{
    const struct child *x = a, *y = b;
    return (x->g.hash > y->g.hash) - (x->g.hash < y->g.hash);
}

int engine_fill0_add(struct engine *e)
{
    const struct spec *s = e->env.spec;
    if (!s->fill || !s->fill0 || e->env.llm_on || s->pipeline ||
        e->gen != 0 || e->n_kids == 0)
        return KEVO_OK;
    const int per = FILL0_UNIT * s->fill0;
    long n = e->n_kids, f = per * n, cap = engine_evals_cap(e);
    if (cap > 0 && f > cap - e->st.evals - e->in_flight - n)
        f = cap - e->st.evals - e->in_flight - n;
    if (f <= 0)
        return KEVO_OK;
    struct pool q = {0}, p = {0};
    int left, rc = KEVO_OK;
    for (long k = 0; k < n && !rc; k++) {
        engine_pool_clear(&q);
        if ((rc = neighbours(e, e->kids[k].island, &e->kids[k].g, &q,
                             &left, NULL)) || !q.n)
            continue;
        qsort(q.c, (size_t)q.n, sizeof *q.c, by_hash);
        for (int r = 0; r < q.n && r < per && !rc; r++) {
            if (engine_pool_has(&p, q.c[r].g.hash))
                continue;
            struct child c = q.c[r];
            c.score = -((double)r * (double)n + (double)k); /* in turn */
            c.optional = 1;
            rc = engine_pool_add(&p, &c);
        }
    }
    if (!rc && p.n)
        qsort(p.c, (size_t)p.n, sizeof *p.c, engine_by_score);
    for (int k = 0; k < p.n && k < f && !rc; k++)
        rc = engine_add_child(e, &p.c[k]);
    engine_pool_free(&q);
    engine_pool_free(&p);
    return rc;
}
