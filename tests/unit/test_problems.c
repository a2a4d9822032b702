/*
 * test_problems.c - the problems' declarations that need no GPU: the
 * tolerance admits a correctly rounded output in every dtype and shape
 * (fp16 softmax rows past ~16k columns produce subnormal outputs; fp32
 * GEMM dot products of K = 4e5 terms), the work model counts what the
 * issue says, the speed-of-light floor counts only the traffic that must
 * happen in the timed window, and the worker's memory need is counted.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

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
        p->tolerance(p, &s, DTYPE_FP16, &atol, &rtol);
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
    CHECK(g->work(g, &gs, DTYPE_BF16) == 2.0 * 4096 * 4096 * 1024);
    CHECK(s->work(s, &ss, DTYPE_FP16) == 2.0 * 4096 * 65536 * 2);
    CHECK(s->min_bytes(s, &ss, DTYPE_FP32) == 2.0 * 4096 * 65536 * 4);
}

/* ---- fp32 GEMM tolerance at long K (issue 10, item 3) */

static uint64_t xs_state = 0x9e3779b97f4a7c15ULL;

/* uniform [-1, 1) on the harness's 24-bit grid (src/gpu/kernels/hx_core.cu kevo_fill_uniform) */
static float unif(void)
{
    xs_state ^= xs_state << 13;
    xs_state ^= xs_state >> 7;
    xs_state ^= xs_state << 17;
    return -1.0f + 2.0f * (float)(xs_state >> 40) * (1.0f / 16777216.0f);
}

struct dot_stats {
    int fail_new, fail_old, fail_drop; /* of n correct / term-dropping sums */
    double worst;                      /* max |err| / new tolerance */
};

/* n serial fp32 dot products of length k, as a naive kernel computes them
 * (one FMA chain), judged by the GEMM fp32 tolerance at shape 1 x 1 x k. */
static void dot_products(const struct problem *p, int k, int n,
                         struct dot_stats *st)
{
    struct shape sh = {3, {1, 1, k}};
    double atol, rtol, etol = p->error_tol(p, &sh, DTYPE_FP32);
    p->tolerance(p, &sh, DTYPE_FP32, &atol, &rtol);
    float *a = malloc(sizeof *a * (size_t)k), *b = malloc(sizeof *b * (size_t)k);
    memset(st, 0, sizeof *st);
    for (int e = 0; e < n && a && b; e++) {
        for (int i = 0; i < k; i++) {
            a[i] = unif();
            b[i] = unif();
        }
        float acc = 0, drop = 0;
        int i_drop = (int)(xs_state % (uint64_t)k);
        double ref = 0, s = 0, na = 0, nb = 0;
        for (int i = 0; i < k; i++) {
            acc = fmaf(a[i], b[i], acc);
            if (i != i_drop)
                drop = fmaf(a[i], b[i], drop);
            ref += (double)a[i] * b[i];
            s += fabs((double)a[i] * b[i]);
            na += (double)a[i] * a[i];
            nb += (double)b[i] * b[i];
        }
        /* the error scale the GPU reference writes: ||a|| ||b|| >= S */
        double scale = sqrt(na * nb);
        CHECK(scale >= s);
        double tol = atol + rtol * fabs(ref) + etol * scale;
        double old = 1e-5 * sqrt((double)k) + 1e-5 * fabs(ref);
        st->fail_new += !(fabs(acc - ref) <= tol);
        st->fail_old += !(fabs(acc - ref) <= old);
        st->fail_drop += !(fabs(drop - ref) <= tol);
        st->worst = fmax(st->worst, fabs(acc - ref) / tol);
    }
    free(a);
    free(b);
    printf("  K=%d, %d dot products: worst error %.2f of the tolerance; the "
           "old one fails %d; dropping one term fails %d\n", k, n, st->worst,
           st->fail_old, st->fail_drop);
}

static void test_gemm_long_k_tolerance(void)
{
    const struct problem *p = problem_find("gemm");
    CHECK(p && p->error_tol);
    if (!p || !p->error_tol)
        return;
    struct dot_stats st;
    dot_products(p, 400000, 300, &st);
    CHECK_MSG(st.fail_new == 0, "%d correct sums fail", st.fail_new);
    CHECK_MSG(st.worst < 0.5, "margin: worst %.2f of tolerance", st.worst);
    CHECK_MSG(st.fail_drop > 300 / 3, "only %d of 300 sums missing a term "
              "fail", st.fail_drop);
    /* the bug of issue 10: atol = 1e-5 * sqrt(K) rejects correct sums; at
     * K = 4e5 about 2 in 10^4 (13 of 65536 on the H100), at K = 2e6 a
     * few in a hundred */
    dot_products(p, 2000000, 100, &st);
    CHECK_MSG(st.fail_new == 0, "%d correct sums fail", st.fail_new);
    CHECK_MSG(st.fail_old > 0, "no correct sum failed the old tolerance");
    /* tolerance 16u * K/3 = 0.64 here: a dropped term |a b| > 0.64 (7 %
     * of them) still fails, so a kernel dropping a term everywhere does */
    CHECK_MSG(st.fail_drop > 0, "no sum missing a term fails");
}

/* ---- speed-of-light floor vs L2 write-back (issue 10, item 1) */

#define H100_BW 3.35e12           /* 2 x 2619 MHz x 5120 bit / 8 */
#define H100_L2 (50.0 * 1048576)  /* CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE */
#define H100_FP32 (132 * 1.98e9 * 256)

static void test_floor_l2(void)
{
    const struct problem *sm = problem_find("softmax"),
                         *gm = problem_find("gemm");
    CHECK(sm && gm);
    if (!sm || !gm)
        return;
    struct shape s = {2, {4096, 4096}};
    struct sol_floor f;
    problem_floor(sm, &s, DTYPE_FP32, H100_FP32, H100_BW, H100_L2, &f);
    double mb = 4096.0 * 4096 * 4;
    CHECK(f.in_bytes == mb && f.out_bytes == mb);
    CHECK(f.out_dram_bytes == mb - H100_L2);
    /* the correct kernel measured at 40032 ns on the H100 (issue 10) was
     * "cheat" under the old floor (all bytes through DRAM) */
    CHECK(f.all_bytes_ns > 40032);
    CHECK_MSG(f.ns < 40032, "floor %.0f ns", f.ns);
    CHECK(fabs(f.ns - (mb + mb - H100_L2) / H100_BW * 1e9) < 1e-6);
    /* a kernel that reads half its input at peak bandwidth would still be
     * under the floor: caught */
    double half = (mb / 2 + f.out_dram_bytes) / H100_BW * 1e9;
    CHECK_MSG(half < f.ns, "half-input kernel %.0f ns vs floor %.0f", half,
              f.ns);
    /* ... and one that writes only what cannot stay in L2 */
    CHECK(f.in_bytes / H100_BW * 1e9 < f.ns);
    /* without an L2 every byte counts, as before */
    problem_floor(sm, &s, DTYPE_FP32, H100_FP32, H100_BW, 0, &f);
    CHECK(f.ns == f.all_bytes_ns);
    /* small outputs fit in L2 entirely: inputs only */
    struct shape s2 = {2, {2048, 2048}};
    problem_floor(sm, &s2, DTYPE_FP32, H100_FP32, H100_BW, H100_L2, &f);
    CHECK(f.out_dram_bytes == 0 && f.ns == f.in_bytes / H100_BW * 1e9);
    /* compute-bound GEMM: the FLOP floor decides */
    struct shape g = {3, {4096, 4096, 4096}};
    problem_floor(gm, &g, DTYPE_FP32, H100_FP32, H100_BW, H100_L2, &f);
    CHECK(f.ns == f.flops_ns && f.flops_ns > f.bytes_ns);
    CHECK(fabs(f.flops_ns - 2.0 * 4096 * 4096 * 4096 / H100_FP32 * 1e9) <
          1e-6);
}

/* ---- size cap replaced by a memory check (issue 10, item 5) */

static void test_memory_need(void)
{
    const struct problem *gm = problem_find("gemm"),
                         *sm = problem_find("softmax");
    CHECK(gm && sm);
    if (!gm || !sm)
        return;
    struct shape s;
    char err[512] = "";
    /* refused with "gemm shape too large: 1075838976 elements" before */
    CHECK_MSG(problem_parse_shape(gm, "32768x32x32768", &s, err,
                                  sizeof err) == KEVO_OK, "%s", err);
    struct mem_need m;
    problem_mem_need(gm, &s, DTYPE_FP32, H100_L2, &m);
    double mk = 32768.0 * 32768, kn = 32768.0 * 32, mn = 32768.0 * 32;
    CHECK(m.inputs == (mk + kn) * 4);
    CHECK(m.outputs == mn * 4);
    CHECK(m.reference == mn * 8 * 2); /* fp64 reference + error scale */
    CHECK(m.pristine == m.inputs);
    CHECK(m.ref_scratch == (mk + kn + 32768 + 32) * 8);
    CHECK(m.flush == 100.0 * 1048576 && m.guards == 3 * 2 * 65536.0);
    CHECK(m.total == m.inputs + m.outputs + m.guards + m.pristine +
                         m.reference + m.ref_scratch + m.flush + m.slack);
    CHECK(m.total > 17e9 && m.total < 80e9); /* fits an 80 GB H100 */
    CHECK(problem_mem_check(&m, 79e9, err, sizeof err) == KEVO_OK);
    CHECK(problem_mem_check(&m, 1e9, err, sizeof err) == KEVO_ENOMEM);
    CHECK_MSG(strstr(err, "needs ") && strstr(err, "only 1000000000 free") &&
              strstr(err, "reference 16777216,"), "%s", err);
    /* softmax: no error scale, no reference scratch */
    CHECK(problem_parse_shape(sm, "262144x65536", &s, err, sizeof err) ==
          KEVO_OK);
    problem_mem_need(sm, &s, DTYPE_FP16, H100_L2, &m);
    CHECK(m.reference == 262144.0 * 65536 * 8 && m.ref_scratch == 0);
    CHECK(problem_mem_check(&m, 79e9, err, sizeof err) == KEVO_ENOMEM);
    /* what stays refused by the shape alone: sizes past int, buffers past
     * 2^48 elements (byte counts stay far from 64-bit overflow) */
    CHECK(problem_parse_shape(gm, "2147483648x1x1", &s, err, sizeof err) ==
          KEVO_EINVAL);
    CHECK(problem_parse_shape(gm, "2147483647x2147483647x1", &s, err,
                              sizeof err) == KEVO_EINVAL);
    CHECK_MSG(strstr(err, "buffer C too large"), "%s", err);
    CHECK(problem_parse_shape(sm, "16777216x16777216", &s, err, sizeof err) ==
          KEVO_OK);
}

int main(void)
{
    RUN(test_softmax_fp16_subnormal,
        "fp16 softmax tolerance admits correctly rounded subnormal outputs");
    RUN(test_work_models, "work models count 2MNK FLOPs and bytes read + written");
    RUN(test_gemm_long_k_tolerance, "a serial fp32 dot product of 4e5 terms "
        "passes the GEMM tolerance (failed the old one), one missing term "
        "fails");
    RUN(test_floor_l2, "the speed-of-light floor counts inputs and only the "
        "outputs beyond L2, and still catches a kernel skipping half its "
        "input");
    RUN(test_memory_need, "a 32768x32x32768 GEMM is no longer refused by "
        "size; the worker's memory need is counted and checked");
    TEST_DONE();
}
