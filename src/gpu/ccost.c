/*
 * ccost.c - the compile-cost model (see ccost.h): per-feature sums of log
 * compile times in an open-addressing table keyed by feature hash.
 */
#include "ccost.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "tpl.h"

struct feat {
    uint64_t key;  /* 0 = empty slot */
    double sum;    /* of log(ms) */
    long n;
};

struct ccost {
    pthread_mutex_t lock;
    struct feat *tab;
    long cap, used;
    double all_sum;
    long all_n;
};

struct ccost *ccost_new(void)
{
    struct ccost *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->cap = 256;
    m->tab = calloc((size_t)m->cap, sizeof *m->tab);
    if (!m->tab) {
        free(m);
        return NULL;
    }
    pthread_mutex_init(&m->lock, NULL);
    return m;
}

int ccost_wanted(void)
{
    const char *e = getenv("KEVO_COMPILE_ORDER");
    return !e || strcmp(e, "index");
}

void ccost_free(struct ccost *m)
{
    if (!m)
        return;
    pthread_mutex_destroy(&m->lock);
    free(m->tab);
    free(m);
}

/* The template's feature (param < 0) or that of its param-th value. */
static uint64_t feat_key(const struct candidate *c, int param)
{
    uint64_t h = hash_str(HASH_SEED, c->tpl->name);
    if (param >= 0) {
        h = hash_str(h, c->tpl->params[param].name);
        h = hash_u64(h, (uint64_t)c->vals[param]);
    }
    h = hash_final(h);
    return h ? h : 1;
}

/* The slot of key: its entry, or the empty slot where it would go. */
static struct feat *slot_of(struct feat *tab, long cap, uint64_t key)
{
    long i = (long)(key & (uint64_t)(cap - 1));
    while (tab[i].key && tab[i].key != key)
        i = (i + 1) & (cap - 1);
    return &tab[i];
}

/* Doubles the table; 0, or -1 when out of memory (the table unchanged). */
static int grow(struct ccost *m)
{
    long cap = m->cap * 2;
    struct feat *tab = calloc((size_t)cap, sizeof *tab);
    if (!tab)
        return -1;
    for (long i = 0; i < m->cap; i++)
        if (m->tab[i].key)
            *slot_of(tab, cap, m->tab[i].key) = m->tab[i];
    free(m->tab);
    m->tab = tab;
    m->cap = cap;
    return 0;
}

static void add(struct ccost *m, uint64_t key, double lg)
{
    if (2 * (m->used + 1) > m->cap && grow(m))
        return; /* out of memory: this observation is lost, no harm */
    struct feat *f = slot_of(m->tab, m->cap, key);
    if (!f->key) {
        f->key = key;
        m->used++;
    }
    f->sum += lg;
    f->n++;
}

void ccost_observe(struct ccost *m, const struct candidate *c, double ms)
{
    if (!m || !(ms > 0))
        return;
    double lg = log(ms);
    pthread_mutex_lock(&m->lock);
    add(m, feat_key(c, -1), lg);
    for (int i = 0; i < c->tpl->n_params; i++)
        add(m, feat_key(c, i), lg);
    m->all_sum += lg;
    m->all_n++;
    pthread_mutex_unlock(&m->lock);
}

/* Mean log time of key's feature into *mean; 0 if never seen. */
static int mean_of(const struct ccost *m, uint64_t key, double *mean)
{
    const struct feat *f = slot_of(m->tab, m->cap, key);
    if (!f->key || !f->n)
        return 0;
    *mean = f->sum / (double)f->n;
    return 1;
}

/* The prediction in log(ms), under the lock; 0 with *known = 0 when the
 * model is empty. */
static double predict_log(const struct ccost *m, const struct candidate *c,
                          int *known)
{
    double sum = 0, mean;
    int n = 0;
    *known = 1;
    for (int i = 0; i < c->tpl->n_params; i++)
        if (mean_of(m, feat_key(c, i), &mean)) {
            sum += mean;
            n++;
        }
    if (n)
        return sum / n;
    if (mean_of(m, feat_key(c, -1), &mean))
        return mean;
    if (m->all_n)
        return m->all_sum / (double)m->all_n;
    *known = 0;
    return 0;
}

double ccost_predict(struct ccost *m, const struct candidate *c)
{
    if (!m)
        return 0;
    int known;
    pthread_mutex_lock(&m->lock);
    double lg = predict_log(m, c, &known);
    pthread_mutex_unlock(&m->lock);
    return known ? exp(lg) : 0;
}

struct keyed {
    double cost;
    int idx;
};

/* Longest first; ties in index order. */
static int by_cost_desc(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? 1 : -1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

int ccost_order(struct ccost *m, const struct candidate *const *cands, int n,
                int *order)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    if (!m || n <= 1)
        return KEVO_OK;
    struct keyed *k = malloc((size_t)n * sizeof *k);
    char *taken = calloc((size_t)n, 1);
    if (!k || !taken) {
        free(k);
        free(taken);
        return KEVO_ENOMEM;
    }
    int known = 0;
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < n; i++) {
        int kn;
        k[i].cost = predict_log(m, cands[i], &kn);
        k[i].idx = i;
        known |= kn;
    }
    pthread_mutex_unlock(&m->lock);
    if (known) {
        qsort(k, (size_t)n, sizeof *k, by_cost_desc);
        /* CCOST_INDEX_RUN from index order, then one from longest first,
         * skipping what is taken, until all are placed */
        int o = 0, next_i = 0, next_k = 0;
        while (o < n) {
            for (int r = 0; r < CCOST_INDEX_RUN && o < n; r++) {
                while (taken[next_i])
                    next_i++;
                taken[next_i] = 1;
                order[o++] = next_i;
            }
            while (o < n && taken[k[next_k].idx])
                next_k++;
            if (o < n) {
                taken[k[next_k].idx] = 1;
                order[o++] = k[next_k].idx;
            }
        }
    }
    free(k);
    free(taken);
    return KEVO_OK;
}
