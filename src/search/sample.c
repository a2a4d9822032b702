/*
 * sample.c - point lists and samples over them (see sample.h).
 */
#include "sample.h"

#include "hash.h"
#include "seen.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

void pointset_init(struct pointset *ps, int n_params)
{
    memset(ps, 0, sizeof *ps);
    ps->n_params = n_params;
}

void pointset_release(struct pointset *ps)
{
    free(ps->idx);
    pointset_init(ps, ps->n_params);
}

static int add_idx(struct pointset *ps, const uint8_t *row)
{
    if (ps->n == ps->cap) {
        long cap = ps->cap ? ps->cap * 2 : 256;
        size_t w = ps->n_params ? (size_t)ps->n_params : 1;
        void *p = realloc(ps->idx, (size_t)cap * w);
        if (!p)
            return KEVO_ENOMEM;
        ps->idx = p;
        ps->cap = cap;
    }
    memcpy(ps->idx + (size_t)ps->n * (size_t)ps->n_params, row,
           (size_t)ps->n_params);
    ps->n++;
    return KEVO_OK;
}

int pointset_add(struct pointset *ps, const struct tpl *t, const int64_t *vals)
{
    uint8_t row[TPL_MAX_PARAMS];
    for (int i = 0; i < t->n_params; i++) {
        int at = tpl_value_index(t, i, vals[i]);
        if (at < 0)
            return KEVO_EINVAL;
        row[i] = (uint8_t)at;
    }
    return add_idx(ps, row);
}

int pointset_enumerate(struct pointset *ps, const struct tpl *t,
                       const struct tpl_device *dev, sample_ok_fn ok,
                       void *ud)
{
    if (tpl_space_raw(t) > SAMPLE_ENUM_LIMIT)
        return KEVO_ETOOBIG;
    uint8_t at[TPL_MAX_PARAMS] = {0};
    int64_t vals[TPL_MAX_PARAMS] = {0};
    const int np = t->n_params;
    for (int i = 0; i < np; i++)
        vals[i] = t->params[i].values[0];
    for (;;) {
        if (tpl_point_valid(t, vals, dev) && (!ok || ok(ud, vals))) {
            int rc = add_idx(ps, at);
            if (rc)
                return rc;
        }
        int i = np - 1; /* odometer step, last parameter fastest */
        for (; i >= 0; i--) {
            const struct tpl_param *p = &t->params[i];
            if (++at[i] < p->n_values) {
                vals[i] = p->values[at[i]];
                break;
            }
            at[i] = 0;
            vals[i] = p->values[0];
        }
        if (i < 0)
            return KEVO_OK;
    }
}

int pointset_sample(struct pointset *ps, const struct tpl *t,
                    const struct tpl_device *dev, sample_ok_fn ok, void *ud,
                    long n, struct rng *r)
{
    struct seen got;
    int rc = seen_init(&got);
    uint8_t at[TPL_MAX_PARAMS];
    int64_t vals[TPL_MAX_PARAMS] = {0};
    for (long tries = 0; !rc && ps->n < n && tries < 50 * n; tries++) {
        for (int i = 0; i < t->n_params; i++) {
            const struct tpl_param *p = &t->params[i];
            at[i] = (uint8_t)rng_below(r, (uint64_t)p->n_values);
            vals[i] = p->values[at[i]];
        }
        /* the value indices' bytes, 8 at a time (a key, not a stored hash:
         * millions of tries) */
        uint64_t h = hash_final(hash_bytes(HASH_SEED, at,
                                           (size_t)t->n_params)) | 1;
        if (seen_has(&got, h) || !tpl_point_valid(t, vals, dev) ||
            (ok && !ok(ud, vals)))
            continue;
        if (!(rc = seen_add(&got, h)))
            rc = add_idx(ps, at);
    }
    seen_release(&got);
    return rc;
}

void pointset_get(const struct pointset *ps, const struct tpl *t, long i,
                  int64_t *vals)
{
    const uint8_t *row = ps->idx + (size_t)i * (size_t)ps->n_params;
    for (int k = 0; k < ps->n_params; k++)
        vals[k] = t->params[k].values[row[k]];
}

void sample_shuffle(long *perm, long n, struct rng *r)
{
    for (long i = n - 1; i > 0; i--) {
        long j = (long)rng_below(r, (uint64_t)i + 1);
        long x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
}

/* Strata of parameter p for a hypercube of k points: its values, or k
 * bins of neighbouring values when it has more than k. */
static int bins_of(const struct tpl *t, int p, long k)
{
    int nv = t->params[p].n_values;
    return nv < k ? nv : (int)k;
}

/* Per parameter and value index, for one hypercube of k points: the
 * stratum (bin) a value falls in, and its weight in the distance. */
struct lhs_tab {
    uint8_t bin[TPL_MAX_PARAMS][TPL_MAX_VALUES];
    double w[TPL_MAX_PARAMS];
    /* pick's, per target: a value's distance term and whether it covers
     * a new stratum */
    double dterm[TPL_MAX_PARAMS][TPL_MAX_VALUES];
    uint8_t fresh[TPL_MAX_PARAMS][TPL_MAX_VALUES];
};

static void lhs_tab_init(struct lhs_tab *tb, const struct tpl *t, long k)
{
    for (int j = 0; j < t->n_params; j++) {
        int nv = t->params[j].n_values, nb = bins_of(t, j, k);
        tb->w[j] = nv > 1 ? 1.0 / ((double)(nv - 1) * (nv - 1)) : 0;
        for (int v = 0; v < nv; v++)
            tb->bin[j][v] = (uint8_t)(v * nb / nv);
    }
}

/* The point of ps (not taken) that covers the most strata no chosen point
 * covers yet (covered[p][bin]; launch-only params do not count), nearest
 * to target (value indices, normalized by each parameter's value count)
 * among those, the first from index start on (wrapping) among equals; -1
 * if none. A point's terms come from tables made once per pick (the
 * same arithmetic, in the same order, as per point). */
static long pick(const struct pointset *ps, const struct tpl *t,
                 struct lhs_tab *tb, const double *target,
                 const uint8_t *taken, uint8_t (*covered)[TPL_MAX_VALUES],
                 long start)
{
    double best = DBL_MAX;
    long at = -1;
    const int np = ps->n_params;
    for (int j = 0; j < np; j++)
        for (int v = 0; v < t->params[j].n_values; v++) {
            double x = v - target[j];
            tb->dterm[j][v] = x * x * tb->w[j];
            tb->fresh[j][v] = !t->params[j].launch_only && /* (at default) */
                          !covered[j][tb->bin[j][v]];
        }
    for (long ii = 0; ii < ps->n; ii++) {
        long i = ii + start < ps->n ? ii + start : ii + start - ps->n;
        if (taken[i])
            continue;
        const uint8_t *row = ps->idx + (size_t)i * (size_t)np;
        int gain = 0;
        double d = 0;
        for (int j = 0; j < np; j++) {
            gain += tb->fresh[j][row[j]];
            d += tb->dterm[j][row[j]];
        }
        d -= gain * 1e6; /* a new stratum outweighs any distance */
        if (d < best) {
            best = d;
            at = i;
        }
    }
    return at;
}

long sample_lhs(const struct pointset *ps, const struct tpl *t, long k,
                struct rng *r, long *out)
{
    const int np = ps->n_params;
    if (k > ps->n)
        k = ps->n;
    if (k <= 0)
        return 0;
    long *perm = malloc(sizeof *perm * (size_t)k * (size_t)(np ? np : 1));
    uint8_t *taken = calloc((size_t)ps->n, 1);
    uint8_t(*covered)[TPL_MAX_VALUES] = calloc(TPL_MAX_PARAMS,
                                               sizeof *covered);
    if (!perm || !taken || !covered) {
        free(perm);
        free(taken);
        free(covered);
        return 0;
    }
    for (int j = 0; j < np; j++) {
        long *p = perm + (size_t)j * (size_t)k;
        for (long s = 0; s < k; s++)
            p[s] = s;
        sample_shuffle(p, k, r);
    }
    struct lhs_tab tb;
    lhs_tab_init(&tb, t, k);
    long got = 0;
    for (long s = 0; s < k; s++) {
        double target[TPL_MAX_PARAMS];
        for (int j = 0; j < np; j++) {
            /* the middle of stratum perm[s] of k, as a value index */
            long st = perm[(size_t)j * (size_t)k + (size_t)s];
            int nv = t->params[j].n_values;
            target[j] = t->params[j].launch_only
                            ? t->params[j].def
                            : (double)(long)(((double)st + 0.5) * nv /
                                             (double)k);
        }
        /* a random start: equals are not always the list's first */
        long at = pick(ps, t, &tb, target, taken, covered,
                       (long)rng_below(r, (uint64_t)ps->n));
        if (at < 0)
            break;
        taken[at] = 1;
        out[got++] = at;
        const uint8_t *row = ps->idx + (size_t)at * (size_t)np;
        for (int j = 0; j < np; j++)
            covered[j][tb.bin[j][row[j]]] = 1;
    }
    free(perm);
    free(taken);
    free(covered);
    return got;
}
