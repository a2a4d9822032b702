/*
 * test_problems.c - the problems' declarations that need no GPU: the
 * tolerance admits a correctly rounded output in every dtype and shape
 * (fp16 softmax rows past ~16k columns produce subnormal outputs), and the
 * work model counts what the issue says.
 */
#include <math.h>

#include "check.h"
#include "problem.h"

/* Worst error of a correctly rounded fp16 value near r (half a step). */
static double fp16_half_step(double r)
{
    int e;
    frexp(r, &e);               /* r = m * 2^e, m in [0.5, 1) */
    int exp2 = e - 1;           /* r in [2^exp2, 2^(exp2+1)) */
    if (exp2 < -14)
        exp2 = -14;             /* subnormals: fixed step 2^-24 */
    return ldexp(1.0, exp2 - 10) / 2;
}

static void test_softmax_fp16_subnormal(void)
{
    const struct problem *p = problem_find("softmax");
    CHECK(p != NULL);
    if (!p)
        return;
    static const int64_t cols[] = {1000, 4096, 32768, 65536, 1 << 20};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
        struct shape s = {2, {4096, cols[i]}};
        double atol, rtol;
        p->tolerance(&s, DTYPE_FP16, &atol, &rtol);
        /* typical outputs of a row around 1/COLS, and much smaller */
        for (double r = 4.0 / (double)cols[i]; r > 1e-9; r /= 3)
            CHECK_MSG(atol + rtol * r >= fp16_half_step(r),
                      "cols %lld, ref %g: tolerance %g < rounding %g",
                      (long long)cols[i], r, atol + rtol * r,
                      fp16_half_step(r));
    }
}

static void test_work_models(void)
{
    const struct problem *g = problem_find("gemm"), *s = problem_find("softmax");
    CHECK(g && s);
    if (!g || !s)
        return;
    struct shape gs = {3, {4096, 4096, 1024}}, ss = {2, {4096, 65536}};
    CHECK(g->work(&gs, DTYPE_BF16) == 2.0 * 4096 * 4096 * 1024);
    CHECK(s->work(&ss, DTYPE_FP16) == 2.0 * 4096 * 65536 * 2);
    CHECK(s->min_bytes(&ss, DTYPE_FP32) == 2.0 * 4096 * 65536 * 4);
}

int main(void)
{
    RUN(test_softmax_fp16_subnormal,
        "fp16 softmax tolerance admits correctly rounded subnormal outputs");
    RUN(test_work_models, "work models count 2MNK FLOPs and bytes read + written");
    TEST_DONE();
}
