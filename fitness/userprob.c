/*
 * userprob.c - the GPU side of .problem file problems (their parser and CPU
 * hooks are core's probfile.c): inputs drawn by kevo_up_gen
 * (userprob_harness.cu), the user's fp64 kevo_reference compiled after it
 * and run on fp64 copies of the pristine inputs, and at worker start a
 * self-check (two runs bitwise equal, no NaN/Inf) and the copy baseline.
 * Handed to the registry as the "file" kind's GPU hooks (registry.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdint.h>

#include "fitness.h"
#include "hx.h"
#include "probfile.h"
#include "problem.h"

#include "userprob_harness.cu.h"

static int up_gen_inputs(const struct problem *p, struct hx *h,
                         const struct shape *s, enum dtype dt, uint64_t seed)
{
    struct buf_desc d[PROB_MAX_BUFS];
    int n_bufs = p->buffers(p, s, dt, d);
    for (int i = 0; i < n_bufs; i++) {
        if (d[i].role == BUF_OUT)
            continue;
        hx_dptr ptr = hx_buf(h, i);
        long long n = (long long)hx_buf_elems(h, i);
        long long cols = d[i].cols > 0 ? d[i].cols : n; /* offset's rows */
        int bt = (int)d[i].dtype;
        float arg[3];
        int dist = (int)probfile_fill(p, i, arg);
        unsigned long long sd = hx_seed(seed, 100 + (uint64_t)i);
        void *args[] = {&ptr, &n,      &bt,   &dist, &arg[0],
                        &arg[1], &arg[2], &cols, &sd};
        int r = hx_launch(h, "kevo_up_gen", hx_grid(h, n), 1, 256, 0, args);
        if (r)
            return r;
    }
    return KEVO_OK;
}

/* fp64 copies of the inputs in ptr[] (outputs: ref + their offset; an
 * in-place buffer's part of ref starts as the fp64 copy of its input),
 * then one reference launch. */
static int run_reference(const struct problem *p, struct hx *h,
                         const struct shape *s, enum dtype dt, hx_dptr ref)
{
    struct buf_desc d[PROB_MAX_BUFS];
    hx_dptr ptr[PROB_MAX_BUFS];
    int sizes[PROB_MAX_DIMS];
    void *args[PROB_MAX_BUFS + PROB_MAX_DIMS];
    int64_t off = 0, grid, block;
    int n_bufs = p->buffers(p, s, dt, d);
    for (int i = 0; i < n_bufs; i++) {
        int64_t n = hx_buf_elems(h, i);
        int r = KEVO_OK;
        if (d[i].role != BUF_IN) {
            ptr[i] = ref + (hx_dptr)off * 8;
            off += n;
            if (d[i].role == BUF_INOUT)
                r = hx_to_f64(h, ptr[i], hx_buf(h, i), n, d[i].dtype);
            if (r)
                return r;
            continue;
        }
        r = hx_scratch(h, (size_t)n * 8, &ptr[i]);
        if (!r)
            r = hx_to_f64(h, ptr[i], hx_buf(h, i), n, d[i].dtype);
        if (r)
            return r;
    }
    for (int i = 0; i < n_bufs; i++)
        args[i] = &ptr[i];
    for (int i = 0; i < p->n_dims; i++) {
        sizes[i] = (int)s->d[i];
        args[n_bufs + i] = &sizes[i];
    }
    if (probfile_ref_launch(p, s, &grid, &block))
        return hx_fail(h, KEVO_EINVAL, "%s: reference launch out of range",
                       p->file_path);
    return hx_launch(h, "kevo_reference", (unsigned)grid, 1, (unsigned)block,
                     0, args);
}

static int up_reference(const struct problem *p, struct hx *h,
                        const struct shape *s, enum dtype dt, double *ref_dev,
                        double *scale_dev)
{
    return run_reference(p, h, s, dt, (hx_dptr)(uintptr_t)ref_dev);
}

/*
 * Before any candidate: the reference twice on the live inputs; the two
 * outputs must be bitwise equal and finite. The scratch is released.
 */
static int self_check(const struct problem *p, struct hx *h,
                      const struct shape *s, enum dtype dt)
{
    int64_t n = hx_out_elems(h);
    hx_dptr ref[2], cnt;
    int r = hx_scratch(h, (size_t)n * 8, &ref[0]);
    if (!r)
        r = hx_scratch(h, (size_t)n * 8, &ref[1]);
    if (!r)
        r = hx_scratch(h, 16, &cnt);
    for (int k = 0; k < 2 && !r; k++)
        r = run_reference(p, h, s, dt, ref[k]);
    if (!r) {
        long long nn = (long long)n;
        void *args[] = {&ref[0], &nn, &cnt};
        r = hx_launch(h, "kevo_up_nonfinite", hx_grid(h, n), 1, 256, 0, args);
    }
    if (!r)
        r = hx_sync(h);
    if (r) {
        char why[256]; /* hx_fail writes over hx_errmsg's text */
        snprintf(why, sizeof why, "%s", hx_errmsg(h));
        hx_fail(h, r, "%s: the reference kevo_reference failed to run "
                "(%s)%s", p->file_path, why,
                hx_cuda_rc(h) ? "; it faulted before any candidate ran" : "");
        return r;
    }
    uint64_t hs[3], bytes[3] = {(uint64_t)n * 8, (uint64_t)n * 8, 16};
    hx_dptr ps[3] = {ref[0], ref[1], cnt};
    uint64_t zero_hash;
    hx_dptr zp = 0;
    r = hx_hash_ranges(h, 3, ps, bytes, hs);
    if (!r)
        r = hx_scratch(h, 16, &zp);
    if (!r) {
        uint64_t b16 = 16;
        r = hx_hash_ranges(h, 1, &zp, &b16, &zero_hash);
    }
    hx_scratch_release(h);
    if (r)
        return r;
    if (hs[0] != hs[1])
        return hx_fail(h, KEVO_EINVAL, "%s: the reference disagrees with "
                       "itself: two runs on the same inputs gave different "
                       "outputs (hash %016llx vs %016llx); it must be "
                       "deterministic", p->file_path,
                       (unsigned long long)hs[0], (unsigned long long)hs[1]);
    if (hs[2] != zero_hash)
        return hx_fail(h, KEVO_EINVAL, "%s: the reference wrote NaN or Inf "
                       "(on the inputs of the first check); every expected "
                       "output must be finite", p->file_path);
    return KEVO_OK;
}

struct copy_call {
    hx_dptr src, dst;
    long long n;
};

static int copy_call(struct hx *h, void *ud)
{
    struct copy_call *c = ud;
    void *args[] = {&c->src, &c->dst, &c->n};
    return hx_launch(h, "base_up_copy", hx_grid(h, c->n / 16 + 1), 1, 256, 0,
                     args);
}

static int up_baseline(const struct problem *p, struct hx *h,
                       const struct shape *s, enum dtype dt,
                       struct baseline_result *out)
{
    out->n = 0;
    int r = self_check(p, h, s, dt);
    if (r || !probfile_copy_baseline(p))
        return r;
    struct copy_call c = {0, 0, (long long)ceil(p->min_bytes(p, s, dt) / 2)};
    double ns = 0;
    if (c.n < 1)
        c.n = 1;
    r = hx_scratch(h, (size_t)c.n, &c.src);
    if (!r)
        r = hx_scratch(h, (size_t)c.n, &c.dst);
    if (!r)
        r = hx_time(h, copy_call, &c, &ns);
    hx_scratch_release(h);
    if (r)
        return r;
    out->name[0] = "copy";
    out->median_ns[0] = ns;
    out->fitness[0] = ns > 0 ? p->work(p, s, dt) / (ns * 1e-9) : 0;
    out->n = 1;
    return KEVO_OK;
}

const struct problem_gpu userprob_gpu = {
    .harness_src = userprob_harness,
    .gen_inputs = up_gen_inputs,
    .reference = up_reference,
    .baseline = up_baseline,
};
