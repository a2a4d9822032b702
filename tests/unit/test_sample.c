/*
 * test_sample.c - point lists and samples (sample.h): enumeration agrees
 * with the template's space, the Latin hypercube covers every parameter's
 * range with distinct points and is fixed by the seed, shuffles are
 * permutations.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sample.h"

/* 4 x 5 x 8 x 3 = 480 points, no constraint */
static const char tpl_free_text[] =
    "// kevo: problem gemm\n"
    "// kevo: dtypes fp32\n"
    "// kevo: param A 1 2 3 4 default=1\n"
    "// kevo: param B 10 20 30 40 50 default=10\n"
    "// kevo: param C 0 1 2 3 4 5 6 7 default=0\n"
    "// kevo: param D 7 8 9 default=7\n"
    "// kevo: launch k\n"
    "// kevo: block 32\n"
    "extern \"C\" __global__ void k(const elem_t *A_, const elem_t *B_,\n"
    "    elem_t *C_, int M, int N, int K, void *ws)\n"
    "{ int x = A + B + C + D; (void)x; }\n";

/* the same with a constraint that removes part of the space */
static const char tpl_cons_text[] =
    "// kevo: problem gemm\n"
    "// kevo: dtypes fp32\n"
    "// kevo: param A 1 2 3 4 default=1\n"
    "// kevo: param B 10 20 30 40 50 default=10\n"
    "// kevo: param C 0 1 2 3 4 5 6 7 default=0\n"
    "// kevo: param D 7 8 9 default=7\n"
    "// kevo: constraint A * C <= 12\n"
    "// kevo: constraint B + 10 * D <= 120\n"
    "// kevo: launch k\n"
    "// kevo: block 32\n"
    "extern \"C\" __global__ void k(const elem_t *A_, const elem_t *B_,\n"
    "    elem_t *C_, int M, int N, int K, void *ws)\n"
    "{ int x = A + B + C + D; (void)x; }\n";

/* L is launch-only (only the grid names it): 4 x 5 x 4 points */
static const char tpl_launch_text[] =
    "// kevo: problem gemm\n"
    "// kevo: dtypes fp32\n"
    "// kevo: param A 1 2 3 4 default=1\n"
    "// kevo: param B 10 20 30 40 50 default=10\n"
    "// kevo: param L 1 2 3 4 default=3\n"
    "// kevo: launch k\n"
    "// kevo: grid L\n"
    "// kevo: block 32\n"
    "extern \"C\" __global__ void k(const elem_t *A_, const elem_t *B_,\n"
    "    elem_t *C_, int M, int N, int K, void *ws)\n"
    "{ int x = A + B; (void)x; }\n";

static struct tpl *parse(const char *text)
{
    struct tpl *t = NULL;
    char err[512];
    if (tpl_parse("t", NULL, text, &t, err, sizeof err)) {
        fprintf(stderr, "template: %s\n", err);
        exit(1);
    }
    return t;
}

static int odd_c(void *ud, const int64_t *vals)
{
    (void)ud;
    return vals[2] % 2 == 1;
}

static void test_enumeration(void)
{
    struct tpl *f = parse(tpl_free_text), *c = parse(tpl_cons_text);
    struct pointset a, b, o;
    pointset_init(&a, f->n_params);
    pointset_init(&b, c->n_params);
    pointset_init(&o, c->n_params);
    CHECK(pointset_enumerate(&a, f, NULL, NULL, NULL) == KEVO_OK);
    CHECK(pointset_enumerate(&b, c, NULL, NULL, NULL) == KEVO_OK);
    CHECK(pointset_enumerate(&o, c, NULL, odd_c, NULL) == KEVO_OK);
    CHECK(a.n == 480);
    CHECK((uint64_t)b.n == tpl_space_size(c, NULL, 1000000));
    CHECK(b.n > 0 && b.n < 480);
    long odd = 0;
    for (long i = 0; i < b.n; i++) {
        int64_t v[TPL_MAX_PARAMS];
        pointset_get(&b, c, i, v);
        CHECK(tpl_point_valid(c, v, NULL));
        odd += v[2] % 2 == 1;
    }
    CHECK(o.n == odd); /* the filter keeps exactly the points it accepts */
    pointset_release(&a);
    pointset_release(&b);
    pointset_release(&o);
    tpl_free(f);
    tpl_free(c);
}

/* Runs a hypercube of k points; returns how many values of each
 * parameter it missed (summed) and checks the points are distinct. */
static int lhs_missed(const struct tpl *t, const struct pointset *ps, long k,
                      uint64_t seed, long *out)
{
    struct rng r;
    rng_seed(&r, seed);
    long n = sample_lhs(ps, t, k, &r, out);
    CHECK(n == (k < ps->n ? k : ps->n));
    for (long i = 0; i < n; i++)
        for (long j = 0; j < i; j++)
            CHECK(out[i] != out[j]);
    int missed = 0;
    for (int p = 0; p < t->n_params; p++)
        for (int v = 0; v < t->params[p].n_values; v++) {
            int hit = 0;
            for (long i = 0; i < n; i++)
                hit |= ps->idx[out[i] * ps->n_params + p] == v;
            missed += !hit;
        }
    return missed;
}

static void test_lhs_covers_ranges(void)
{
    struct tpl *f = parse(tpl_free_text), *c = parse(tpl_cons_text);
    struct pointset a, b;
    long out[64], out2[64];
    pointset_init(&a, f->n_params);
    pointset_init(&b, c->n_params);
    CHECK(pointset_enumerate(&a, f, NULL, NULL, NULL) == KEVO_OK);
    CHECK(pointset_enumerate(&b, c, NULL, NULL, NULL) == KEVO_OK);
    /* 8 samples >= every parameter's value count: every value is hit */
    for (uint64_t seed = 1; seed <= 20; seed++)
        CHECK_MSG(lhs_missed(f, &a, 8, seed, out) == 0, "seed %llu",
                  (unsigned long long)seed);
    /* with constraints the nearest valid point still spans the ranges */
    for (uint64_t seed = 1; seed <= 20; seed++)
        CHECK_MSG(lhs_missed(c, &b, 16, seed, out) == 0, "seed %llu",
                  (unsigned long long)seed);
    /* 3 samples: each parameter still gets 3 distinct values (strata) */
    struct rng r;
    rng_seed(&r, 5);
    CHECK(sample_lhs(&a, f, 3, &r, out) == 3);
    for (int p = 0; p < f->n_params; p++) {
        uint8_t v0 = a.idx[out[0] * 4 + p], v1 = a.idx[out[1] * 4 + p],
                v2 = a.idx[out[2] * 4 + p];
        CHECK(v0 != v1 && v1 != v2 && v0 != v2);
    }
    /* fixed by the seed; another seed, another hypercube */
    lhs_missed(f, &a, 8, 7, out);
    lhs_missed(f, &a, 8, 7, out2);
    CHECK(!memcmp(out, out2, sizeof(long) * 8));
    lhs_missed(f, &a, 8, 8, out2);
    CHECK(memcmp(out, out2, sizeof(long) * 8));
    /* more samples than points: every point once */
    CHECK(lhs_missed(f, &a, 64, 3, out) == 0);
    pointset_release(&a);
    pointset_release(&b);
    tpl_free(f);
    tpl_free(c);
}

/* The hypercube cuts the compiled params only: a launch-only one stays at
 * its default (the fill measures its other values without a compile). */
static void test_lhs_holds_launch_only(void)
{
    struct tpl *t = parse(tpl_launch_text);
    CHECK(t->params[2].launch_only && !t->params[0].launch_only);
    struct pointset ps;
    long out[8];
    pointset_init(&ps, t->n_params);
    CHECK(pointset_enumerate(&ps, t, NULL, NULL, NULL) == KEVO_OK);
    CHECK(ps.n == 80);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        struct rng r;
        rng_seed(&r, seed);
        long n = sample_lhs(&ps, t, 4, &r, out);
        CHECK(n == 4);
        int a_hit = 0;
        for (long i = 0; i < n; i++) {
            const uint8_t *row = ps.idx + out[i] * ps.n_params;
            CHECK_MSG(row[2] == t->params[2].def, "seed %llu: L at %d",
                      (unsigned long long)seed, row[2]);
            a_hit |= 1 << row[0];
        }
        CHECK(a_hit == 15); /* A's 4 values still cut into 4 strata */
    }
    pointset_release(&ps);
    tpl_free(t);
}

static void test_sampled_list(void)
{
    struct tpl *c = parse(tpl_cons_text);
    struct pointset all, a, b;
    struct rng r;
    pointset_init(&all, c->n_params);
    pointset_init(&a, c->n_params);
    pointset_init(&b, c->n_params);
    CHECK(pointset_enumerate(&all, c, NULL, odd_c, NULL) == KEVO_OK);
    rng_seed(&r, 9);
    CHECK(pointset_sample(&a, c, NULL, odd_c, NULL, 30, &r) == KEVO_OK);
    CHECK(a.n == 30);
    for (long i = 0; i < a.n; i++) {
        int64_t v[TPL_MAX_PARAMS];
        pointset_get(&a, c, i, v);
        CHECK(tpl_point_valid(c, v, NULL) && v[2] % 2 == 1);
        for (long j = 0; j < i; j++)
            CHECK(memcmp(a.idx + i * 4, a.idx + j * 4, 4));
    }
    /* asking for more than there are: each usable point once at most */
    rng_seed(&r, 9);
    CHECK(pointset_sample(&b, c, NULL, odd_c, NULL, 100000, &r) == KEVO_OK);
    CHECK(b.n <= all.n && b.n > all.n / 2);
    pointset_release(&all);
    pointset_release(&a);
    pointset_release(&b);
    tpl_free(c);
}

static void test_shuffle_is_a_permutation(void)
{
    long p[1000], q[1000];
    int seen[1000] = {0};
    struct rng r;
    for (long i = 0; i < 1000; i++)
        p[i] = q[i] = i;
    rng_seed(&r, 1);
    sample_shuffle(p, 1000, &r);
    int moved = 0;
    for (long i = 0; i < 1000; i++) {
        CHECK(p[i] >= 0 && p[i] < 1000);
        seen[p[i]]++;
        moved += p[i] != i;
    }
    for (long i = 0; i < 1000; i++)
        CHECK(seen[i] == 1);
    CHECK(moved > 900);
    rng_seed(&r, 1);
    sample_shuffle(q, 1000, &r);
    CHECK(!memcmp(p, q, sizeof p));
}

int main(void)
{
    RUN(test_enumeration,
        "enumeration lists exactly the valid points a filter accepts");
    RUN(test_lhs_covers_ranges,
        "a Latin hypercube covers each parameter's range with distinct "
        "points, fixed by the seed");
    RUN(test_lhs_holds_launch_only,
        "a Latin hypercube keeps launch-only params at their defaults");
    RUN(test_sampled_list,
        "a sampled list holds distinct usable points, at most all of them");
    RUN(test_shuffle_is_a_permutation, "a shuffle is a seeded permutation");
    TEST_DONE();
}
