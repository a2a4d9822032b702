/*
 * holdorder.c - the order a fan-out hands a batch to sub-evaluators that
 * compile what they hold (see holdorder.h). Owns the cost model and the
 * set of source hashes some sub has answered for.
 */
#include "holdorder.h"

#include <pthread.h>
#include <stdlib.h>

#include "seen.h"

struct holdorder {
    struct ccost *cost;    /* owned, may be NULL */
    pthread_mutex_t mu;    /* built */
    struct seen built;     /* source hashes with a binary */
};

struct holdorder *holdorder_new(struct ccost *m)
{
    struct holdorder *h = calloc(1, sizeof *h);
    if (!h || seen_init(&h->built)) {
        free(h);
        ccost_free(m);
        return NULL;
    }
    h->cost = m;
    pthread_mutex_init(&h->mu, NULL);
    return h;
}

void holdorder_free(struct holdorder *h)
{
    if (!h)
        return;
    ccost_free(h->cost);
    seen_release(&h->built);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

int holdorder_order(void *ud, const struct candidate *const *cands, int n,
                    int *order)
{
    struct holdorder *h = ud;
    int rc = ccost_order(h->cost, cands, n, order);
    int *need = malloc(sizeof *need * (size_t)(n > 0 ? n : 1));
    int *have = malloc(sizeof *have * (size_t)(n > 0 ? n : 1));
    if (rc || !need || !have) {
        free(need);
        free(have);
        return rc ? rc : KEVO_ENOMEM;
    }
    int nn = 0, nh = 0;
    pthread_mutex_lock(&h->mu);
    for (int i = 0; i < n; i++) {
        if (seen_has(&h->built, cands[order[i]]->source_hash))
            have[nh++] = order[i];
        else
            need[nn++] = order[i];
    }
    pthread_mutex_unlock(&h->mu);
    /* after the j-th one that needs a compile, as many that need none as
     * bring them to j * nh / nn (rounded down); the rest at the end */
    int o = 0, th = 0;
    for (int j = 1; j <= nn; j++) {
        order[o++] = need[j - 1];
        long upto = (long)j * nh / nn;
        while (th < upto)
            order[o++] = have[th++];
    }
    while (th < nh)
        order[o++] = have[th++];
    free(need);
    free(have);
    return KEVO_OK;
}

int holdorder_built(void *ud, const struct candidate *c)
{
    struct holdorder *h = ud;
    pthread_mutex_lock(&h->mu);
    int b = seen_has(&h->built, c->source_hash);
    pthread_mutex_unlock(&h->mu);
    return b;
}

void holdorder_learn(void *ud, const struct candidate *c,
                     const struct eval_result *r)
{
    struct holdorder *h = ud;
    if (r->deferred)
        return;
    ccost_observe(h->cost, c, r->compile_ms);
    pthread_mutex_lock(&h->mu);
    int rc = seen_add(&h->built, c->source_hash);
    pthread_mutex_unlock(&h->mu);
    (void)rc; /* out of memory: the candidate is ordered as if unbuilt */
}
