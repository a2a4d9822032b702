/*
 * sanprobe.c - runs one candidate once for a sanitizer (see sanprobe.h).
 * Deliberately small and separate from the worker: no harness kernels, no
 * CUPTI, no baselines, no guard bands; only the candidate's own launches
 * touch the GPU after the buffers are filled.
 */
#include "sanprobe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "hash.h"
#include "jit.h"
#include "tmap.h"

#define SEED 0x5a17c0deULL

struct probe {
    struct gpu g;
    const struct gpu_api *cu;
    CUmodule mod;
    CUfunction f[TPL_MAX_LAUNCHES];
    struct buf_desc d[PROB_MAX_BUFS];
    CUdeviceptr buf[PROB_MAX_BUFS];
    int n_bufs;
    CUdeviceptr ws;
    struct launch_plan pl;
    CUtensorMap tmap[TPL_MAX_TMAPS];
    char *err;
    size_t errcap;
};

static int cuda_fail(struct probe *pr, CUresult rc, const char *what)
{
    snprintf(pr->err, pr->errcap, "%s: %s", what, gpu_errname(rc));
    return KEVO_ECUDA;
}

/* Host value v in [-1, 1) as dtype dt at out. */
static void put(void *out, enum dtype dt, float v)
{
    uint32_t b;
    memcpy(&b, &v, 4);
    if (dt == DTYPE_FP32) {
        memcpy(out, &v, 4);
    } else if (dt == DTYPE_BF16) {
        uint16_t h = (uint16_t)(b >> 16);
        memcpy(out, &h, 2);
    } else { /* fp16: |v| < 1, normal or zero; mantissa cut */
        uint32_t e = (b >> 23) & 0xff, sign = (b >> 16) & 0x8000;
        uint16_t h = (uint16_t)(e < 113 ? sign
                                        : sign | (e - 112) << 10 |
                                              (b >> 13 & 0x3ff));
        memcpy(out, &h, 2);
    }
}

static int fill_input(struct probe *pr, int i, uint64_t *state)
{
    size_t es = dtype_size(pr->d[i].dtype), n = (size_t)pr->d[i].n_elems;
    unsigned char *h = malloc(n * es);
    if (!h)
        return KEVO_ENOMEM;
    for (size_t k = 0; k < n; k++) {
        *state = hash_u64(*state, k);
        float v = (float)((double)(*state >> 11) / 9007199254740992.0) * 2 - 1;
        put(h + k * es, pr->d[i].dtype, v);
    }
    CUresult rc = pr->cu->cuMemcpyHtoD(pr->buf[i], h, n * es);
    free(h);
    return rc ? cuda_fail(pr, rc, "cuMemcpyHtoD") : KEVO_OK;
}

/* Every buffer its own allocation of exactly its size; inputs random,
 * outputs NaN-poisoned (as the evaluator does before each call). */
static int make_buffers(struct probe *pr, const struct problem *p,
                        enum dtype dt, const struct shape *s)
{
    uint64_t state = SEED;
    pr->n_bufs = p->buffers(p, s, dt, pr->d);
    for (int i = 0; i < pr->n_bufs; i++) {
        size_t bytes = (size_t)pr->d[i].n_elems * dtype_size(pr->d[i].dtype);
        CUresult rc = pr->cu->cuMemAlloc(&pr->buf[i], bytes ? bytes : 1);
        if (rc)
            return cuda_fail(pr, rc, "cuMemAlloc");
        int r = KEVO_OK;
        if (pr->d[i].role != BUF_OUT)
            r = fill_input(pr, i, &state);
        else if ((rc = pr->cu->cuMemsetD8(pr->buf[i], 0xff, bytes)))
            r = cuda_fail(pr, rc, "cuMemsetD8");
        if (r)
            return r;
    }
    if (pr->pl.workspace_bytes) {
        CUresult rc = pr->cu->cuMemAlloc(&pr->ws, pr->pl.workspace_bytes);
        if (rc)
            return cuda_fail(pr, rc, "cuMemAlloc (workspace)");
    }
    return KEVO_OK;
}

/* As the worker encodes them: the one encoding of core/tmap.h. */
static int encode_tmaps(struct probe *pr)
{
    for (int i = 0; i < pr->pl.n_tmaps; i++) {
        const struct tmap_plan *m = &pr->pl.tm[i];
        const struct buf_desc *d =
            m->buf >= 0 && m->buf < pr->n_bufs ? &pr->d[m->buf] : NULL;
        struct tmap_enc e;
        if (!d || tmap_encoding(m, d, &e)) {
            snprintf(pr->err, pr->errcap, "tensor map %d: no 2-D buffer", i);
            return KEVO_ECOMPILE;
        }
        CUresult rc = pr->cu->cuTensorMapEncodeTiled(
            &pr->tmap[i], e.data_type, TMAP_RANK,
            (void *)(uintptr_t)pr->buf[m->buf], e.dims, e.stride, e.box,
            e.step, TMAP_INTERLEAVE, e.swizzle, e.l2, TMAP_OOB_FILL);
        if (rc)
            return cuda_fail(pr, rc, "cuTensorMapEncodeTiled");
    }
    return KEVO_OK;
}

static int load(struct probe *pr, const char *src)
{
    struct jit_output o;
    int rc = jit_compile(src, "candidate.cu", pr->g.info.arch, &o);
    if (!rc && !o.ok) {
        const char *k = strstr(o.log, "kevo: rejected: ");
        const char *e = k ? k : strstr(o.log, "error");
        snprintf(pr->err, pr->errcap, "does not compile: %.*s",
                 (int)strcspn(e ? e : o.log, "\n"), e ? e : o.log);
        rc = KEVO_ECOMPILE;
    } else if (!rc) {
        CUresult cr = pr->cu->cuModuleLoadData(&pr->mod, o.cubin);
        if (cr)
            rc = cuda_fail(pr, cr, "cuModuleLoadData");
    } else {
        snprintf(pr->err, pr->errcap, "NVRTC failed: %.200s", o.log);
    }
    jit_output_release(&o);
    for (int i = 0; !rc && i < pr->pl.n; i++) {
        const struct launch_dims *d = &pr->pl.l[i];
        CUresult cr = pr->cu->cuModuleGetFunction(&pr->f[i], pr->mod,
                                                  d->kernel);
        if (!cr && d->smem_bytes > 48 * 1024)
            cr = pr->cu->cuFuncSetAttribute(
                pr->f[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                (int)d->smem_bytes);
        if (cr)
            rc = cuda_fail(pr, cr, d->kernel);
    }
    return rc;
}

static int launch_all(struct probe *pr, const struct shape *s)
{
    void *args[PROB_MAX_BUFS + PROB_MAX_DIMS + 1 + TPL_MAX_TMAPS +
               TPL_MAX_ARGS];
    int sizes[PROB_MAX_DIMS], a = 0;
    for (int i = 0; i < pr->n_bufs; i++)
        args[a++] = &pr->buf[i];
    for (int i = 0; i < s->n_dims; i++) {
        sizes[i] = (int)s->d[i];
        args[a++] = &sizes[i];
    }
    args[a++] = &pr->ws;
    for (int i = 0; i < pr->pl.n_tmaps; i++)
        args[a++] = &pr->tmap[i];
    for (int i = 0; i < pr->pl.n_args; i++)
        args[a++] = &pr->pl.args[i];
    for (int i = 0; i < pr->pl.n; i++) {
        const struct launch_dims *d = &pr->pl.l[i];
        CUlaunchAttribute at[2];
        unsigned na = 0;
        memset(at, 0, sizeof at);
        if (d->cluster[0]) {
            at[na].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            at[na].value.clusterDim.x = d->cluster[0];
            at[na].value.clusterDim.y = d->cluster[1] ? d->cluster[1] : 1;
            at[na].value.clusterDim.z = d->cluster[2] ? d->cluster[2] : 1;
            na++;
        }
        if (d->pdl) {
            at[na].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            at[na].value.programmaticStreamSerializationAllowed = 1;
            na++;
        }
        CUlaunchConfig c = {
            .gridDimX = d->grid[0], .gridDimY = d->grid[1],
            .gridDimZ = d->grid[2], .blockDimX = d->block[0],
            .blockDimY = d->block[1], .blockDimZ = d->block[2],
            .sharedMemBytes = d->smem_bytes, .hStream = NULL, .attrs = at,
            .numAttrs = na};
        CUresult rc = pr->cu->cuLaunchKernelEx(&c, pr->f[i], args, NULL);
        if (rc)
            return cuda_fail(pr, rc, d->kernel);
    }
    CUresult rc = pr->cu->cuCtxSynchronize();
    return rc ? cuda_fail(pr, rc, "cuCtxSynchronize") : KEVO_OK;
}

int sanprobe_run(const struct problem *p, enum dtype dt,
                 const struct shape *s, const struct tpl *t,
                 const int64_t *vals, const char *src, char *err,
                 size_t errcap)
{
    struct probe pr = {.err = err, .errcap = errcap};
    int rc = gpu_open(&pr.g, 0, err, errcap);
    if (rc)
        return rc;
    pr.cu = pr.g.cu;
    struct tpl_device dev = {pr.g.info.sms, pr.g.info.smem_optin,
                             pr.g.info.l2_bytes};
    char why[400];
    if (tpl_prepare(t, vals, dt, s, &dev, &pr.pl, why, sizeof why)) {
        snprintf(err, errcap, "the launch plan does not fit: %s", why);
        rc = KEVO_ECOMPILE;
    }
    if (!rc)
        rc = load(&pr, src);
    if (!rc)
        rc = make_buffers(&pr, p, dt, s);
    if (!rc)
        rc = encode_tmaps(&pr);
    if (!rc)
        rc = launch_all(&pr, s);
    if (rc == KEVO_ECUDA) /* the context may be gone: exit soon */
        return rc;
    for (int i = 0; i < pr.n_bufs; i++)
        pr.cu->cuMemFree(pr.buf[i]);
    if (pr.ws)
        pr.cu->cuMemFree(pr.ws);
    if (pr.mod)
        pr.cu->cuModuleUnload(pr.mod);
    gpu_close(&pr.g);
    return rc;
}
