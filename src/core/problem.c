/*
 * problem.c - dtype names, shape parsing, speed-of-light floors, memory
 * needs and per-output tolerances shared by every problem (see
 * problem.h); the registry is probreg.c.
 */
#include "problem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dtype_names[DTYPE_ALL] = {
    "fp32", "fp16", "bf16", "int32", "int64", "bool"};
static const size_t dtype_sizes[DTYPE_ALL] = {4, 2, 2, 4, 8, 1};

const char *dtype_name(enum dtype dt)
{
    return (unsigned)dt < DTYPE_ALL ? dtype_names[dt] : "?";
}

int dtype_parse(const char *s, enum dtype *out)
{
    for (int i = 0; i < DTYPE_COUNT; i++)
        if (!strcmp(s, dtype_names[i])) {
            *out = (enum dtype)i;
            return 0;
        }
    return -1;
}

size_t dtype_size(enum dtype dt)
{
    return (unsigned)dt < DTYPE_ALL ? dtype_sizes[dt] : 0;
}

const char *problem_prelude_std(const struct problem *p, enum dtype dt)
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

int problem_parse_shape(const struct problem *p, const char *text,
                        struct shape *out, char *err, size_t errcap)
{
    struct shape s = {.n_dims = 0};
    const char *q = text;
    while (*q) {
        if (s.n_dims == p->n_dims)
            goto bad;
        char *end;
        errno = 0;
        long long v = strtoll(q, &end, 10);
        if (end == q || errno || v <= 0 || v > (1LL << 31) - 1)
            goto bad;
        s.d[s.n_dims++] = v;
        q = end;
        if (*q == 'x' || *q == 'X')
            q++;
        else if (*q)
            goto bad;
    }
    if (s.n_dims != p->n_dims)
        goto bad;
    if (p->check_shape && p->check_shape(p, &s, err, errcap))
        return KEVO_EINVAL;
    *out = s;
    return KEVO_OK;
bad:;
    char names[64] = "";
    for (int i = 0; i < p->n_dims; i++) {
        strcat(names, i ? "x" : "");
        strcat(names, p->dim_names[i]);
    }
    snprintf(err, errcap,
             "bad shape '%s' for %s: expected %s, each a positive integer",
             text, p->name, names);
    return KEVO_EINVAL;
}

void problem_format_shape(const struct shape *s, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < s->n_dims && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%lld", i ? "x" : "",
                              (long long)s->d[i]);
}

int problem_check_buffers(const struct problem *p, const struct shape *s,
                          char *err, size_t errcap)
{
    struct buf_desc d[PROB_MAX_BUFS];
    int n = p->buffers(p, s, DTYPE_FP32, d);
    /* buffers are products of two dims < 2^31 each: no int64 overflow */
    for (int i = 0; i < n; i++)
        if (d[i].n_elems > PROB_MAX_BUF_ELEMS) {
            snprintf(err, errcap, "%s buffer %s too large: %lld elements "
                     "(limit 2^48)", p->name, d[i].name,
                     (long long)d[i].n_elems);
            return KEVO_EINVAL;
        }
    return KEVO_OK;
}

/* Bytes of the input and output buffers of shape s (an in-place buffer
 * counts as both, and its bytes also go to *inout), elements of the
 * outputs; returns the buffer count. */
static int buf_bytes(const struct problem *p, const struct shape *s,
                     enum dtype dt, double *in, double *out,
                     double *out_elems, double *inout)
{
    struct buf_desc d[PROB_MAX_BUFS];
    int n = p->buffers(p, s, dt, d);
    *in = *out = *out_elems = *inout = 0;
    for (int i = 0; i < n; i++) {
        double b = (double)d[i].n_elems * (double)dtype_size(d[i].dtype);
        if (d[i].role != BUF_OUT)
            *in += b;
        if (d[i].role != BUF_IN) {
            *out += b;
            *out_elems += (double)d[i].n_elems;
        }
        if (d[i].role == BUF_INOUT)
            *inout += b;
    }
    return n;
}

void problem_floor(const struct problem *p, const struct shape *s,
                   enum dtype dt, double peak_flops, double peak_bw,
                   double l2_bytes, struct sol_floor *out)
{
    double out_elems, inout;
    memset(out, 0, sizeof *out);
    buf_bytes(p, s, dt, &out->in_bytes, &out->out_bytes, &out_elems, &inout);
    out->l2_bytes = l2_bytes > 0 ? l2_bytes : 0;
    out->out_dram_bytes = out->out_bytes - out->l2_bytes;
    if (out->out_dram_bytes < 0)
        out->out_dram_bytes = 0;
    double f = p->flops ? p->flops(p, s, dt) : 0;
    out->flops_ns = peak_flops > 0 ? f / peak_flops * 1e9 : 0;
    if (peak_bw > 0) {
        out->bytes_ns = (out->in_bytes + out->out_dram_bytes) / peak_bw * 1e9;
        out->all_bytes_ns = (out->in_bytes + out->out_bytes) / peak_bw * 1e9;
    }
    out->ns = out->flops_ns > out->bytes_ns ? out->flops_ns : out->bytes_ns;
}

/* hx.c's guard region on each side of a buffer */
#define MEM_GUARD_BYTES (64.0 * 1024)

void problem_mem_need(const struct problem *p, const struct shape *s,
                      enum dtype dt, double l2_bytes, struct mem_need *out)
{
    double out_elems, inout;
    memset(out, 0, sizeof *out);
    int n = buf_bytes(p, s, dt, &out->inputs, &out->outputs, &out_elems,
                      &inout);
    out->outputs -= inout; /* live once, counted with the inputs */
    out->guards = n * 2 * MEM_GUARD_BYTES;
    out->pristine = out->inputs;
    out->reference = out_elems * 8 * (p->error_tol ? 2 : 1);
    out->ref_scratch =
        p->ref_scratch_bytes ? p->ref_scratch_bytes(p, s, dt) : 0;
    /* as hx_set_problem: 2x L2, at least 64 MiB, whole MiB */
    double fb = 2 * (l2_bytes > 0 ? l2_bytes : 0), mib = 1024.0 * 1024;
    if (fb < 64 * mib)
        fb = 64 * mib;
    out->flush = ceil(fb / mib) * mib;
    /* cuBLAS's workspace and handle, the harness modules, the result and
     * hash areas: measured far below this, and allocations round up */
    out->slack = 256 * mib;
    out->total = out->inputs + out->outputs + out->guards + out->pristine +
                 out->reference + out->ref_scratch + out->flush + out->slack;
}

int problem_mem_check(const struct mem_need *m, double free_bytes, char *err,
                      size_t errcap)
{
    if (free_bytes >= m->total)
        return KEVO_OK;
    snprintf(err, errcap, "needs %.0f bytes of GPU memory (inputs %.0f, "
             "outputs %.0f, guards %.0f, pristine input copies %.0f, "
             "reference %.0f, reference scratch %.0f, L2 flush %.0f, harness "
             "%.0f), only %.0f free", m->total, m->inputs, m->outputs,
             m->guards, m->pristine, m->reference, m->ref_scratch, m->flush,
             m->slack, free_bytes);
    return KEVO_ENOMEM;
}

int problem_shape_set(const struct problem *p, struct shape *s,
                      const char *assign, char *err, size_t errcap)
{
    const char *eq = strchr(assign, '=');
    char *end;
    long long v = eq ? strtoll(eq + 1, &end, 10) : 0;
    if (!eq || eq == assign || !eq[1] || *end || v < 1 || v > INT32_MAX) {
        snprintf(err, errcap, "--set: '%s' is not NAME=VALUE with a size "
                 "from 1 to 2147483647", assign);
        return KEVO_EINVAL;
    }
    for (int i = 0; i < p->n_dims; i++)
        if (strlen(p->dim_names[i]) == (size_t)(eq - assign) &&
            !strncmp(p->dim_names[i], assign, (size_t)(eq - assign))) {
            s->n_dims = p->n_dims;
            s->d[i] = v;
            return KEVO_OK;
        }
    size_t n = (size_t)snprintf(err, errcap, "--set: '%.*s' is not a size "
                                "of %s (its sizes:", (int)(eq - assign),
                                assign, p->name);
    for (int i = 0; i < p->n_dims && n < errcap; i++)
        n += (size_t)snprintf(err + n, errcap - n, " %s", p->dim_names[i]);
    if (n < errcap)
        snprintf(err + n, errcap - n, "%s)", p->n_dims ? "" :
                 " none: every dim is fixed");
    return KEVO_EINVAL;
}

const char *problem_default_shape(const struct problem *p)
{
    const char *sx = p->kind ? p->kind->suffix : NULL;
    return sx && !strcmp(sx, ".py") ? p->doctor_shape : NULL;
}

void problem_out_tolerance(const struct problem *p, const struct shape *s,
                           enum dtype dt, int k, struct out_tol *out)
{
    memset(out, 0, sizeof *out);
    if (p->out_tolerance) {
        p->out_tolerance(p, s, dt, k, out);
        return;
    }
    p->tolerance(p, s, dt, &out->atol, &out->rtol);
    out->source = p->tolerance_note ? "given" : "dtype";
    out->note = p->tolerance_note ? p->tolerance_note : "";
}

int problem_outputs(const struct problem *p, const struct shape *s,
                    enum dtype dt, const char **names)
{
    struct buf_desc b[PROB_MAX_BUFS];
    int n = p->buffers(p, s, dt, b), k = 0;
    for (int i = 0; i < n; i++)
        if (b[i].role != BUF_IN) {
            if (names)
                names[k] = b[i].name;
            k++;
        }
    return k;
}
