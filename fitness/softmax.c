/*
 * softmax.c - row softmax: y[r][c] = exp(x[r][c] - max_r) / sum_r, over the
 * last dimension of a ROWS x COLS row-major matrix, any COLS. fp32, fp16 and
 * bf16 storage with fp32 arithmetic inside. Work model: read x and write y
 * once (2*ROWS*COLS*elem bytes), a few FLOPs per element (memory-bound).
 * Reference: fp64 kernel on the same inputs. Inputs include large logits
 * (row offsets up to +-80) so a kernel without max-subtraction overflows.
 * Baselines: device copy bandwidth over the same bytes (the main one: the
 * ratio is the fraction of achievable bandwidth) and a naive one-block-
 * per-row kernel.
 */
#include <math.h>
#include <stdio.h>

#include "hx.h"
#include "problem.h"

static int softmax_buffers(const struct problem *p, const struct shape *s,
                           enum dtype dt, struct buf_desc *out)
{
    int64_t n = s->d[0] * s->d[1];
    out[0] = (struct buf_desc){"x", BUF_IN, n, dt, s->d[0], s->d[1]};
    out[1] = (struct buf_desc){"y", BUF_OUT, n, dt, s->d[0], s->d[1]};
    return 2;
}

static double softmax_bytes(const struct problem *p, const struct shape *s,
                            enum dtype dt)
{
    return 2.0 * (double)s->d[0] * (double)s->d[1] * (double)dtype_size(dt);
}

static double softmax_flops(const struct problem *p, const struct shape *s,
                            enum dtype dt)
{
    return 5.0 * (double)s->d[0] * (double)s->d[1];
}

/* Outputs are probabilities in [0, 1]; relative error dominates. The abs
 * term is tiny (1/COLS scale) so an all-zero output fails. */
static void softmax_tolerance(const struct problem *p, const struct shape *s,
                              enum dtype dt, double *atol, double *rtol)
{
    double inv = 1.0 / (double)s->d[1];
    switch (dt) {
    case DTYPE_FP16:
        /* at least one fp16 subnormal step (2^-24): past ~16k columns the
         * outputs fall below fp16's smallest normal (6.1e-5), where even a
         * correctly rounded result is off by up to 2^-25; with 1e-3/COLS
         * alone no kernel could pass 4096x65536 (seen on the H100) */
        *atol = fmax(1e-3 * inv, 0x1p-24);
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

extern const struct problem prob_softmax;

/* ROWS, COLS < 2^31 (sizes reach kernels as int; the parser's limit): one
 * block per row is a grid of ROWS <= 2^31 - 1 blocks, and the harness
 * indexes with 64-bit offsets. What fits is the worker's memory check
 * (problem_mem_need). */
static int softmax_check_shape(const struct problem *p, const struct shape *s,
                               char *err, size_t errcap)
{
    return problem_check_buffers(p, s, err, errcap);
}

/* ---- GPU side (runs inside the worker, see hx.h) ---- */

/* Generator, reference and baselines: fitness/softmax_harness.cu,
 * embedded at build time as softmax_harness[] (src/util/tools/embed.c);
 * compiled after the dtype's prelude (elem_t, TO_F32, FROM_F32). */
#include "softmax_harness.cu.h"

static int softmax_gen_inputs(const struct problem *p, struct hx *h,
                              const struct shape *s, enum dtype dt,
                              uint64_t seed)
{
    hx_dptr x = hx_buf(h, 0);
    int rows = (int)s->d[0], cols = (int)s->d[1];
    unsigned long long sd = hx_seed(seed, 0);
    void *args[] = {&x, &rows, &cols, &sd};
    return hx_launch(h, "kevo_softmax_gen", (unsigned)rows, 1, 256, 0, args);
}

static int softmax_reference(const struct problem *p, struct hx *h,
                             const struct shape *s, enum dtype dt,
                             double *ref_dev, double *scale_dev)
{
    hx_dptr x = hx_buf(h, 0), y = (hx_dptr)(uintptr_t)ref_dev;
    int rows = (int)s->d[0], cols = (int)s->d[1];
    void *args[] = {&x, &y, &rows, &cols};
    return hx_launch(h, "kevo_softmax_ref", (unsigned)rows, 1, 256, 0, args);
}

struct softmax_call {
    const struct shape *s;
    enum dtype dt;
};

static int softmax_naive_call(struct hx *h, void *ud)
{
    const struct softmax_call *c = ud;
    hx_dptr x = hx_buf(h, 0), y = hx_buf(h, 1);
    int rows = (int)c->s->d[0], cols = (int)c->s->d[1];
    void *args[] = {&x, &y, &rows, &cols};
    return hx_launch(h, "base_softmax_naive", (unsigned)rows, 1, 256, 0,
                     args);
}

static int softmax_copy_call(struct hx *h, void *ud)
{
    const struct softmax_call *c = ud;
    hx_dptr x = hx_buf(h, 0), y = hx_buf(h, 1);
    long long n = (long long)(c->s->d[0] * c->s->d[1]) *
                  (long long)dtype_size(c->dt);
    void *args[] = {&x, &y, &n};
    return hx_launch(h, "base_copy", hx_grid(h, n / 16 + 1), 1, 256, 0, args);
}

static int softmax_baseline(const struct problem *p, struct hx *h,
                            const struct shape *s, enum dtype dt,
                            struct baseline_result *out)
{
    struct softmax_call c = {s, dt};
    hx_call_fn fns[2] = {softmax_copy_call, softmax_naive_call};
    const char *names[2] = {"copy", "naive"};
    out->n = 0;
    for (int i = 0; i < 2; i++) {
        double ns = 0;
        int r = hx_time(h, fns[i], &c, &ns);
        if (r)
            return r;
        out->name[i] = names[i];
        out->median_ns[i] = ns;
        out->fitness[i] = ns > 0 ? softmax_bytes(p, s, dt) / (ns * 1e-9) : 0;
        out->n = i + 1;
    }
    return KEVO_OK;
}

const struct problem prob_softmax = {
    .name = "softmax",
    .summary = "row softmax over the last dim (fp32/fp16/bf16, fp32 math)",
    .abi = "extern \"C\" __global__ void KERNEL(const elem_t *__restrict__ x, "
           "elem_t *__restrict__ y, int ROWS, int COLS, void *ws)",
    .work_unit = "B/s",
    .doctor_shape = "4096x4096",
    .n_dims = 2,
    .dim_names = {"ROWS", "COLS"},
    .dtype_mask = 1u << DTYPE_FP32 | 1u << DTYPE_FP16 | 1u << DTYPE_BF16,
    .prelude = problem_prelude_std,
    .buffers = softmax_buffers,
    .work = softmax_bytes,
    .flops = softmax_flops,
    .min_bytes = softmax_bytes,
    .tolerance = softmax_tolerance,
    .check_shape = softmax_check_shape,
    .harness_src = softmax_harness,
    .gen_inputs = softmax_gen_inputs,
    .reference = softmax_reference,
    .baseline = softmax_baseline,
};
