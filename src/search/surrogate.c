/*
 * surrogate.c - the random forest (see surrogate.h). Trees are stored as
 * flat node arrays; a node splits on "x[feat] <= cut" or is a leaf.
 */
#include "surrogate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpus.h"
#include "hash.h"
#include "rng.h"

struct node {
    int feat;       /* -1 = leaf */
    int cut;        /* go left if code <= cut */
    int left, right;
    double value;   /* leaf: mean target */
};

struct tree {
    struct node *n;
    int count, cap;
};

struct surrogate {
    int d, n_trees;
    struct tree *t;
};

struct fit {
    const uint8_t *x;
    const double *y;
    int d;
    const struct sur_opts *o;
    struct rng *r;
    int *feats;     /* scratch: feature order */
    const int *hi;  /* per feature: its highest code in x */
    const int *top; /* per feature: its highest code below 255 (a cut at
                       255 leaves nothing on the right) */
    const uint8_t *xt; /* x by feature: xt[f * n + row], a column per
                          feature (a split scans one: L1, not a cache
                          line a row) */
    int n;          /* rows of x */
    double *yv;     /* scratch: the node's targets, in idx order */
};

static int new_node(struct tree *t)
{
    if (t->count == t->cap) {
        int cap = t->cap ? t->cap * 2 : 64;
        void *p = realloc(t->n, sizeof *t->n * (size_t)cap);
        if (!p)
            return -1;
        t->n = p;
        t->cap = cap;
    }
    t->n[t->count] = (struct node){.feat = -1};
    return t->count++;
}

/* Best split of idx[0..n) on feature f: returns the gain (reduction of the
 * sum of squares) and the cut; 0 if no split leaves min_leaf on each side. */
static double best_cut(const struct fit *F, const int *idx, int n, int f,
                       double tot, int *cut)
{
    /* only the codes the feature has: value indices are few, and deep
     * nodes hold few rows, so clearing and scanning all 256 bins was most
     * of a fit */
    const uint8_t *col = F->xt + (size_t)f * (size_t)F->n;
    int i0 = 0;
    while (i0 < n && col[idx[i0]] == col[idx[0]])
        i0++;
    if (i0 == n) /* one code in this node (another family's feature, in a
                    node of one family): no split, nothing to add up */
        return 0;
    int top = F->top[f];
    int cnt[256];
    double sum[256];
    memset(cnt, 0, sizeof *cnt * (size_t)(F->hi[f] + 1));
    memset(sum, 0, sizeof *sum * (size_t)(F->hi[f] + 1));
    for (int i = 0; i < n; i++) {
        int c = col[idx[i]];
        cnt[c]++;
        sum[c] += F->yv[i];
    }
    double base = tot * tot / n, best = 0;
    int nl = 0;
    double sl = 0;
    for (int c = 0; c <= top; c++) {
        if (!cnt[c])
            continue;
        nl += cnt[c];
        sl += sum[c];
        int nr = n - nl;
        if (nl < F->o->min_leaf || nr < F->o->min_leaf)
            continue;
        double g = sl * sl / nl + (tot - sl) * (tot - sl) / nr - base;
        if (g > best + 1e-12) {
            best = g;
            *cut = c;
        }
    }
    return best;
}

/* Grows the subtree of node at over idx[0..n); returns 0 or -1 (memory). */
static int grow(struct fit *F, struct tree *t, int at, int *idx, int n,
                int depth)
{
    double tot = 0;
    for (int i = 0; i < n; i++) {
        F->yv[i] = F->y[idx[i]];
        tot += F->yv[i];
    }
    double mean = tot / n;
    t->n[at].value = mean;
    if (depth >= F->o->max_depth || n < 2 * F->o->min_leaf)
        return 0;
    /* mtry features, a random subset (partial Fisher-Yates) */
    int mtry = F->o->mtry > 0 ? F->o->mtry : F->d / 3;
    if (mtry < 1)
        mtry = 1;
    if (mtry > F->d)
        mtry = F->d;
    for (int i = 0; i < F->d; i++)
        F->feats[i] = i;
    int bf = -1, bc = 0;
    double bg = 0;
    for (int k = 0; k < mtry; k++) {
        int j = k + (int)rng_below(F->r, (uint64_t)(F->d - k));
        int f = F->feats[j];
        F->feats[j] = F->feats[k];
        F->feats[k] = f;
        int c = 0;
        double g = best_cut(F, idx, n, f, tot, &c);
        if (g > bg) {
            bg = g;
            bf = f;
            bc = c;
        }
    }
    if (bf < 0)
        return 0;
    /* partition idx: codes <= bc first */
    int l = 0;
    for (int i = 0; i < n; i++)
        if (F->x[(size_t)idx[i] * (size_t)F->d + (size_t)bf] <= bc) {
            int tmp = idx[l];
            idx[l++] = idx[i];
            idx[i] = tmp;
        }
    int left = new_node(t), right = left >= 0 ? new_node(t) : -1;
    if (right < 0)
        return -1;
    t->n[at].feat = bf;
    t->n[at].cut = bc;
    t->n[at].left = left;
    t->n[at].right = right;
    if (grow(F, t, left, idx, l, depth + 1))
        return -1;
    return grow(F, t, right, idx + l, n - l, depth + 1);
}

void surrogate_free(struct surrogate *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n_trees; i++)
        free(s->t[i].n);
    free(s->t);
    free(s);
}

/* One grower's scratch: its own PRNG, sample and buffers. */
struct grower {
    struct fit F;
    struct rng r;
    int *idx;
    struct surrogate *s;
    uint64_t seed;
    int first, end;  /* apart: trees first .. end - 1 (a run of them: the
                        trees one thread writes sit together) */
    int rc;
};

static int grower_init(struct grower *g, const struct fit *F, int n, int d)
{
    g->F = *F;
    g->F.r = &g->r;
    g->idx = malloc(sizeof *g->idx * (size_t)n);
    g->F.feats = malloc(sizeof *g->F.feats * (size_t)d);
    g->F.yv = malloc(sizeof *g->F.yv * (size_t)n);
    return g->idx && g->F.feats && g->F.yv ? KEVO_OK : KEVO_ENOMEM;
}

static void grower_free(struct grower *g)
{
    free(g->idx);
    free(g->F.feats);
    free(g->F.yv);
}

/* Tree k from g's PRNG as it stands. */
static int grow_tree(struct grower *g, int k)
{
    int n = g->F.n;
    for (int i = 0; i < n; i++) /* bootstrap sample */
        g->idx[i] = (int)rng_below(&g->r, (uint64_t)n);
    int root = new_node(&g->s->t[k]);
    return root < 0 || grow(&g->F, &g->s->t[k], root, g->idx, n, 0)
               ? KEVO_ENOMEM
               : KEVO_OK;
}

/* apart: trees first .. end - 1, each from its own PRNG */
static void *grow_apart(void *arg)
{
    struct grower *g = arg;
    for (int k = g->first; !g->rc && k < g->end; k++) {
        rng_seed(&g->r, hash_final(hash_u64(g->seed, (uint64_t)k)));
        g->rc = grow_tree(g, k);
    }
    return NULL;
}

static int grow_forest(const struct fit *F, const struct sur_opts *o,
                       uint64_t seed, struct surrogate *s)
{
    struct grower g[CPUS_MAX_JOBS];
    int nt = o->apart && o->threads > 1 ? o->threads : 1, rc = KEVO_OK;
    if (nt > CPUS_MAX_JOBS)
        nt = CPUS_MAX_JOBS;
    if (nt > o->trees)
        nt = o->trees;
    memset(g, 0, sizeof g);
    s->n_trees = o->trees;
    for (int t = 0; t < nt && !rc; t++) {
        g[t] = (struct grower){.s = s, .seed = seed,
                               .first = o->trees * t / nt,
                               .end = o->trees * (t + 1) / nt};
        rc = grower_init(&g[t], F, F->n, F->d);
    }
    if (!rc && !o->apart) { /* one PRNG, the trees in turn */
        rng_seed(&g[0].r, seed);
        for (int k = 0; k < o->trees && !rc; k++)
            rc = grow_tree(&g[0], k);
    } else if (!rc) {
        cpus_run(nt, grow_apart, g, sizeof *g);
        for (int t = 0; t < nt && !rc; t++)
            rc = g[t].rc;
    }
    for (int t = 0; t < nt; t++)
        grower_free(&g[t]);
    return rc;
}

int surrogate_fit(const uint8_t *x, const double *y, int n, int d,
                  const struct sur_opts *o, uint64_t seed,
                  struct surrogate **out)
{
    if (n < 2 || d < 1 || o->trees < 1)
        return KEVO_EINVAL;
    struct surrogate *s = calloc(1, sizeof *s);
    int *hi = calloc((size_t)d, sizeof *hi), *top = calloc((size_t)d,
                                                             sizeof *top);
    uint8_t *xt = malloc((size_t)n * (size_t)d);
    int rc = s && hi && top && xt ? KEVO_OK : KEVO_ENOMEM;
    for (size_t i = 0; !rc && i < (size_t)n; i++)
        for (size_t f = 0; f < (size_t)d; f++) {
            uint8_t c = x[i * (size_t)d + f];
            xt[f * (size_t)n + i] = c;
            if (c > hi[f])
                hi[f] = c;
            if (c < 255 && c > top[f])
                top[f] = c;
        }
    if (!rc && !(s->t = calloc((size_t)o->trees, sizeof *s->t)))
        rc = KEVO_ENOMEM;
    struct fit F = {x, y, d, o, NULL, NULL, hi, top, xt, n, NULL};
    if (!rc)
        rc = grow_forest(&F, o, seed, s);
    free(hi);
    free(top);
    free(xt);
    if (rc) {
        surrogate_free(s);
        return rc;
    }
    s->d = d;
    *out = s;
    return KEVO_OK;
}

double surrogate_predict(const struct surrogate *s, const uint8_t *x,
                         double *sd)
{
    double sum = 0, sq = 0;
    for (int k = 0; k < s->n_trees; k++) {
        const struct node *n = s->t[k].n;
        int at = 0;
        while (n[at].feat >= 0)
            at = x[n[at].feat] <= n[at].cut ? n[at].left : n[at].right;
        sum += n[at].value;
        sq += n[at].value * n[at].value;
    }
    double mean = sum / s->n_trees;
    if (sd) {
        double v = sq / s->n_trees - mean * mean;
        *sd = v > 0 ? sqrt(v) : 0;
    }
    return mean;
}
