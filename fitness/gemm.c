/*
 * gemm.c - the GEMM problem: C = A * B, row-major, A is MxK, B is KxN, C is
 * MxN, any sizes. fp32 (FFMA), fp16 and bf16 (fp32 accumulation, output in
 * the input dtype). Work model: 2*M*N*K FLOPs; minimum bytes: read A and B,
 * write C once. Reference: fp64 GEMM (cuBLAS Dgemm on exact fp64 copies of
 * the inputs; a naive fp64 kernel when cuBLAS is missing). Baseline:
 * cuBLAS in the same dtype (Sgemm without TF32; GemmEx, fp32 compute).
 */
#include <math.h>
#include <stdio.h>

#include "hx.h"
#include "problem.h"

static int gemm_buffers(const struct shape *s, enum dtype dt,
                        struct buf_desc *out)
{
    int64_t m = s->d[0], n = s->d[1], k = s->d[2];
    out[0] = (struct buf_desc){"A", BUF_IN, m * k, dt, m, k};
    out[1] = (struct buf_desc){"B", BUF_IN, k * n, dt, k, n};
    out[2] = (struct buf_desc){"C", BUF_OUT, m * n, dt, m, n};
    return 3;
}

static double gemm_flops(const struct shape *s, enum dtype dt)
{
    return 2.0 * (double)s->d[0] * (double)s->d[1] * (double)s->d[2];
}

static double gemm_min_bytes(const struct shape *s, enum dtype dt)
{
    double m = (double)s->d[0], n = (double)s->d[1], k = (double)s->d[2];
    return (m * k + k * n + m * n) * (double)dtype_size(dt);
}

/*
 * Inputs are uniform in [-1, 1], so |C| grows like sqrt(K)/3 and the
 * rounding error of a K-long fp32 dot product like sqrt(K) * 2^-24 * |a||b|.
 * atol scales with sqrt(K); rtol covers the output rounding of the dtype
 * (2^-11 for fp16, 2^-8 for bf16) plus accumulation-order effects.
 */
static void gemm_tolerance(const struct shape *s, enum dtype dt, double *atol,
                           double *rtol)
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
        *atol = 1e-5 * sk;
        *rtol = 1e-5;
        break;
    }
}

static int gemm_check_shape(const struct shape *s, char *err, size_t errcap)
{
    double elems = (double)s->d[0] * (double)s->d[2] +
                   (double)s->d[2] * (double)s->d[1] +
                   (double)s->d[0] * (double)s->d[1];
    if (elems > 3.0 * 16384.0 * 16384.0) {
        snprintf(err, errcap, "gemm shape too large: %.0f elements", elems);
        return KEVO_EINVAL;
    }
    return KEVO_OK;
}

/* ---- GPU side (runs inside the worker, see hx.h) ---- */

/* Fallback fp64 reference, used only when cuBLAS cannot be loaded: one
 * thread per output, 16x16 tiles through shared memory. */
static const char gemm_harness[] =
    "extern \"C\" __global__ void kevo_gemm_ref_f64(const double *A, const "
    "double *B, double *C, int M, int N, int K) {\n"
    "  __shared__ double a[16][17], b[16][17];\n"
    "  int tx = threadIdx.x % 16, ty = threadIdx.x / 16;\n"
    "  int r = blockIdx.y * 16 + ty, c = blockIdx.x * 16 + tx;\n"
    "  double acc = 0;\n"
    "  for (int k0 = 0; k0 < K; k0 += 16) {\n"
    "    a[ty][tx] = (r < M && k0 + tx < K) ? A[(long long)r * K + k0 + tx] "
    ": 0.0;\n"
    "    b[ty][tx] = (c < N && k0 + ty < K) ? B[(long long)(k0 + ty) * N + c] "
    ": 0.0;\n"
    "    __syncthreads();\n"
    "    for (int k = 0; k < 16; k++) acc += a[ty][k] * b[k][tx];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (r < M && c < N) C[(long long)r * N + c] = acc;\n"
    "}\n";

/* A and B uniform in [-1, 1), independent streams of the seed. */
static int gemm_gen_inputs(struct hx *h, const struct shape *s, enum dtype dt,
                           uint64_t seed)
{
    int r = hx_fill_uniform(h, hx_buf(h, 0), s->d[0] * s->d[2], dt,
                            hx_seed(seed, 0), -1.0f, 1.0f);
    return r ? r : hx_fill_uniform(h, hx_buf(h, 1), s->d[2] * s->d[1], dt,
                                   hx_seed(seed, 1), -1.0f, 1.0f);
}

static int gemm_reference(struct hx *h, const struct shape *s, enum dtype dt,
                          double *ref_dev)
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
    if (r)
        return r;
    r = hx_dgemm(h, m, n, k, a64, b64, c);
    if (r != KEVO_ENODEV)
        return r;
    void *args[] = {&a64, &b64, &c, &m, &n, &k};
    return hx_launch(h, "kevo_gemm_ref_f64", (unsigned)((n + 15) / 16),
                     (unsigned)((m + 15) / 16), 256, 0, args);
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
static int gemm_baseline(struct hx *h, const struct shape *s, enum dtype dt,
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
    out->fitness[0] = ns > 0 ? gemm_flops(s, dt) / (ns * 1e-9) : 0;
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
    .n_dims = 3,
    .dim_names = {"M", "N", "K"},
    .dtype_mask = 1u << DTYPE_FP32 | 1u << DTYPE_FP16 | 1u << DTYPE_BF16,
    .prelude = problem_prelude_std,
    .buffers = gemm_buffers,
    .work = gemm_flops,
    .flops = gemm_flops,
    .min_bytes = gemm_min_bytes,
    .tolerance = gemm_tolerance,
    .check_shape = gemm_check_shape,
    .harness_src = gemm_harness,
    .gen_inputs = gemm_gen_inputs,
    .reference = gemm_reference,
    .baseline = gemm_baseline,
};
