/*
 * test_holdorder.c - the order a fan-out hands a batch to subs that
 * compile what they hold (holdorder.h): with nothing learned, the cost
 * model's order; candidates whose source some sub answered for (not a
 * deferred answer) spread evenly among the ones that need a compile,
 * which keep their order and lead; the cost model still orders the ones
 * that need a compile.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "holdorder.h"
#include "tpl.h"

static struct tpl tp;

#define N 10

struct batch {
    int64_t vals[N];
    struct candidate c[N];
    const struct candidate *p[N];
};

/* Candidate i: source hash 1000 + src[i], one parameter of value v[i]. */
static void make(struct batch *b, int n, const int *src, const int *v)
{
    memset(&tp, 0, sizeof tp);
    snprintf(tp.name, sizeof tp.name, "softmax_t");
    tp.n_params = 1;
    snprintf(tp.params[0].name, sizeof tp.params[0].name, "VEC");
    for (int i = 0; i < n; i++) {
        b->vals[i] = v ? v[i] : 1;
        memset(&b->c[i], 0, sizeof b->c[i]);
        b->c[i].tpl = &tp;
        b->c[i].vals = &b->vals[i];
        b->c[i].source_hash = 1000 + (uint64_t)src[i];
        b->c[i].genome_hash = 5000 + (uint64_t)i;
        b->p[i] = &b->c[i];
    }
}

static void answered(struct holdorder *h, const struct batch *b, int i,
                     double compile_ms, int deferred)
{
    struct eval_result r;
    memset(&r, 0, sizeof r);
    r.compile_ms = compile_ms;
    r.deferred = deferred;
    holdorder_learn(h, &b->c[i], &r);
}

static int same(const int *a, const int *b, int n)
{
    return !memcmp(a, b, sizeof *a * (size_t)n);
}

static void nothing_learned_keeps_order(void)
{
    struct holdorder *h = holdorder_new(NULL);
    CHECK(h);
    struct batch b;
    int src[N] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, o[N];
    make(&b, N, src, NULL);
    CHECK(holdorder_order(h, b.p, N, o) == KEVO_OK);
    int want[N] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    CHECK(same(o, want, N));
    /* a deferred answer says nothing about a binary */
    answered(h, &b, 3, 0, 1);
    CHECK(holdorder_order(h, b.p, N, o) == KEVO_OK && same(o, want, N));
    holdorder_free(h);
}

static void built_ones_spread(void)
{
    struct holdorder *h = holdorder_new(NULL);
    struct batch b, old;
    int s0[N] = {20, 21, 22, 23, 24, 25, 26, 27, 28, 29}, o[N];
    make(&old, N, s0, NULL);
    answered(h, &old, 2, 300, 0); /* sources 22 and 25 have a binary */
    answered(h, &old, 5, 0, 0);   /* (a cached one: no compile time) */
    /* this batch: candidates 8 and 9 share those sources (launch-only
     * neighbours), the others are new */
    int src[N] = {30, 31, 33, 34, 36, 37, 38, 39, 22, 25};
    make(&b, N, src, NULL);
    CHECK(holdorder_order(h, b.p, N, o) == KEVO_OK);
    int want[N] = {0, 1, 2, 3, 8, 4, 5, 6, 7, 9};
    CHECK_MSG(same(o, want, N), "got %d %d %d %d %d %d %d %d %d %d", o[0],
              o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9]);
    /* more with a binary than without: they follow each new one in turn */
    int src2[7] = {40, 22, 22, 41, 25, 25, 22};
    make(&b, 7, src2, NULL);
    CHECK(holdorder_order(h, b.p, 7, o) == KEVO_OK);
    int want2[7] = {0, 1, 2, 3, 4, 5, 6};
    CHECK(same(o, want2, 7));
    int src3[7] = {22, 22, 25, 25, 22, 40, 41};
    make(&b, 7, src3, NULL);
    CHECK(holdorder_order(h, b.p, 7, o) == KEVO_OK);
    int want3[7] = {5, 0, 1, 6, 2, 3, 4};
    CHECK_MSG(same(o, want3, 7), "got %d %d %d %d %d %d %d", o[0], o[1],
              o[2], o[3], o[4], o[5], o[6]);
    /* all with a binary: as they came */
    int src4[3] = {25, 22, 25};
    make(&b, 3, src4, NULL);
    CHECK(holdorder_order(h, b.p, 3, o) == KEVO_OK);
    int want4[3] = {0, 1, 2};
    CHECK(same(o, want4, 3));
    holdorder_free(h);
}

static void cost_model_orders_the_new(void)
{
    struct holdorder *h = holdorder_new(ccost_new());
    CHECK(h);
    struct batch old, b;
    /* compile time grows with VEC: 8 is the longest */
    int s0[4] = {50, 51, 52, 53}, v0[4] = {1, 2, 4, 8}, o[N];
    make(&old, 4, s0, v0);
    for (int i = 0; i < 4; i++)
        answered(h, &old, i, 100.0 * (double)v0[i], 0);
    /* new sources at VEC 1, 1, 1, 8 and one with a binary */
    int src[5] = {60, 61, 62, 63, 52}, v[5] = {1, 1, 1, 8, 4};
    make(&b, 5, src, v);
    CHECK(holdorder_order(h, b.p, 5, o) == KEVO_OK);
    /* the cost model's: two in index order, then the longest (3); the
     * one built after the fourth new one (j * 1 / 4 reaches 1 at j = 4) */
    int want[5] = {0, 1, 3, 2, 4};
    CHECK_MSG(same(o, want, 5), "got %d %d %d %d %d", o[0], o[1], o[2],
              o[3], o[4]);
    holdorder_free(h);
}

int main(void)
{
    RUN(nothing_learned_keeps_order, "with nothing learned (or only "
        "deferred answers) the order is the cost model's");
    RUN(built_ones_spread, "candidates whose source has a binary spread "
        "evenly among those that need a compile, which lead");
    RUN(cost_model_orders_the_new, "the cost model still orders the ones "
        "that need a compile");
    TEST_DONE();
}
