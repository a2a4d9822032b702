/*
 * gemm.c - the GEMM problem: C = A * B, row-major, A is MxK, B is KxN, C is
 * MxN, any sizes. fp32 (FFMA), fp16 and bf16 (fp32 accumulation, output in
 * the input dtype). Work model: 2*M*N*K FLOPs; minimum bytes: read A and B,
 * write C once. Reference: fp64 GEMM (cuBLAS Dgemm on exact fp64 copies of
 * the inputs; a naive fp64 kernel when cuBLAS is missing) and the error
 * scale of each element (norms of its row of A and column of B, the scale
 * of fp32 accumulation error, see gemm_tolerance). Baseline:
 * cuBLAS in the same dtype (Sgemm without TF32; GemmEx, fp32 compute).
 */
#include <math.h>
#include <stdio.h>

#include "hx.h"
#include "problem.h"

static int gemm_buffers(const struct problem *p, const struct shape *s,
                        enum dtype dt, struct buf_desc *out)
{
    int64_t m = s->d[0], n = s->d[1], k = s->d[2];
    out[0] = (struct buf_desc){"A", BUF_IN, m * k, dt, m, k};
    out[1] = (struct buf_desc){"B", BUF_IN, k * n, dt, k, n};
    out[2] = (struct buf_desc){"C", BUF_OUT, m * n, dt, m, n};
    return 3;
}

static double gemm_flops(const struct problem *p, const struct shape *s,
                         enum dtype dt)
{
    return 2.0 * (double)s->d[0] * (double)s->d[1] * (double)s->d[2];
}

static double gemm_min_bytes(const struct problem *p, const struct shape *s,
                             enum dtype dt)
{
    double m = (double)s->d[0], n = (double)s->d[1], k = (double)s->d[2];
    return (m * k + k * n + m * n) * (double)dtype_size(dt);
}

/*
 * Tolerance: |out - ref| <= atol + rtol*|ref| + etol*E, with E the error
 * scale of element (i, j) that the reference writes:
 *     E = ||A[i,:]||_2 * ||B[:,j]||_2  >=  S = sum_k |a_ik b_kj|
 * (Cauchy-Schwarz). The error of a K-long fp32 dot product follows S, not
 * sqrt(K): each step rounds the running sum s_k by up to u = 2^-24 of
 * |s_k|; with zero-mean terms |s_k| grows like sqrt(k), so the total is a
 * random walk of K steps of size ~u*sqrt(k), i.e. ~u*K ~ u*S (the old
 * atol = 1e-5*sqrt(K) fell behind at long K: correct naive kernels failed
 * at K ~ 4e5). Simulated serial fp32 sums of uniform [-1, 1) products
 * (FMA and separate multiply-add, tests/unit/test_problems.c does K=4e5):
 * |err|/(u*S) has an rms of 0.37-0.41 at every K from 16 to 4e5, a
 * maximum of 4.4 over 1e6 elements and 5.3 over 1e6 at K=1024; |err|/(u*E)
 * is 0.75x that (E ~ 4/3 S for these inputs): max 3.2 over 1e6 elements,
 * 3.7 over 1e7, 4.0 at K=1024; on the H100 a naive kernel used 0.21 of
 * this tolerance at 256x256x400000 and 0.23 at 32768x32x32768 (3.4-3.7 u*E,
 * bench/results/2026-11-23-h100-judge). etol = 16u leaves 4x over the
 * largest seen (a tail this rare would need ~1e9 outputs to show), and any
 * other order (tiles, split-K, trees) errs less than a serial sum. The
 * bound holds for the harness's zero-mean inputs (guarantee 3): with
 * same-sign terms the error of a serial sum grows like u*sqrt(K)*S. A
 * kernel that drops one k term errs by |a_ik b_kj| (mean 1/4): at K = 4e5
 * the tolerance is 16u*K/3 = 0.13, and 61 % of such elements fail (7 % at
 * K = 2e6, where it is 0.64). E costs O((M+N)K + MN)
 * (row and column norms, one product per element) where S itself would
 * be a second M*N*K fp64 GEMM per check.
 * rtol covers the rounding of the output to the dtype (2^-24 for fp32,
 * 2^-11 for fp16, 2^-8 for bf16; fp16/bf16 keep their former
 * accumulation-order allowances, and products of fp16/bf16 inputs are
 * exact in fp32, so etol applies as for fp32).
 */
#define GEMM_ETOL 0x1p-20 /* 16 * 2^-24 */

static void gemm_tolerance(const struct problem *p, const struct shape *s,
                           enum dtype dt, double *atol, double *rtol)
{
    double sk = sqrt((double)s->d[2]);
    switch (dt) {
    case DTYPE_FP16:
        *atol = 2e-3 * sk;
        *rtol = 4e-3;
        break;
    case DTYPE_BF16:
        *atol = 1e-2 * sk;
        *rtol = 1.6e-2;
        break;
    default:
        *atol = 0;
        *rtol = 0x1p-22; /* 4x the output rounding */
        break;
    }
}

static double gemm_error_tol(const struct problem *p, const struct shape *s,
                             enum dtype dt)
{
    return GEMM_ETOL;
}

extern const struct problem prob_gemm;

/* Sizes reach kernels as int: M, N, K < 2^31 (the shape parser's limit);
 * the harness indexes with 64-bit offsets. What fits is the worker's
 * memory check (problem_mem_need). */
static int gemm_check_shape(const struct problem *p, const struct shape *s,
                            char *err, size_t errcap)
{
    return problem_check_buffers(p, s, err, errcap);
}

/* fp64 copies of A and B, their squared row / column norms */
static double gemm_ref_scratch(const struct problem *p, const struct shape *s,
                               enum dtype dt)
{
    double m = (double)s->d[0], n = (double)s->d[1], k = (double)s->d[2];
    return (m * k + k * n + m + n) * 8;
}

/* ---- GPU side (runs inside the worker, see hx.h) ---- */

/* Error scale and the fallback fp64 reference (used only when cuBLAS
 * cannot be loaded): fitness/gemm_harness.cu, embedded at build time as
 * gemm_harness[] (src/util/tools/embed.c). */
#include "gemm_harness.cu.h"

/* A and B uniform in [-1, 1), independent streams of the seed. */
static int gemm_gen_inputs(const struct problem *p, struct hx *h,
                           const struct shape *s, enum dtype dt, uint64_t seed)
{
    int r = hx_fill_uniform(h, hx_buf(h, 0), s->d[0] * s->d[2], dt,
                            hx_seed(seed, 0), -1.0f, 1.0f);
    return r ? r : hx_fill_uniform(h, hx_buf(h, 1), s->d[2] * s->d[1], dt,
                                   hx_seed(seed, 1), -1.0f, 1.0f);
}

/* E = ||A[i,:]|| * ||B[:,j]|| from the fp64 copies (see gemm_tolerance). */
static int gemm_error_scale(struct hx *h, int m, int n, int k, hx_dptr a64,
                            hx_dptr b64, hx_dptr e)
{
    hx_dptr na, nb;
    int r = hx_scratch(h, (size_t)m * 8, &na);
    if (!r)
        r = hx_scratch(h, (size_t)n * 8, &nb);
    if (r)
        return r;
    void *ra[] = {&a64, &na, &m, &k};
    r = hx_launch(h, "kevo_gemm_rownorm", (unsigned)m, 1, 256, 0, ra);
    /* chunks of K so that a few thousand blocks cover B */
    int64_t gx = ((int64_t)n + 255) / 256;
    int gy = (int)(4096 / gx);
    if (gy < 1)
        gy = 1;
    if (gy > k)
        gy = k;
    int chunk = (k + gy - 1) / gy;
    gy = (k + chunk - 1) / chunk;
    void *ca[] = {&b64, &nb, &k, &n, &chunk};
    if (!r)
        r = hx_launch(h, "kevo_gemm_colnorm", (unsigned)gx,
                      (unsigned)gy, 256, 0, ca);
    void *ea[] = {&na, &nb, &e, &m, &n};
    if (!r)
        r = hx_launch(h, "kevo_gemm_escale", hx_grid(h, (int64_t)m * n), 1,
                      256, 0, ea);
    return r;
}

static int gemm_reference(const struct problem *p, struct hx *h,
                          const struct shape *s, enum dtype dt, double *ref_dev,
                          double *scale_dev)
{
    int m = (int)s->d[0], n = (int)s->d[1], k = (int)s->d[2];
    hx_dptr a64, b64, c = (hx_dptr)(uintptr_t)ref_dev;
    int r = hx_scratch(h, (size_t)m * k * 8, &a64);
    if (!r)
        r = hx_scratch(h, (size_t)k * n * 8, &b64);
    if (!r)
        r = hx_to_f64(h, a64, hx_buf(h, 0), (int64_t)m * k, dt);
    if (!r)
        r = hx_to_f64(h, b64, hx_buf(h, 1), (int64_t)k * n, dt);
    if (!r && scale_dev)
        r = gemm_error_scale(h, m, n, k, a64, b64,
                             (hx_dptr)(uintptr_t)scale_dev);
    if (r)
        return r;
    r = hx_dgemm(h, m, n, k, a64, b64, c);
    if (r != KEVO_ENODEV)
        return r;
    void *args[] = {&a64, &b64, &c, &m, &n, &k};
    return hx_launch(h, "kevo_gemm_ref_f64",
                     (unsigned)(((int64_t)n + 15) / 16),
                     (unsigned)(((int64_t)m + 15) / 16), 256, 0, args);
}

struct gemm_call {
    const struct shape *s;
    enum dtype dt;
};

static int gemm_cublas_call(struct hx *h, void *ud)
{
    const struct gemm_call *g = ud;
    return hx_blas_gemm(h, g->dt, (int)g->s->d[0], (int)g->s->d[1],
                        (int)g->s->d[2], hx_buf(h, 0), hx_buf(h, 1),
                        hx_buf(h, 2));
}

/* cuBLAS in the run's dtype on the live buffers (outputs are poisoned
 * again before every candidate check). */
static int gemm_baseline(const struct problem *p, struct hx *h,
                         const struct shape *s, enum dtype dt,
                         struct baseline_result *out)
{
    struct gemm_call g = {s, dt};
    double ns = 0;
    out->n = 0;
    int r = hx_time(h, gemm_cublas_call, &g, &ns);
    if (r == KEVO_ENODEV)
        return KEVO_OK; /* no cuBLAS: no baseline */
    if (r)
        return r;
    out->name[0] = "cublas";
    out->median_ns[0] = ns;
    out->fitness[0] = ns > 0 ? gemm_flops(p, s, dt) / (ns * 1e-9) : 0;
    out->n = 1;
    return KEVO_OK;
}

const struct problem prob_gemm = {
    .name = "gemm",
    .summary = "C = A*B row-major (fp32 FFMA; fp16/bf16 with fp32 accumulate)",
    .abi = "extern \"C\" __global__ void KERNEL(const elem_t *__restrict__ A, "
           "const elem_t *__restrict__ B, elem_t *__restrict__ C, int M, "
           "int N, int K, void *ws)",
    .work_unit = "FLOP/s",
    .doctor_shape = "2048x2048x2048",
    .n_dims = 3,
    .dim_names = {"M", "N", "K"},
    .dtype_mask = 1u << DTYPE_FP32 | 1u << DTYPE_FP16 | 1u << DTYPE_BF16,
    .prelude = problem_prelude_std,
    .buffers = gemm_buffers,
    .work = gemm_flops,
    .flops = gemm_flops,
    .min_bytes = gemm_min_bytes,
    .tolerance = gemm_tolerance,
    .error_tol = gemm_error_tol,
    .check_shape = gemm_check_shape,
    .ref_scratch_bytes = gemm_ref_scratch,
    .harness_src = gemm_harness,
    .gen_inputs = gemm_gen_inputs,
    .reference = gemm_reference,
    .baseline = gemm_baseline,
};
