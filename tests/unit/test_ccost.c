/*
 * test_ccost.c - the compile-cost model (ccost.h): an empty model keeps
 * index order; it learns per template and per parameter value, so an
 * unseen combination of seen values is predicted from them; the order it
 * gives alternates two in index order and the longest left; and, replaying
 * a batch of compile times through a simulated pool, that order finishes
 * the batch sooner than index order.
 */
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "ccost.h"
#include "check.h"
#include "tpl.h"

static struct tpl tpl_a, tpl_b;

static void make_tpls(void)
{
    memset(&tpl_a, 0, sizeof tpl_a);
    snprintf(tpl_a.name, sizeof tpl_a.name, "sgemm_a");
    tpl_a.n_params = 2;
    snprintf(tpl_a.params[0].name, sizeof tpl_a.params[0].name, "TM");
    snprintf(tpl_a.params[1].name, sizeof tpl_a.params[1].name, "BK");
    memset(&tpl_b, 0, sizeof tpl_b);
    snprintf(tpl_b.name, sizeof tpl_b.name, "softmax_b");
    tpl_b.n_params = 1;
    snprintf(tpl_b.params[0].name, sizeof tpl_b.params[0].name, "TM");
}

struct cand {
    int64_t vals[2];
    struct candidate c;
};

static void cand_set(struct cand *k, const struct tpl *t, int64_t v0,
                     int64_t v1)
{
    k->vals[0] = v0;
    k->vals[1] = v1;
    memset(&k->c, 0, sizeof k->c);
    k->c.tpl = t;
    k->c.vals = k->vals;
}

/* Compile times of sgemm_a: grow with TM and with BK (ms). */
static double cost_a(int64_t tm, int64_t bk)
{
    return 100.0 * (double)tm * (double)bk;
}

static void empty_model_keeps_index_order(void)
{
    make_tpls();
    struct ccost *m = ccost_new();
    CHECK(m);
    struct cand k[6];
    const struct candidate *cs[6];
    for (int i = 0; i < 6; i++) {
        cand_set(&k[i], &tpl_a, 1 + i, 1);
        cs[i] = &k[i].c;
    }
    int order[6];
    CHECK(ccost_predict(m, cs[0]) == 0);
    CHECK(ccost_order(m, cs, 6, order) == KEVO_OK);
    for (int i = 0; i < 6; i++)
        CHECK(order[i] == i);
    CHECK(ccost_order(NULL, cs, 6, order) == KEVO_OK);
    for (int i = 0; i < 6; i++)
        CHECK(order[i] == i);
    /* KEVO_COMPILE_ORDER=index: no model wanted */
    unsetenv("KEVO_COMPILE_ORDER");
    CHECK(ccost_wanted());
    setenv("KEVO_COMPILE_ORDER", "index", 1);
    CHECK(!ccost_wanted());
    unsetenv("KEVO_COMPILE_ORDER");
    ccost_observe(m, cs[0], 0);  /* ignored: no time */
    ccost_observe(m, cs[0], -5); /* ignored */
    CHECK(ccost_predict(m, cs[0]) == 0);
    ccost_free(m);
}

static int near(double x, double want)
{
    return fabs(x - want) <= 1e-9 * want;
}

static void learns_per_value(void)
{
    make_tpls();
    struct ccost *m = ccost_new();
    struct cand k;
    /* seen: (TM, BK) = (1, 1) 100 ms, (2, 1) 200, (8, 1) 800, (1, 2) 200 */
    const int64_t seen[][2] = {{1, 1}, {2, 1}, {8, 1}, {1, 2}};
    for (int i = 0; i < 4; i++) {
        cand_set(&k, &tpl_a, seen[i][0], seen[i][1]);
        ccost_observe(m, &k.c, cost_a(seen[i][0], seen[i][1]));
    }
    /* a seen point: the geometric mean of its values' means, TM = 1
     * (100, 200) and BK = 1 (100, 200, 800) */
    cand_set(&k, &tpl_a, 1, 1);
    double tm1 = (log(100) + log(200)) / 2;
    double bk1 = (log(100) + log(200) + log(800)) / 3;
    CHECK(near(ccost_predict(m, &k.c), exp((tm1 + bk1) / 2)));
    /* unseen combinations of seen values rank by them */
    cand_set(&k, &tpl_a, 8, 2);
    double p82 = ccost_predict(m, &k.c);
    CHECK(near(p82, exp((log(800) + log(200)) / 2)));
    cand_set(&k, &tpl_a, 2, 2);
    CHECK(ccost_predict(m, &k.c) < p82);
    /* an unseen value counts for nothing: only BK = 2 (200) is known */
    cand_set(&k, &tpl_a, 16, 2);
    CHECK(near(ccost_predict(m, &k.c), 200));
    /* no value seen: the template's mean */
    cand_set(&k, &tpl_a, 16, 64);
    double all = (log(100) + log(200) + log(800) + log(200)) / 4;
    CHECK(near(ccost_predict(m, &k.c), exp(all)));
    /* another template: the mean of everything seen (its TM is its own
     * feature, not sgemm_a's) */
    cand_set(&k, &tpl_b, 8, 0);
    CHECK(near(ccost_predict(m, &k.c), exp(all)));
    ccost_free(m);
}

/* Batch end of list scheduling of times[order[.]] on p compilers. */
static double makespan(const double *times, const int *order, int n, int p)
{
    double free_at[8] = {0};
    double end = 0;
    for (int o = 0; o < n; o++) {
        int w = 0;
        for (int j = 1; j < p; j++)
            if (free_at[j] < free_at[w])
                w = j;
        free_at[w] += times[order[o]];
        if (free_at[w] > end)
            end = free_at[w];
    }
    return end;
}

static void orders_index_pairs_then_longest(void)
{
    make_tpls();
    struct ccost *m = ccost_new();
    enum { N = 24 };
    struct cand k[N];
    const struct candidate *cs[N];
    double t[N];
    /* one generation's worth: TM 1..4 x BK 1, 2, 4 (two of each) */
    for (int i = 0; i < N; i++) {
        cand_set(&k[i], &tpl_a, 1 + i % 4, 1 << (i / 4 % 3));
        cs[i] = &k[i].c;
        t[i] = cost_a(k[i].vals[0], k[i].vals[1]);
        ccost_observe(m, cs[i], t[i]);
    }
    int order[N], index[N];
    CHECK(ccost_order(m, cs, N, order) == KEVO_OK);
    int seen[N] = {0};
    for (int i = 0; i < N; i++) {
        CHECK(order[i] >= 0 && order[i] < N);
        seen[order[i]]++;
        index[i] = i;
    }
    for (int i = 0; i < N; i++)
        CHECK(seen[i] == 1);
    /* 0, 1, then the longest (TM 4, BK 4: 11 and 23, the lower first),
     * 2, 3, then 23 */
    CHECK(order[0] == 0 && order[1] == 1 && order[2] == 11);
    CHECK(order[3] == 2 && order[4] == 3 && order[5] == 23);
    /* the index picks rise, the longest-first picks do not grow */
    int step = CCOST_INDEX_RUN + 1;
    for (int i = step; i < N; i++) {
        if (i % step == CCOST_INDEX_RUN)
            CHECK(t[order[i]] <= t[order[i - step]]);
        else if (i % step)
            CHECK(order[i] > order[i - 1]);
    }
    /* on 4 compilers the batch ends sooner than in index order */
    double by_cost = makespan(t, order, N, 4);
    double by_index = makespan(t, index, N, 4);
    CHECK(by_cost < by_index);
    printf("  24 compiles on 4 compilers: %.0f ms in index order, %.0f ms "
           "in the model's order\n", by_index, by_cost);
    ccost_free(m);
}

int main(void)
{
    RUN(empty_model_keeps_index_order, "an empty model (or none) keeps "
        "index order and ignores observations without a time; "
        "KEVO_COMPILE_ORDER=index asks for none");
    RUN(learns_per_value, "the model learns per template and per "
        "parameter value, and predicts unseen combinations from them");
    RUN(orders_index_pairs_then_longest, "the order takes two in index "
        "order, then the longest left, and ends a batch sooner than index "
        "order");
    TEST_DONE();
}
