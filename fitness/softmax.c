/*
 * softmax.c - row softmax: y[r][c] = exp(x[r][c] - max_r) / sum_r, over the
 * last dimension of a ROWS x COLS row-major matrix, any COLS. fp32, fp16 and
 * bf16 storage with fp32 arithmetic inside. Work model: read x and write y
 * once (2*ROWS*COLS*elem bytes), a few FLOPs per element (memory-bound).
 * Reference: fp64 kernel on the same inputs. Inputs include large logits
 * (row offsets up to +-80) so a kernel without max-subtraction overflows.
 */
#include <stdio.h>

#include "problem.h"

static const char *softmax_prelude(enum dtype dt)
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

static int softmax_buffers(const struct shape *s, enum dtype dt,
                           struct buf_desc *out)
{
    int64_t n = s->d[0] * s->d[1];
    out[0] = (struct buf_desc){"x", BUF_IN, n, dt};
    out[1] = (struct buf_desc){"y", BUF_OUT, n, dt};
    return 2;
}

static double softmax_bytes(const struct shape *s, enum dtype dt)
{
    return 2.0 * (double)s->d[0] * (double)s->d[1] * (double)dtype_size(dt);
}

static double softmax_flops(const struct shape *s, enum dtype dt)
{
    return 5.0 * (double)s->d[0] * (double)s->d[1];
}

/* Outputs are probabilities in [0, 1]; relative error dominates. The abs
 * term is tiny (1/COLS scale) so an all-zero output fails. */
static void softmax_tolerance(const struct shape *s, enum dtype dt,
                              double *atol, double *rtol)
{
    double inv = 1.0 / (double)s->d[1];
    switch (dt) {
    case DTYPE_FP16:
        *atol = 1e-3 * inv;
        *rtol = 2e-3;
        break;
    case DTYPE_BF16:
        *atol = 1e-2 * inv;
        *rtol = 1.6e-2;
        break;
    default:
        *atol = 1e-6 * inv;
        *rtol = 2e-5;
        break;
    }
}

static int softmax_check_shape(const struct shape *s, char *err,
                               size_t errcap)
{
    if ((double)s->d[0] * (double)s->d[1] > 4.0 * 65536.0 * 16384.0) {
        snprintf(err, errcap, "softmax shape too large");
        return KEVO_EINVAL;
    }
    return KEVO_OK;
}

const struct problem prob_softmax = {
    .name = "softmax",
    .summary = "row softmax over the last dim (fp32/fp16/bf16, fp32 math)",
    .abi = "extern \"C\" __global__ void KERNEL(const elem_t *__restrict__ x, "
           "elem_t *__restrict__ y, int ROWS, int COLS, void *ws)",
    .work_unit = "B/s",
    .n_dims = 2,
    .dim_names = {"ROWS", "COLS"},
    .dtype_mask = 1u << DTYPE_FP32 | 1u << DTYPE_FP16 | 1u << DTYPE_BF16,
    .prelude = softmax_prelude,
    .buffers = softmax_buffers,
    .work = softmax_bytes,
    .flops = softmax_flops,
    .min_bytes = softmax_bytes,
    .tolerance = softmax_tolerance,
    .check_shape = softmax_check_shape,
};
