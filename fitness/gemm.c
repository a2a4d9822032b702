/*
 * gemm.c - the GEMM problem: C = A * B, row-major, A is MxK, B is KxN, C is
 * MxN, any sizes. fp32 (FFMA), fp16 and bf16 (fp32 accumulation, output in
 * the input dtype). Work model: 2*M*N*K FLOPs; minimum bytes: read A and B,
 * write C once. Reference: fp64 GEMM (cuBLAS) on the same inputs.
 */
#include <math.h>
#include <stdio.h>

#include "problem.h"

static const char *gemm_prelude(enum dtype dt)
{
    switch (dt) {
    case DTYPE_FP16:
        return "#include <cuda_fp16.h>\n"
               "typedef __half elem_t;\n"
               "#define TO_F32(x) __half2float(x)\n"
               "#define FROM_F32(x) __float2half_rn(x)\n";
    case DTYPE_BF16:
        return "#include <cuda_bf16.h>\n"
               "typedef __nv_bfloat16 elem_t;\n"
               "#define TO_F32(x) __bfloat162float(x)\n"
               "#define FROM_F32(x) __float2bfloat16_rn(x)\n";
    default:
        return "typedef float elem_t;\n"
               "#define TO_F32(x) (x)\n"
               "#define FROM_F32(x) (x)\n";
    }
}

static int gemm_buffers(const struct shape *s, enum dtype dt,
                        struct buf_desc *out)
{
    int64_t m = s->d[0], n = s->d[1], k = s->d[2];
    out[0] = (struct buf_desc){"A", BUF_IN, m * k, dt};
    out[1] = (struct buf_desc){"B", BUF_IN, k * n, dt};
    out[2] = (struct buf_desc){"C", BUF_OUT, m * n, dt};
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
    .prelude = gemm_prelude,
    .buffers = gemm_buffers,
    .work = gemm_flops,
    .flops = gemm_flops,
    .min_bytes = gemm_min_bytes,
    .tolerance = gemm_tolerance,
    .check_shape = gemm_check_shape,
};
