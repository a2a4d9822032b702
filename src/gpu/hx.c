/*
 * hx.c - the GPU harness used inside the worker (see hx.h): live buffers
 * between guard regions, scratch memory for references, the core harness
 * kernels (their source: src/gpu/kernels/hx_core.cu), and the timing loop.
 * Knows no problem by name and no message protocol; candidates are
 * launched by worker.c.
 *
 * Timing recipe (notes/cupti-nvrtc-driver.md section 4): an L2 flush
 * kernel READING 2x the L2 size before every repetition, CUPTI kernel
 * records, median of adaptive repetitions. The flush reads rather than
 * writes (Triton and KernelBench write 256 MB) so that it leaves L2 full of
 * clean lines: a written flush leaves ~50 MB of dirty lines whose
 * write-back lands inside the next timed kernel, which made a 64 MB
 * softmax read 13 % slower than Nsight Compute's cache-control flush
 * measured it (bench/results/2026-11-21-h100-session2.md).
 */
#include "hx.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "gpu.h"
#include "tmr.h"
#include "fsutil.h"

#define GUARD_BYTES (64 * 1024)
#define MAX_SCRATCH 32
#define SCRATCH_WIPE 0x7ff8deadu /* NaN pattern over released scratch */
#define STAT_WORDS 256 /* u64 result slots for compares/guards */

/* Harness kernels, compiled once per worker with NVRTC: hx_core[] is
 * src/gpu/kernels/hx_core.cu, embedded at build time (src/util/tools/embed.c). */
#include "hx_core.cu.h"

struct hbuf {
    struct buf_desc d;
    CUdeviceptr base;    /* allocation: guard, data, guard */
    CUdeviceptr data;    /* base + GUARD_BYTES */
    size_t bytes;        /* of data */
    uint64_t salt[2];    /* guard patterns before / after */
    CUdeviceptr pristine; /* scratch copy while viewing pristine, or 0 */
};

struct hx {
    hx_progress_fn progress; /* hx_progress's sink (worker); NULL */
    void *progress_ud;
    struct hx_pairing {      /* hx_pair_next */
        hx_call_fn fn;
        void *ud;
        int n;
        double *t_fn, *t_other;
        int used;
    } pair;
    struct gpu *g;
    const struct gpu_api *cu;
    CUstream s;
    struct tmr *t;
    struct blas *blas;
    CUmodule core, prob;
    CUfunction f_fill, f_to64, f_pattern, f_gfill, f_gcheck, f_memeq,
        f_compare, f_hash, f_hash_bytes, f_flush;
    const struct problem *p;
    enum dtype dt;
    struct shape shape;
    int n_bufs;
    struct hbuf b[PROB_MAX_BUFS];
    int pristine;            /* current view */
    CUdeviceptr flush;       /* L2 flush buffer */
    size_t flush_words;
    uint32_t flush_n;        /* changes the flush value every time */
    CUdeviceptr stat;        /* STAT_WORDS u64 */
    CUdeviceptr hashes;      /* HX_HASH_SLOTS x 2 u64 */
    CUdeviceptr rhashes;     /* HX_RANGE_BATCH x 2 u64, hx_hash_ranges */
    CUdeviceptr ws;          /* workspace */
    uint64_t ws_bytes;
    /* Scratch arena: blocks stay allocated between checks (cuMemAlloc
     * and cuMemFree of ~640 MB per check at 4096^3 GEMM cost more than
     * the check itself); a block handed out is zero-filled, and every
     * block used since the last release is overwritten with a NaN pattern
     * at release (stream-ordered before the next candidate launch), so no
     * reference value is in device memory while a candidate runs. */
    struct sblock {
        CUdeviceptr p;
        size_t cap;
        int used;            /* handed out since the last release */
    } scratch[MAX_SCRATCH];
    int n_scratch;           /* blocks allocated */
    int cuda_rc;
    char err[512];
};

const char *hx_core_source(void)
{
    return hx_core;
}

int hx_fail(struct hx *h, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->err, sizeof h->err, fmt, ap);
    va_end(ap);
    return rc;
}

/* Records a CUDA failure of `what`. */
static int cuda_fail(struct hx *h, CUresult rc, const char *what)
{
    h->cuda_rc = (int)rc;
    return hx_fail(h, KEVO_ECUDA, "%s: %s", what, gpu_errname(rc));
}

const char *hx_errmsg(const struct hx *h) { return h->err; }
int hx_cuda_rc(const struct hx *h) { return h->cuda_rc; }
struct tmr *hx_tmr(const struct hx *h) { return h->t; }
void *hx_stream(const struct hx *h) { return h->s; }
const struct gpu_info *hx_info(const struct hx *h) { return &h->g->info; }
const struct problem *hx_problem(const struct hx *h) { return h->p; }
int hx_n_bufs(const struct hx *h) { return h->n_bufs; }
const struct buf_desc *hx_desc(const struct hx *h, int i) { return &h->b[i].d; }
hx_dptr hx_workspace(const struct hx *h) { return h->ws; }

void hx_clear_error(struct hx *h)
{
    h->cuda_rc = 0;
    h->err[0] = '\0';
}

uint64_t hx_seed(uint64_t seed, uint64_t k)
{
    uint64_t z = seed ^ (k + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

unsigned hx_grid(const struct hx *h, int64_t n)
{
    int64_t g = (n + 255) / 256, cap = (int64_t)h->g->info.sms * 16;
    if (cap < 1)
        cap = 1024;
    return (unsigned)(g < 1 ? 1 : g > cap ? cap : g);
}

static int get_fn(struct hx *h, CUmodule m, const char *name, CUfunction *f)
{
    CUresult rc = h->cu->cuModuleGetFunction(f, m, name);
    return rc ? cuda_fail(h, rc, name) : KEVO_OK;
}

int hx_new(struct gpu *g, void *stream, struct tmr *t, struct blas *blas,
           const void *core_cubin, const void *prob_cubin, struct hx **out,
           char *err, size_t errcap)
{
    struct hx *h = calloc(1, sizeof *h);
    if (!h)
        return KEVO_ENOMEM;
    h->g = g;
    h->cu = g->cu;
    h->s = (CUstream)stream;
    h->t = t;
    h->blas = blas;
    CUresult rc = h->cu->cuModuleLoadData(&h->core, core_cubin);
    if (!rc && prob_cubin)
        rc = h->cu->cuModuleLoadData(&h->prob, prob_cubin);
    int r = rc ? cuda_fail(h, rc, "cannot load the harness kernels") : 0;
    if (!r)
        r = get_fn(h, h->core, "kevo_fill_uniform", &h->f_fill);
    if (!r)
        r = get_fn(h, h->core, "kevo_to_f64", &h->f_to64);
    if (!r)
        r = get_fn(h, h->core, "kevo_pattern", &h->f_pattern);
    if (!r)
        r = get_fn(h, h->core, "kevo_guard_fill", &h->f_gfill);
    if (!r)
        r = get_fn(h, h->core, "kevo_guard_check", &h->f_gcheck);
    if (!r)
        r = get_fn(h, h->core, "kevo_memeq", &h->f_memeq);
    if (!r)
        r = get_fn(h, h->core, "kevo_compare", &h->f_compare);
    if (!r)
        r = get_fn(h, h->core, "kevo_hash", &h->f_hash);
    if (!r)
        r = get_fn(h, h->core, "kevo_hash_bytes", &h->f_hash_bytes);
    if (!r)
        r = get_fn(h, h->core, "kevo_flush", &h->f_flush);
    if (!r && (rc = h->cu->cuMemAlloc(&h->stat, STAT_WORDS * 8)))
        r = cuda_fail(h, rc, "cuMemAlloc");
    if (!r && (rc = h->cu->cuMemAlloc(&h->hashes, HX_HASH_SLOTS * 16)))
        r = cuda_fail(h, rc, "cuMemAlloc");
    if (!r && (rc = h->cu->cuMemAlloc(&h->rhashes, HX_RANGE_BATCH * 16)))
        r = cuda_fail(h, rc, "cuMemAlloc");
    if (r) {
        snprintf(err, errcap, "%s", h->err);
        hx_free(h);
        return r;
    }
    *out = h;
    return KEVO_OK;
}

static void free_bufs(struct hx *h)
{
    for (int i = 0; i < h->n_bufs; i++)
        if (h->b[i].base)
            h->cu->cuMemFree(h->b[i].base);
    h->n_bufs = 0;
    if (h->flush)
        h->cu->cuMemFree(h->flush);
    h->flush = 0;
}

void hx_free(struct hx *h)
{
    if (!h)
        return;
    for (int i = 0; i < h->n_scratch; i++)
        h->cu->cuMemFree(h->scratch[i].p);
    h->n_scratch = 0;
    free_bufs(h);
    if (h->ws)
        h->cu->cuMemFree(h->ws);
    if (h->stat)
        h->cu->cuMemFree(h->stat);
    if (h->hashes)
        h->cu->cuMemFree(h->hashes);
    if (h->rhashes)
        h->cu->cuMemFree(h->rhashes);
    if (h->prob)
        h->cu->cuModuleUnload(h->prob);
    if (h->core)
        h->cu->cuModuleUnload(h->core);
    free(h);
}

/* ---- launching */

static int launch(struct hx *h, CUfunction f, const char *name, unsigned gx,
                  unsigned gy, unsigned bx, unsigned smem, void **args)
{
    CUresult rc = h->cu->cuLaunchKernel(f, gx, gy, 1, bx, 1, 1, smem, h->s,
                                        args, NULL);
    return rc ? cuda_fail(h, rc, name) : KEVO_OK;
}

int hx_launch(struct hx *h, const char *kernel, unsigned gx, unsigned gy,
              unsigned bx, unsigned smem_bytes, void **args)
{
    if (!h->prob)
        return hx_fail(h, KEVO_EINVAL, "problem has no harness kernels");
    CUfunction f;
    int r = get_fn(h, h->prob, kernel, &f);
    if (r)
        return r;
    if (smem_bytes > 48 * 1024) {
        CUresult rc = h->cu->cuFuncSetAttribute(
            f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            (int)smem_bytes);
        if (rc)
            return cuda_fail(h, rc, kernel);
    }
    return launch(h, f, kernel, gx, gy, bx, smem_bytes, args);
}

int hx_sync(struct hx *h)
{
    CUresult rc = h->cu->cuStreamSynchronize(h->s);
    return rc ? cuda_fail(h, rc, "synchronize") : KEVO_OK;
}

/* ---- buffers and views */

int hx_set_problem(struct hx *h, const struct problem *p, enum dtype dt,
                   const struct shape *s, uint64_t secret)
{
    hx_scratch_release(h);
    free_bufs(h);
    h->p = p;
    h->dt = dt;
    h->shape = *s;
    struct buf_desc d[PROB_MAX_BUFS];
    int n = p->buffers(p, s, dt, d);
    for (int i = 0; i < n; i++) {
        struct hbuf *b = &h->b[i];
        memset(b, 0, sizeof *b);
        b->d = d[i];
        b->bytes = (size_t)d[i].n_elems * dtype_size(d[i].dtype);
        b->salt[0] = hx_seed(secret, 1000 + 2 * (uint64_t)i);
        b->salt[1] = hx_seed(secret, 1001 + 2 * (uint64_t)i);
        CUresult rc = h->cu->cuMemAlloc(&b->base, b->bytes + 2 * GUARD_BYTES);
        if (rc) {
            h->n_bufs = i;
            return cuda_fail(h, rc, "cannot allocate the problem buffers");
        }
        b->data = b->base + GUARD_BYTES;
        h->n_bufs = i + 1;
    }
    /* 2x L2, at least 64 MiB, in whole MiB. */
    size_t fb = (size_t)h->g->info.l2_bytes * 2;
    if (fb < (64u << 20))
        fb = 64u << 20;
    fb = (fb + (1u << 20) - 1) & ~(size_t)((1u << 20) - 1);
    CUresult rc = h->cu->cuMemAlloc(&h->flush, fb);
    if (!rc)
        rc = h->cu->cuMemsetD32(h->flush, 0x5a5a5a5au, fb / 4);
    if (rc)
        return cuda_fail(h, rc, "cannot allocate the L2 flush buffer");
    h->flush_words = fb / 4;
    return hx_guards_fill(h);
}

hx_dptr hx_buf(struct hx *h, int i)
{
    if (i < 0 || i >= h->n_bufs)
        return 0;
    struct hbuf *b = &h->b[i];
    return h->pristine && b->d.role != BUF_OUT ? b->pristine : b->data;
}

int64_t hx_buf_elems(struct hx *h, int i)
{
    return i >= 0 && i < h->n_bufs ? h->b[i].d.n_elems : 0;
}

int64_t hx_out_elems(const struct hx *h)
{
    int64_t n = 0;
    for (int i = 0; i < h->n_bufs; i++)
        if (h->b[i].d.role != BUF_IN)
            n += h->b[i].d.n_elems;
    return n;
}

/* Frees the arena blocks not handed out (all of them after a release). */
static void scratch_trim(struct hx *h)
{
    int k = 0;
    for (int i = 0; i < h->n_scratch; i++) {
        if (h->scratch[i].used)
            h->scratch[k++] = h->scratch[i];
        else
            h->cu->cuMemFree(h->scratch[i].p);
    }
    h->n_scratch = k;
}

int hx_scratch(struct hx *h, size_t bytes, hx_dptr *out)
{
    size_t need = bytes ? bytes : 1;
    int best = -1;
    for (int i = 0; i < h->n_scratch; i++)
        if (!h->scratch[i].used && h->scratch[i].cap >= need &&
            (best < 0 || h->scratch[i].cap < h->scratch[best].cap))
            best = i;
    CUresult rc = CUDA_SUCCESS;
    if (best < 0) {
        CUdeviceptr p = 0;
        if (h->n_scratch == MAX_SCRATCH)
            scratch_trim(h);
        if (h->n_scratch == MAX_SCRATCH)
            return hx_fail(h, KEVO_EINTERNAL, "too many scratch buffers");
        rc = h->cu->cuMemAlloc(&p, need);
        if (rc == CUDA_ERROR_OUT_OF_MEMORY) { /* blocks of other sizes */
            scratch_trim(h);
            rc = h->cu->cuMemAlloc(&p, need);
        }
        if (rc)
            return cuda_fail(h, rc, "cannot allocate reference scratch");
        best = h->n_scratch++;
        h->scratch[best] = (struct sblock){p, need, 0};
    }
    struct sblock *b = &h->scratch[best];
    b->used = 1;
    int r = hx_fill_pattern(h, b->p, need, 0); /* stream-ordered zero */
    if (r)
        return r;
    *out = b->p;
    return KEVO_OK;
}

void hx_scratch_release(struct hx *h)
{
    for (int i = 0; i < h->n_scratch; i++) {
        struct sblock *b = &h->scratch[i];
        if (!b->used)
            continue;
        b->used = 0;
        /* On the harness stream, so before any later candidate launch. A
         * failure (sticky error) frees the block instead: either way the
         * reference does not survive. */
        if (hx_fill_pattern(h, b->p, b->cap, SCRATCH_WIPE)) {
            h->cu->cuMemFree(b->p);
            b->p = 0;
            b->cap = 0;
        }
    }
    int k = 0;
    for (int i = 0; i < h->n_scratch; i++)
        if (h->scratch[i].p)
            h->scratch[k++] = h->scratch[i];
    h->n_scratch = k;
    for (int i = 0; i < h->n_bufs; i++)
        h->b[i].pristine = 0;
    h->pristine = 0;
}

int hx_view_pristine(struct hx *h)
{
    for (int i = 0; i < h->n_bufs; i++) {
        struct hbuf *b = &h->b[i];
        if (b->d.role == BUF_OUT || b->pristine)
            continue;
        int r = hx_scratch(h, b->bytes, &b->pristine);
        if (r)
            return r;
    }
    h->pristine = 1;
    return KEVO_OK;
}

void hx_view_live(struct hx *h)
{
    h->pristine = 0;
}

int hx_workspace_reserve(struct hx *h, uint64_t bytes)
{
    if (bytes <= h->ws_bytes)
        return KEVO_OK;
    if (h->ws)
        h->cu->cuMemFree(h->ws);
    h->ws = 0;
    h->ws_bytes = 0;
    CUresult rc = h->cu->cuMemAlloc(&h->ws, bytes);
    if (rc)
        return cuda_fail(h, rc, "cannot allocate the workspace");
    h->ws_bytes = bytes;
    return KEVO_OK;
}

/* ---- core kernels */

int hx_fill_uniform(struct hx *h, hx_dptr p, int64_t n, enum dtype dt,
                    uint64_t seed, float lo, float hi)
{
    CUdeviceptr ptr = p;
    long long nn = n;
    int d = dt;
    unsigned long long sd = seed;
    void *args[] = {&ptr, &nn, &d, &sd, &lo, &hi};
    return launch(h, h->f_fill, "kevo_fill_uniform", hx_grid(h, n), 1, 256,
                  0, args);
}

int hx_to_f64(struct hx *h, hx_dptr dst, hx_dptr src, int64_t n,
              enum dtype dt)
{
    CUdeviceptr a = dst, b = src;
    long long nn = n;
    int d = dt;
    void *args[] = {&a, &b, &nn, &d};
    return launch(h, h->f_to64, "kevo_to_f64", hx_grid(h, n), 1, 256, 0,
                  args);
}

int hx_fill_pattern(struct hx *h, hx_dptr p, uint64_t n, uint32_t pattern)
{
    CUdeviceptr ptr = p;
    long long nn = (long long)n;
    void *args[] = {&ptr, &nn, &pattern};
    return launch(h, h->f_pattern, "kevo_pattern", hx_grid(h, nn / 4 + 1), 1,
                  256, 0, args);
}

/* The poison: a quiet NaN with a payload, per element size. */
static uint32_t nan_pattern(enum dtype dt)
{
    switch (dt) {
    case DTYPE_FP16: return 0x7e5a7e5au;
    case DTYPE_BF16: return 0x7fd57fd5u;
    default: return 0x7fc0deadu;
    }
}

int hx_poison_outputs(struct hx *h)
{
    for (int i = 0; i < h->n_bufs; i++) {
        if (h->b[i].d.role != BUF_OUT)
            continue;
        int r = hx_fill_pattern(h, h->b[i].data, h->b[i].bytes,
                                nan_pattern(h->b[i].d.dtype));
        if (r)
            return r;
    }
    return KEVO_OK;
}

static int guard_fill(struct hx *h, CUdeviceptr p, uint64_t salt)
{
    long long n = GUARD_BYTES;
    void *args[] = {&p, &n, &salt};
    return launch(h, h->f_gfill, "kevo_guard_fill", hx_grid(h, n), 1, 256, 0,
                  args);
}

int hx_guards_fill(struct hx *h)
{
    for (int i = 0; i < h->n_bufs; i++) {
        struct hbuf *b = &h->b[i];
        int r = guard_fill(h, b->base, b->salt[0]);
        if (!r)
            r = guard_fill(h, b->data + b->bytes, b->salt[1]);
        if (r)
            return r;
    }
    return KEVO_OK;
}

/* Runs a counting kernel into stat[0..1] (count, first) and reads it. */
static int count_read(struct hx *h, CUdeviceptr res, uint64_t *cnt,
                      uint64_t *first)
{
    uint64_t v[2];
    int r = hx_sync(h);
    if (r)
        return r;
    CUresult rc = h->cu->cuMemcpyDtoH(v, res, sizeof v);
    if (rc)
        return cuda_fail(h, rc, "cuMemcpyDtoH");
    *cnt = v[0];
    *first = v[1];
    return KEVO_OK;
}

/* stat slots: zero the count, all-ones the first index. */
static int stat_reset(struct hx *h, CUdeviceptr res, int pairs)
{
    CUresult rc = CUDA_SUCCESS;
    for (int i = 0; i < pairs && !rc; i++) {
        rc = h->cu->cuMemsetD32(res + 16 * (size_t)i, 0, 2);
        if (!rc)
            rc = h->cu->cuMemsetD32(res + 16 * (size_t)i + 8, 0xffffffffu, 2);
    }
    return rc ? cuda_fail(h, rc, "cuMemsetD32") : KEVO_OK;
}

int hx_guards_check(struct hx *h, int *bad, char *why, size_t whycap)
{
    *bad = 0;
    int r = stat_reset(h, h->stat, 2 * h->n_bufs);
    for (int i = 0; !r && i < h->n_bufs; i++) {
        struct hbuf *b = &h->b[i];
        for (int side = 0; !r && side < 2; side++) {
            CUdeviceptr p = side ? b->data + b->bytes : b->base;
            CUdeviceptr res = h->stat + 16 * (size_t)(2 * i + side);
            long long n = GUARD_BYTES;
            void *args[] = {&p, &n, &b->salt[side], &res};
            r = launch(h, h->f_gcheck, "kevo_guard_check", hx_grid(h, n), 1,
                       256, 0, args);
        }
    }
    if (r || (r = hx_sync(h)))
        return r;
    uint64_t v[4 * PROB_MAX_BUFS];
    CUresult rc = h->cu->cuMemcpyDtoH(v, h->stat, 32 * (size_t)h->n_bufs);
    if (rc)
        return cuda_fail(h, rc, "cuMemcpyDtoH");
    for (int i = 0; i < h->n_bufs && !*bad; i++)
        for (int side = 0; side < 2 && !*bad; side++) {
            uint64_t cnt = v[4 * i + 2 * side], first = v[4 * i + 2 * side + 1];
            if (!cnt)
                continue;
            *bad = 1;
            /* distance from the buffer: after = offset past the end;
             * before = bytes before the start */
            long long dist = side ? (long long)first + 1
                                  : (long long)(GUARD_BYTES - first);
            snprintf(why, whycap,
                     "out-of-bounds write: %llu bytes changed %s buffer %s "
                     "(nearest %lld bytes %s it)",
                     (unsigned long long)cnt, side ? "after" : "before",
                     h->b[i].d.name, dist, side ? "past the end of" :
                     "before the start of");
        }
    if (*bad)
        return hx_guards_fill(h); /* restore for the next candidate */
    return KEVO_OK;
}

int hx_inputs_check(struct hx *h, int *bad, char *why, size_t whycap)
{
    *bad = 0;
    for (int i = 0; i < h->n_bufs && !*bad; i++) {
        struct hbuf *b = &h->b[i];
        if (b->d.role != BUF_IN || !b->pristine)
            continue;
        int r = stat_reset(h, h->stat, 1);
        CUdeviceptr a = b->data, c = b->pristine, res = h->stat;
        long long n = (long long)b->bytes;
        void *args[] = {&a, &c, &n, &res};
        if (!r)
            r = launch(h, h->f_memeq, "kevo_memeq", hx_grid(h, n / 4 + 1), 1,
                       256, 0, args);
        uint64_t cnt = 0, first = 0;
        if (!r)
            r = count_read(h, res, &cnt, &first);
        if (r)
            return r;
        if (cnt) {
            *bad = 1;
            snprintf(why, whycap, "input %s modified at index %llu (%llu "
                     "words differ)", b->d.name,
                     (unsigned long long)(first / dtype_size(b->d.dtype)),
                     (unsigned long long)cnt);
        }
    }
    return KEVO_OK;
}

static double host_elem(const void *p, enum dtype dt)
{
    uint32_t u = 0;
    float f;
    if (dt == DTYPE_I32 || dt == DTYPE_I64 || dt == DTYPE_BOOL) {
        int32_t i32;
        int64_t i64;
        if (dt == DTYPE_BOOL)
            return *(const unsigned char *)p;
        if (dt == DTYPE_I32)
            return (memcpy(&i32, p, 4), (double)i32);
        return (memcpy(&i64, p, 8), (double)i64);
    }
    if (dt == DTYPE_FP32) {
        memcpy(&f, p, 4);
        return f;
    }
    uint16_t x;
    memcpy(&x, p, 2);
    if (dt == DTYPE_BF16) {
        u = (uint32_t)x << 16;
    } else { /* fp16 -> fp32 bits */
        uint32_t s = (uint32_t)(x >> 15) << 31, e = (x >> 10) & 31,
                 m = x & 1023;
        if (e == 31)
            u = s | 0x7f800000u | m << 13;
        else if (e)
            u = s | (e + 112) << 23 | m << 13;
        else if (m) { /* subnormal */
            int k = 0;
            while (!(m & 1024)) {
                m <<= 1;
                k++;
            }
            u = s | (uint32_t)(113 - k) << 23 | (m & 1023) << 13;
        } else
            u = s;
    }
    memcpy(&f, &u, 4);
    return f;
}

static int compare_one(struct hx *h, struct hbuf *b, CUdeviceptr ref,
                       CUdeviceptr sc, double atol, double rtol, double etol,
                       uint64_t v[6])
{
    CUresult rc = h->cu->cuMemsetD32(h->stat, 0, 12);
    if (!rc)
        rc = h->cu->cuMemsetD32(h->stat + 8, 0xffffffffu, 2);
    if (rc)
        return cuda_fail(h, rc, "cuMemsetD32");
    CUdeviceptr out = b->data, res = h->stat;
    long long n = b->d.n_elems;
    int dt = b->d.dtype;
    void *args[] = {&out, &ref, &sc, &n, &dt, &atol, &rtol, &etol, &res};
    int r = launch(h, h->f_compare, "kevo_compare", hx_grid(h, n), 1, 256, 0,
                   args);
    if (!r)
        r = hx_sync(h);
    if (r)
        return r;
    rc = h->cu->cuMemcpyDtoH(v, h->stat, 48);
    return rc ? cuda_fail(h, rc, "cuMemcpyDtoH") : KEVO_OK;
}

int hx_compare(struct hx *h, hx_dptr ref, hx_dptr scale, struct hx_cmp *out)
{
    double etol = 0;
    int k = 0; /* output number: each output has its own tolerance */
    if (h->p->error_tol && scale)
        etol = h->p->error_tol(h->p, &h->shape, h->dt);
    memset(out, 0, sizeof *out);
    out->first_bad = -1;
    CUdeviceptr r0 = ref, s0 = etol > 0 ? scale : 0;
    for (int i = 0; i < h->n_bufs; i++) {
        struct hbuf *b = &h->b[i];
        if (b->d.role == BUF_IN)
            continue;
        uint64_t v[6];
        struct out_tol t;
        problem_out_tolerance(h->p, &h->shape, h->dt, k++, &t);
        double atol = t.atol, rtol = t.rtol;
        int r = compare_one(h, b, r0, s0, atol, rtol, etol, v);
        if (r)
            return r;
        double ma, mr, mq;
        memcpy(&ma, &v[2], 8);
        memcpy(&mr, &v[3], 8);
        memcpy(&mq, &v[5], 8);
        out->max_tol = fmax(out->max_tol, mq);
        out->n += b->d.n_elems;
        out->bad += (int64_t)v[0];
        out->nonfinite += (int64_t)v[4];
        out->max_abs = fmax(out->max_abs, ma);
        out->max_rel = fmax(out->max_rel, mr);
        if (v[0] && out->first_bad < 0) {
            out->first_bad = (int64_t)v[1];
            out->buf = i;
            unsigned char e[8];
            double want;
            size_t es = dtype_size(b->d.dtype);
            CUresult rc = h->cu->cuMemcpyDtoH(e, b->data + v[1] * es, es);
            if (!rc)
                rc = h->cu->cuMemcpyDtoH(&want, r0 + v[1] * 8, 8);
            if (rc)
                return cuda_fail(h, rc, "cuMemcpyDtoH");
            out->got = host_elem(e, b->d.dtype);
            out->want = want;
            out->tol = atol + rtol * fabs(want);
            double sv = 0;
            if (s0 && (rc = h->cu->cuMemcpyDtoH(&sv, s0 + v[1] * 8, 8)))
                return cuda_fail(h, rc, "cuMemcpyDtoH");
            out->tol += etol * sv;
        }
        r0 += (CUdeviceptr)b->d.n_elems * 8;
        if (s0)
            s0 += (CUdeviceptr)b->d.n_elems * 8;
    }
    return KEVO_OK;
}

int hx_hash_reset(struct hx *h)
{
    CUresult rc = h->cu->cuMemsetD32(h->hashes, 0, HX_HASH_SLOTS * 4);
    return rc ? cuda_fail(h, rc, "cuMemsetD32") : KEVO_OK;
}

/* Hashes the buffers whose role is (inputs) or is not (outputs) BUF_IN. */
static int hash_bufs(struct hx *h, int slot, int inputs)
{
    if (slot < 0 || slot >= HX_HASH_SLOTS)
        return hx_fail(h, KEVO_EINTERNAL, "hash slot %d out of range", slot);
    for (int i = 0; i < h->n_bufs; i++) {
        if ((h->b[i].d.role == BUF_IN) != inputs)
            continue;
        CUdeviceptr p = h->b[i].data, res = h->hashes + 16 * (size_t)slot;
        long long n = (long long)h->b[i].bytes;
        void *args[] = {&p, &n, &res};
        int r = launch(h, h->f_hash, "kevo_hash", hx_grid(h, n / 4 + 1), 1,
                       256, 0, args);
        if (r)
            return r;
    }
    return KEVO_OK;
}

int hx_hash_outputs(struct hx *h, int slot)
{
    return hash_bufs(h, slot, 0);
}

int hx_hash_inputs(struct hx *h, int slot)
{
    return hash_bufs(h, slot, 1);
}

int hx_hash_read(struct hx *h, int first, int n, uint64_t *out)
{
    uint64_t v[2 * HX_HASH_SLOTS];
    if (first < 0 || n < 0 || first + n > HX_HASH_SLOTS)
        return hx_fail(h, KEVO_EINTERNAL, "hash slots out of range");
    CUresult rc = h->cu->cuMemcpyDtoH(v, h->hashes + 16 * (size_t)first,
                                      16 * (size_t)n);
    if (rc)
        return cuda_fail(h, rc, "cuMemcpyDtoH");
    for (int i = 0; i < n; i++)
        out[i] = v[2 * i] ^ (v[2 * i + 1] * 0x9e3779b97f4a7c15ULL);
    return KEVO_OK;
}

int hx_hash_ranges(struct hx *h, int n, const hx_dptr *p,
                   const uint64_t *bytes, uint64_t *out)
{
    for (int first = 0; first < n; first += HX_RANGE_BATCH) {
        int k = n - first < HX_RANGE_BATCH ? n - first : HX_RANGE_BATCH;
        CUresult rc = h->cu->cuMemsetD32(h->rhashes, 0, (size_t)k * 4);
        if (rc)
            return cuda_fail(h, rc, "cuMemsetD32");
        for (int i = 0; i < k; i++) {
            CUdeviceptr ptr = p[first + i], res = h->rhashes + 16 * (size_t)i;
            long long nb = (long long)bytes[first + i];
            void *args[] = {&ptr, &nb, &res};
            int r = launch(h, h->f_hash_bytes, "kevo_hash_bytes",
                           hx_grid(h, nb), 1, 256, 0, args);
            if (r)
                return r;
        }
        uint64_t v[2 * HX_RANGE_BATCH];
        int r = hx_sync(h);
        if (r)
            return r;
        rc = h->cu->cuMemcpyDtoH(v, h->rhashes, 16 * (size_t)k);
        if (rc)
            return cuda_fail(h, rc, "cuMemcpyDtoH");
        for (int i = 0; i < k; i++)
            out[first + i] = v[2 * i] ^ (v[2 * i + 1] * 0x9e3779b97f4a7c15ULL);
    }
    return KEVO_OK;
}

int hx_flush(struct hx *h)
{
    CUdeviceptr p = h->flush;
    long long n = (long long)h->flush_words;
    uint32_t v = ++h->flush_n;
    void *args[] = {&p, &n, &v};
    return launch(h, h->f_flush, "kevo_flush", hx_grid(h, n), 1, 256, 0,
                  args);
}

/* ---- cuBLAS */

int hx_dgemm(struct hx *h, int m, int n, int k, hx_dptr a, hx_dptr b,
             hx_dptr c)
{
    if (!h->blas)
        return hx_fail(h, KEVO_ENODEV, "cuBLAS is not available");
    int r = blas_dgemm(h->blas, m, n, k, a, b, c);
    return r ? hx_fail(h, r, "%s", blas_errmsg(h->blas)) : KEVO_OK;
}

int hx_blas_gemm(struct hx *h, enum dtype dt, int m, int n, int k, hx_dptr a,
                 hx_dptr b, hx_dptr c)
{
    if (!h->blas)
        return hx_fail(h, KEVO_ENODEV, "cuBLAS is not available");
    int r = blas_gemm(h->blas, dt, m, n, k, a, b, c);
    return r ? hx_fail(h, r, "%s", blas_errmsg(h->blas)) : KEVO_OK;
}

/* ---- timing */

void hx_time_opts_default(struct hx_time_opts *o)
{
    o->warmup = 2;
    o->min_reps = 5;
    o->max_reps = 100;
    o->spread_stop = 0.02;
    o->quick_spread = 0;
    o->cap_ns = 1.5e9;
    o->cap_first = 30;
    o->best_ns = 0;
    o->cascade = 1.5;
    o->race_margin = 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double hx_quantile(const double *v, int n, double p)
{
    if (n <= 0)
        return 0;
    double x = p * (n - 1);
    int i = (int)x;
    if (i >= n - 1)
        return v[n - 1];
    return v[i] + (x - i) * (v[i + 1] - v[i]);
}

static void summarize(double *v, int n, struct hx_time_stats *st)
{
    double s[512];
    int k = n < 512 ? n : 512;
    memcpy(s, v, (size_t)k * sizeof *s);
    qsort(s, (size_t)k, sizeof *s, cmp_d);
    st->reps = k;
    st->median_ns = hx_quantile(s, k, 0.5);
    st->min_ns = k ? s[0] : 0;
    st->spread = st->median_ns > 0
                     ? (hx_quantile(s, k, 0.9) - hx_quantile(s, k, 0.1)) /
                           st->median_ns
                     : 0;
}

static int one_rep(struct hx *h, hx_call_fn fn, hx_rep_fn hook, void *ud,
                   int rep)
{
    int r = hook ? hook(h, ud, rep, 1) : 0;
    if (!r)
        r = hx_flush(h);
    if (!r && (r = tmr_rep_begin(h->t)))
        hx_fail(h, r, "%s", tmr_errmsg(h->t));
    if (!r)
        r = fn(h, ud);
    if (!r && (r = tmr_rep_end(h->t)))
        hx_fail(h, r, "%s", tmr_errmsg(h->t));
    if (!r && hook)
        r = hook(h, ud, rep, 0);
    return r;
}

static int collect(struct hx *h, double *v, int *n, int *kpr)
{
    int got = 0, nk[TMR_MAX_REPS];
    int r = hx_sync(h);
    if (r)
        return r;
    r = tmr_collect(h->t, v + *n, nk, TMR_MAX_REPS, &got);
    if (r)
        return hx_fail(h, r, "%s", tmr_errmsg(h->t));
    if (got)
        *kpr = nk[got - 1];
    *n += got;
    return KEVO_OK;
}

enum hx_stop hx_time_stop(const struct hx_time_opts *o, const double *v,
                          int n, double total, struct hx_time_stats *st)
{
    int max = o->max_reps < 500 ? o->max_reps : 500;
    double best = o->best_ns > 0 ? o->best_ns : 0,
           limit = best > 0 ? o->cascade * best : 0;
    /* racing: clearly slower than the best known after 1 rep, or after 3
     * by the median; it keeps its (short) measurement (cascade <= 0: off,
     * as the loop's first batch assumes) */
    if (limit > 0 && (n == 1 || n == 3) && st->median_ns > limit) {
        st->cascaded = 1;
        return HX_STOP_CASCADE;
    }
    if (n == 3 && o->quick_spread > 0 && st->median_ns > 0) {
        double lo = fmin(v[0], fmin(v[1], v[2])),
               hi = fmax(v[0], fmax(v[1], v[2]));
        if (hi - lo < o->quick_spread * st->median_ns) {
            st->quick = 1;
            return HX_STOP_QUICK;
        }
    }
    if (n >= o->min_reps && st->spread < o->spread_stop)
        return HX_STOP_SPREAD;
    /* no rep came near the best: more reps would refine the time of a
     * candidate no decision needs to the last percent */
    if (best > 0 && o->race_margin > 0 && n >= o->min_reps &&
        st->min_ns > (1 + o->race_margin) * best) {
        st->raced = 1;
        return HX_STOP_RACED;
    }
    if (total > o->cap_ns || (n >= o->min_reps && total > o->cap_first * v[0]))
        return HX_STOP_CAP;
    return n >= max ? HX_STOP_MAX : HX_GO;
}

int hx_time_loop(struct hx *h, const struct hx_time_opts *o, hx_call_fn fn,
                 hx_rep_fn hook, void *ud, struct hx_time_stats *st)
{
    double v[512];
    int n = 0, r = 0;
    memset(st, 0, sizeof *st);
    for (int i = 0; i < o->warmup && !r; i++) {
        r = hx_flush(h);
        if (!r)
            r = fn(h, ud);
    }
    /* idle GPU before the discard, also without warm-up: records of
     * kernels still running would straddle it */
    if (!r)
        r = hx_sync(h);
    if (!r && (r = tmr_discard(h->t)))
        hx_fail(h, r, "%s", tmr_errmsg(h->t));
    int max = o->max_reps < 500 ? o->max_reps : 500;
    double total = 0, limit = o->best_ns > 0 ? o->cascade * o->best_ns : 0;
    while (!r && n < max) {
        /* batches: 1 (first cascade check, when racing), 2 (reach 3: the
         * second cascade check and the quick stop), 2 (reach 5), then 5 */
        int batch = n == 0 ? (limit > 0 ? 1 : 3) : n < 3 ? 3 - n
                    : n == 3 ? 2 : 5;
        if (n + batch > max)
            batch = max - n;
        for (int i = 0; i < batch && !r; i++)
            r = one_rep(h, fn, hook, ud, n + i);
        int before = n;
        if (!r) {
            long long c0 = fs_now_ns();
            r = collect(h, v, &n, &st->kernels_per_rep);
            st->collect_ms += (double)(fs_now_ns() - c0) / 1e6;
            st->collects++;
        }
        if (r)
            break;
        for (int i = before; i < n; i++)
            total += v[i];
        summarize(v, n, st);
        st->first_ns = v[0];
        if (hx_time_stop(o, v, n, total, st) != HX_GO)
            break;
    }
    return r;
}

void hx_pair_next(struct hx *h, hx_call_fn fn, void *ud, int n_pairs,
                  double *t_fn, double *t_other)
{
    h->pair = (struct hx_pairing){fn, ud, n_pairs, t_fn, t_other, 0};
}

int hx_pair_used(const struct hx *h)
{
    return h->pair.used;
}

int hx_time(struct hx *h, hx_call_fn fn, void *ud, double *median_ns)
{
    if (h->pair.fn) { /* paired: fn against the pairing's function */
        struct hx_pairing p = h->pair;
        h->pair.fn = NULL;
        int r = hx_time_pairs(h, p.n, p.fn, p.ud, fn, ud, p.t_fn,
                              p.t_other);
        h->pair.used = !r;
        double s[TMR_MAX_REPS];
        memcpy(s, p.t_other, (size_t)p.n * sizeof *s);
        qsort(s, (size_t)p.n, sizeof *s, cmp_d);
        *median_ns = r ? 0 : hx_quantile(s, p.n, 0.5);
        return r;
    }
    struct hx_time_opts o;
    struct hx_time_stats st;
    hx_time_opts_default(&o);
    o.cap_ns = 0.5e9;
    int r = hx_time_loop(h, &o, fn, NULL, ud, &st);
    *median_ns = st.median_ns;
    return r;
}

int hx_time_pairs(struct hx *h, int n_pairs, hx_call_fn a, void *ua,
                  hx_call_fn b, void *ub, double *ta, double *tb)
{
    int r = 0, done = 0;
    double v[TMR_MAX_REPS];
    for (int w = 0; w < 2 && !r; w++) { /* warm-up both */
        r = hx_flush(h);
        if (!r)
            r = a(h, ua);
        if (!r)
            r = b(h, ub);
    }
    if (!r)
        r = hx_sync(h);
    if (!r && (r = tmr_discard(h->t)))
        return hx_fail(h, r, "%s", tmr_errmsg(h->t));
    while (!r && done < n_pairs) {
        int batch = n_pairs - done < 20 ? n_pairs - done : 20;
        /* ABBA: alternate which goes first, so a bias of position (the
         * second of a pair ran 0.5 % faster on the H200) cancels */
        for (int i = 0; i < batch && !r; i++) {
            int swap = (done + i) & 1;
            r = one_rep(h, swap ? b : a, NULL, swap ? ub : ua, 0);
            if (!r)
                r = one_rep(h, swap ? a : b, NULL, swap ? ua : ub, 0);
        }
        int n = 0, kpr = 0;
        if (!r)
            r = collect(h, v, &n, &kpr);
        if (!r && n != 2 * batch)
            r = hx_fail(h, KEVO_ECUDA, "expected %d timings, got %d",
                        2 * batch, n);
        for (int i = 0; !r && i < batch; i++) {
            int swap = (done + i) & 1;
            ta[done + i] = v[2 * i + swap];
            tb[done + i] = v[2 * i + !swap];
        }
        done += batch;
    }
    return r;
}

void hx_set_progress(struct hx *h, hx_progress_fn fn, void *ud)
{
    h->progress = fn;
    h->progress_ud = ud;
}

void hx_progress(struct hx *h, const char *phase, int budget_ms)
{
    if (h->progress)
        h->progress(h->progress_ud, phase, budget_ms);
}
