/*
 * test_surrogate.c - the random forest (surrogate.h): it learns a
 * landscape well enough to rank unseen points, a failure class pulls its
 * region down, the same data and seed give the same forest, and a forest
 * whose trees have PRNGs of their own (apart) is the same on any number
 * of threads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rng.h"
#include "surrogate.h"

/* A 4-parameter landscape over value indices 0..7 with an interaction:
 * best at (5, 2, any, 6), and a[3] matters only when a[0] >= 4. */
static double land(const uint8_t *a)
{
    double s = -(a[0] - 5.0) * (a[0] - 5.0) - (a[1] - 2.0) * (a[1] - 2.0);
    if (a[0] >= 4)
        s -= 0.5 * (a[3] - 6.0) * (a[3] - 6.0);
    return s;
}

static void sample(struct rng *r, uint8_t *a)
{
    for (int k = 0; k < 4; k++)
        a[k] = (uint8_t)rng_below(r, 8);
}

static const struct sur_opts opts = {.trees = 32, .max_depth = 12,
                                     .min_leaf = 2};

static void test_learns_a_ranking(void)
{
    enum { N = 300, M = 400 };
    uint8_t x[N * 4], q[M * 4];
    double y[N], truth[M], pred[M];
    struct rng r;
    rng_seed(&r, 1);
    for (int i = 0; i < N; i++) {
        sample(&r, x + 4 * i);
        y[i] = land(x + 4 * i);
    }
    struct surrogate *s = NULL;
    CHECK(surrogate_fit(x, y, N, 4, &opts, 7, &s) == KEVO_OK);
    if (!s)
        return;
    for (int i = 0; i < M; i++) {
        sample(&r, q + 4 * i);
        truth[i] = land(q + 4 * i);
        pred[i] = surrogate_predict(s, q + 4 * i, NULL);
    }
    /* concordant pairs: the forest orders unseen points like the truth */
    long conc = 0, pairs = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < i; j++)
            if (truth[i] != truth[j]) {
                pairs++;
                conc += (truth[i] > truth[j]) == (pred[i] > pred[j]);
            }
    CHECK_MSG(conc > 0.8 * pairs, "%ld of %ld pairs in order", conc, pairs);
    /* the best of the unseen points by the forest is near the optimum */
    int bi = 0;
    for (int i = 1; i < M; i++)
        if (pred[i] > pred[bi])
            bi = i;
    CHECK_MSG(truth[bi] >= -4, "forest's pick scores %g (best 0)", truth[bi]);
    surrogate_free(s);
}

static void test_failures_pull_down(void)
{
    enum { N = 200 };
    uint8_t x[N * 4];
    double y[N];
    struct rng r;
    rng_seed(&r, 2);
    /* a[2] == 7 fails: target far below the correct points */
    for (int i = 0; i < N; i++) {
        sample(&r, x + 4 * i);
        y[i] = x[4 * i + 2] == 7 ? -60 : land(x + 4 * i);
    }
    struct surrogate *s = NULL;
    CHECK(surrogate_fit(x, y, N, 4, &opts, 3, &s) == KEVO_OK);
    if (!s)
        return;
    uint8_t good[4] = {5, 2, 3, 6}, bad[4] = {5, 2, 7, 6};
    double sd;
    double pg = surrogate_predict(s, good, &sd);
    double pb = surrogate_predict(s, bad, NULL);
    CHECK_MSG(pg > pb + 20, "good %g, failing %g", pg, pb);
    CHECK(sd >= 0 && isfinite(sd));
    surrogate_free(s);
}

/* 1 if forests a and b predict the same, bitwise, at the m rows of q */
static int same_forest(const struct surrogate *a, const struct surrogate *b,
                       const uint8_t *q, int m)
{
    for (int i = 0; i < m; i++) {
        double sa, sb;
        double pa = surrogate_predict(a, q + 4 * i, &sa);
        double pb = surrogate_predict(b, q + 4 * i, &sb);
        if (pa != pb || sa != sb)
            return 0;
    }
    return 1;
}

static void test_same_seed_same_forest(void)
{
    enum { N = 150, M = 100 };
    uint8_t x[N * 4], q[M * 4];
    double y[N];
    struct rng r;
    rng_seed(&r, 4);
    for (int i = 0; i < N; i++) {
        sample(&r, x + 4 * i);
        y[i] = land(x + 4 * i);
    }
    for (int i = 0; i < M; i++)
        sample(&r, q + 4 * i);
    struct surrogate *a = NULL, *b = NULL, *c = NULL;
    CHECK(surrogate_fit(x, y, N, 4, &opts, 11, &a) == KEVO_OK);
    CHECK(surrogate_fit(x, y, N, 4, &opts, 11, &b) == KEVO_OK);
    CHECK(surrogate_fit(x, y, N, 4, &opts, 12, &c) == KEVO_OK);
    if (!a || !b || !c)
        return;
    int differ = 0;
    for (int i = 0; i < M; i++)
        differ += surrogate_predict(a, q + 4 * i, NULL) !=
                  surrogate_predict(c, q + 4 * i, NULL);
    CHECK(same_forest(a, b, q, M));
    CHECK(differ > 0);
    /* too little data is refused, not guessed */
    struct surrogate *d = NULL;
    CHECK(surrogate_fit(x, y, 1, 4, &opts, 1, &d) == KEVO_EINVAL && !d);
    surrogate_free(a);
    surrogate_free(b);
    surrogate_free(c);
}

static void test_apart_any_threads(void)
{
    enum { N = 400, M = 200 };
    uint8_t x[N * 4], q[M * 4];
    double y[N];
    struct rng r;
    rng_seed(&r, 5);
    for (int i = 0; i < N; i++) {
        sample(&r, x + 4 * i);
        y[i] = land(x + 4 * i);
    }
    for (int i = 0; i < M; i++)
        sample(&r, q + 4 * i);
    /* apart: 1, 3 (32 trees do not divide), 8 and 64 (more than trees)
     * threads; one PRNG: threads change nothing */
    const int threads[] = {1, 3, 8, 64};
    struct surrogate *ap[4] = {0}, *one = NULL, *one8 = NULL;
    for (int k = 0; k < 4; k++) {
        struct sur_opts o = opts;
        o.apart = 1;
        o.threads = threads[k];
        CHECK(surrogate_fit(x, y, N, 4, &o, 21, &ap[k]) == KEVO_OK);
    }
    struct sur_opts o = opts;
    CHECK(surrogate_fit(x, y, N, 4, &o, 21, &one) == KEVO_OK);
    o.threads = 8;
    CHECK(surrogate_fit(x, y, N, 4, &o, 21, &one8) == KEVO_OK);
    if (!ap[0] || !ap[1] || !ap[2] || !ap[3] || !one || !one8)
        return;
    for (int k = 1; k < 4; k++)
        CHECK_MSG(same_forest(ap[0], ap[k], q, M),
                  "apart on %d threads differs from one", threads[k]);
    CHECK(same_forest(one, one8, q, M));
    /* the trees' own PRNGs make another forest than the one PRNG */
    CHECK(!same_forest(one, ap[0], q, M));
    /* and it learns as well: pairs of unseen points in order */
    long conc = 0, pairs = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < i; j++) {
            double ti = land(q + 4 * i), tj = land(q + 4 * j);
            if (ti == tj)
                continue;
            pairs++;
            conc += (ti > tj) == (surrogate_predict(ap[2], q + 4 * i, NULL) >
                                  surrogate_predict(ap[2], q + 4 * j, NULL));
        }
    CHECK_MSG(conc > 0.8 * pairs, "%ld of %ld pairs in order", conc, pairs);
    for (int k = 0; k < 4; k++)
        surrogate_free(ap[k]);
    surrogate_free(one);
    surrogate_free(one8);
}

int main(void)
{
    RUN(test_learns_a_ranking,
        "the forest ranks unseen points like the landscape does");
    RUN(test_failures_pull_down,
        "a failing region is rated far below a correct one");
    RUN(test_same_seed_same_forest,
        "the same data and seed give the same forest; another seed another");
    RUN(test_apart_any_threads,
        "a forest with a PRNG a tree is the same on 1, 3, 8 or 64 threads");
    TEST_DONE();
}
