/*
 * worker.c - the GPU worker process (contract in worker.h): the timing
 * worker serves init, job, confirm and baseline requests on one socket,
 * the profiler's worker init and profile requests (worker.h 11); each
 * owns its context, CUPTI, cuBLAS and the harness. It decides the verdict
 * of a candidate; the coordinator only adds what needs the process
 * boundary (timeouts, crashes by signal).
 *
 * Any CUDA error the harness cannot explain as a rejected launch ends the
 * process after a WM_FATAL message: the context may be unusable (sticky
 * errors, notes/cupti-nvrtc-driver.md section 3) and in-process recovery
 * is never tried.
 */
#include "worker.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cJSON.h>
#include <cuda.h>

#include "blas.h"
#include "eval.h"
#include "fsutil.h"
#include "gpu.h"
#include "hash.h"
#include "hx.h"
#include "jit.h"
#include "problem.h"
#include "prof.h"
#include "record.h"
#include "solpeak.h"
#include "tmap.h"
#include "tmr.h"
#include "tpl.h"
#include "wire.h"
#include "wmsg.h"

#define CHECK_SLOT (HX_HASH_SLOTS - 1) /* hash slot for checks */
#define TIMING_CASCADE 1.5        /* racing: stop above this x best */
#define TIMING_QUICK_SPREAD 0.005 /* stop after 3 reps within 0.5 % */
#define TIMING_RACE_MARGIN 0.03   /* racing: stop at 5 reps all above
                                     this much slower than best */
#define MAX_ARGS \
    (PROB_MAX_BUFS + PROB_MAX_DIMS + 1 + TPL_MAX_TMAPS + TPL_MAX_ARGS)

struct worker {
    int fd;
    int ready;               /* init done */
    struct gpu g;
    CUstream s;
    struct tmr *t;
    int profiler;            /* 1: the profiler's worker (worker.h 11) */
    struct prof *prof;       /* range profiler (the profiler's worker
                                only), set up for each profile */
    struct blas *blas;
    char blas_note[256];
    struct hx *h;
    const struct problem *p;
    enum dtype dt;
    struct shape shape;
    uint64_t seed;           /* harness seed */
    struct baseline_result bl;
    char phase[64];          /* current phase, for messages */
    double ref_ms;           /* host ms in reference compares, this job */
};

/* One loaded candidate. */
struct job {
    const struct gpu_api *cu; /* borrowed */
    long long seq;
    int n;
    struct launch_dims l[TPL_MAX_LAUNCHES];
    CUmodule mod;
    CUfunction f[TPL_MAX_LAUNCHES];
    uint64_t ws_bytes;
    int nondet;
    double best_ns;
    CUdeviceptr bufs[PROB_MAX_BUFS];
    int sizes[PROB_MAX_DIMS];
    CUdeviceptr ws;
    int n_tmaps;
    struct tmap_plan tm[TPL_MAX_TMAPS];
    CUtensorMap tmap[TPL_MAX_TMAPS]; /* encoded for bufs[], passed by value */
    int n_iargs;
    int32_t iargs[TPL_MAX_ARGS];     /* tpl.h "arg", passed by value */
    void *args[MAX_ARGS];
    int launch_rc;           /* a rejected launch: its CUresult */
    int launch_idx;
    struct eval_resources res;
    struct prof_launch lres[TPL_MAX_LAUNCHES]; /* resources per launch
                                                  (evidence), metrics unset */
    struct watch *watch;     /* module globals, hashed around launches */
};

static void launch_res(struct worker *w, const struct job *jb, int i,
                       struct prof_launch *l);

/*
 * The module's global memory, watched: every range is hashed after load
 * and again after every check launch and the timing loop; a change means
 * the candidate kept state in module memory (guarantee 1).
 */
struct watch {
    int n;                       /* ranges */
    hx_dptr *p;                  /* device address of each */
    uint64_t *bytes;             /* and its size */
    uint64_t *h0, *now;          /* hash after load, latest hash */
    char (*label)[300];          /* "'table'" or "bytes between ..." */
};

/* Verdict of one stage. */
struct verdict {
    enum eval_outcome outcome;
    char detail[512];
};

static void set_verdict(struct verdict *v, enum eval_outcome o,
                        const char *fmt, ...) KEVO_PRINTF(3, 4);
static void set_verdict(struct verdict *v, enum eval_outcome o,
                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    v->outcome = o;
    vsnprintf(v->detail, sizeof v->detail, fmt, ap);
    va_end(ap);
}

/* ---- messages */

/* Sends body j (taken over; NULL: out of memory) as a message of type. */
static int send_json(struct worker *w, int type, cJSON *j)
{
    char *txt = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    if (!txt)
        return KEVO_ENOMEM;
    int r = wmsg_send(w->fd, type, txt, NULL, 0);
    free(txt);
    return r;
}

static void progress_budget(struct worker *w, const char *phase,
                            int budget_ms)
{
    struct wire_progress m = {.budget_ms = budget_ms};
    snprintf(w->phase, sizeof w->phase, "%s", phase);
    snprintf(m.phase, sizeof m.phase, "%s", phase);
    (void)send_json(w, WM_PROGRESS, wire_progress_json(&m));
}

static void progress(struct worker *w, const char *phase)
{
    progress_budget(w, phase, 0);
}

/* hx_progress's sink: a problem's hook announces a long phase. */
static void hx_progress_sink(void *ud, const char *phase, int budget_ms)
{
    progress_budget(ud, phase, budget_ms);
}

/* Sends WM_FATAL; the caller returns WORKER_EXIT_FATAL. */
static int fatal(struct worker *w, int enodev, const char *fmt, ...)
    KEVO_PRINTF(3, 4);
static int fatal(struct worker *w, int enodev, const char *fmt, ...)
{
    struct wire_fatal m = {.enodev = enodev};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m.reason, sizeof m.reason, fmt, ap);
    va_end(ap);
    (void)send_json(w, WM_FATAL, wire_fatal_json(&m));
    return WORKER_EXIT_FATAL;
}

/* A harness call failed: always fatal (the context is suspect). */
static int harness_fatal(struct worker *w)
{
    int rc = hx_cuda_rc(w->h);
    if (rc && gpu_err_sticky((CUresult)rc)) /* + what the harness ran */
        return fatal(w, 0, "%s (%d) in %s: %s", gpu_errname((CUresult)rc), rc,
                     w->phase, hx_errmsg(w->h));
    return fatal(w, 0, "harness failure in %s: %s", w->phase,
                 hx_errmsg(w->h));
}

/* ---- init */

static int compile_cubin(const char *src, const char *name, const char *arch,
                         char **cubin, char *err, size_t errcap)
{
    struct jit_output o;
    int r = jit_compile(src, name, arch, &o);
    if (r || !o.ok) {
        const char *log = o.log ? o.log : "";
        snprintf(err, errcap, "cannot compile the %s harness kernels: %.300s",
                 name, log);
        jit_output_release(&o);
        return r ? r : KEVO_ECOMPILE;
    }
    *cubin = o.cubin;
    o.cubin = NULL;
    jit_output_release(&o);
    return KEVO_OK;
}

static char *concat(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *s = malloc(na + nb + 1);
    if (s) {
        memcpy(s, a, na);
        memcpy(s + na, b, nb + 1);
    }
    return s;
}

/* Context, stream, timer, cuBLAS, harness kernels. */
static int start_gpu(struct worker *w, int device, int want_cupti, char *err,
                     size_t errcap)
{
    int r = gpu_open(&w->g, device, err, errcap);
    if (r)
        return r;
    CUresult rc = w->g.cu->cuStreamCreate(&w->s, CU_STREAM_DEFAULT);
    /* A blocking stream, on purpose: the harness's synchronous
     * cuMemset and cuMemcpy calls run on the legacy NULL stream, and only
     * a blocking stream is ordered with them. With a NON_BLOCKING stream a
     * memset of a fresh buffer raced with the kernel that filled it
     * (measured on the H100: correct kernels flagged "input modified"). */
    if (rc) {
        snprintf(err, errcap, "cuStreamCreate: %s", gpu_errname(rc));
        return KEVO_ECUDA;
    }
    r = tmr_new(&w->g, w->s, want_cupti, &w->t, err, errcap);
    if (r)
        return r;
    if (blas_new(w->s, &w->blas, w->blas_note, sizeof w->blas_note))
        w->blas = NULL; /* GEMM falls back to a naive fp64 reference */
    return KEVO_OK;
}

static int start_harness(struct worker *w, char *err, size_t errcap)
{
    char *core = NULL, *prob = NULL;
    const char *arch = w->g.info.arch;
    int r = compile_cubin(hx_core_source(), "kevo_core", arch, &core, err,
                          errcap);
    if (!r && w->p->harness_src) {
        char *src = concat(w->p->prelude(w->p, w->dt), w->p->harness_src);
        r = src ? compile_cubin(src, w->p->name, arch, &prob, err, errcap)
                : KEVO_ENOMEM;
        free(src);
    }
    if (!r)
        w->g.cu->cuCtxSetCurrent(w->g.ctx); /* in case NVRTC changed it */
    if (!r)
        r = hx_new(&w->g, w->s, w->t, w->blas, core, prob, &w->h, err,
                   errcap);
    if (!r)
        hx_set_progress(w->h, hx_progress_sink, w);
    free(core);
    free(prob);
    if (!r && (r = hx_set_problem(w->h, w->p, w->dt, &w->shape, w->seed)))
        snprintf(err, errcap, "%s", hx_errmsg(w->h));
    return r;
}

static int measure_baselines(struct worker *w)
{
    memset(&w->bl, 0, sizeof w->bl);
    if (!w->p->baseline)
        return KEVO_OK;
    progress(w, "baseline");
    hx_view_live(w->h);
    int r =
        w->p->gen_inputs(w->p, w->h, &w->shape, w->dt, hx_seed(w->seed, 7777));
    if (!r)
        r = w->p->baseline(w->p, w->h, &w->shape, w->dt, &w->bl);
    return r;
}

/* The tolerance checks use, after the baselines (which may have set it). */
static void tolerance_of(const struct worker *w, struct wire_tolerance *t)
{
    const struct baseline_result *b = &w->bl;
    memset(t, 0, sizeof *t);
    w->p->tolerance(w->p, &w->shape, w->dt, &t->atol, &t->rtol);
    t->used = b->tol_used;
    t->margin = b->tol_margin;
    snprintf(t->source, sizeof t->source, "%s", b->tol_given ? "given"
             : b->tol_used > 0 ? "calibrated" : "dtype");
    snprintf(t->who, sizeof t->who, "%s", b->tol_who ? b->tol_who : "");
    wire_tolerance_outputs(t, w->p, &w->shape, w->dt); /* problem.h */
}

/* The worker's environment, as the ready message carries it. */
static void ready_of(const struct worker *w, struct wire_ready *m)
{
    const struct gpu_info *i = &w->g.info;
    struct wire_device *d = &m->device;
    memset(m, 0, sizeof *m);
    snprintf(d->name, sizeof d->name, "%s", i->name);
    snprintf(d->uuid, sizeof d->uuid, "%s", i->uuid);
    snprintf(d->arch, sizeof d->arch, "%s", i->arch);
    d->ordinal = i->ordinal;
    d->sms = i->sms;
    d->total_mem = (int64_t)i->total_mem;
    d->l2_bytes = i->l2_bytes;
    d->clock_khz = i->clock_khz;
    d->mem_clock_khz = i->mem_clock_khz;
    d->bus_width_bits = i->bus_width_bits;
    d->smem_optin = i->smem_optin;
    d->driver_version = i->driver_version;
    d->peak_bw = i->peak_bw;
    d->peak_fp32 = i->peak_fp32;
    d->peak_tensor16 = i->peak_tensor16;
    int n_dev = 0; /* for kevo run --gpus all */
    m->device_count =
        w->g.cu->cuDeviceGetCount(&n_dev) == CUDA_SUCCESS ? n_dev : -1;
    snprintf(m->timer, sizeof m->timer, "%s", tmr_kind(w->t));
    snprintf(m->timer_note, sizeof m->timer_note, "%s", tmr_note(w->t));
    m->cupti_version = tmr_cupti_version(w->t);
    m->cublas_version = blas_version(w->blas);
    snprintf(m->cublas_note, sizeof m->cublas_note, "%s",
             w->blas ? "" : w->blas_note);
    snprintf(m->nvrtc_version, sizeof m->nvrtc_version, "%s",
             jit_nvrtc_version());
    m->n_baselines = w->bl.n;
    for (int k = 0; k < w->bl.n; k++) {
        struct record_baseline *x = &m->baselines[k];
        snprintf(x->name, sizeof x->name, "%s", w->bl.name[k]);
        x->median_ns = w->bl.median_ns[k];
        x->fitness = w->bl.fitness[k];
        x->wall_ns = w->bl.wall_ns[k];
    }
    snprintf(m->baseline_note, sizeof m->baseline_note, "%s", w->bl.note);
    tolerance_of(w, &m->tolerance);
    m->has_tolerance = 1;
    struct gpu_nvml nv;
    if ((m->has_nvml = gpu_nvml_sample(i->uuid, &nv) == 0))
        m->nvml = (struct wire_nvml){nv.temp_c, nv.power_limit_mw,
                                     nv.power_mw, nv.sm_clock_mhz,
                                     nv.mem_clock_mhz, nv.app_sm_clock_mhz,
                                     nv.throttle};
}

static int send_ready(struct worker *w)
{
    struct wire_ready m;
    ready_of(w, &m);
    return send_json(w, WM_READY, wire_ready_json(&m));
}

static int parse_init(struct worker *w, const cJSON *j, int *device,
                      int *cupti, char *err, size_t errcap)
{
    struct wire_init m;
    const struct problem *up;
    if (wire_init_parse(j, &m)) {
        snprintf(err, errcap, "bad init message");
        return KEVO_EPARSE;
    }
    if (m.problem_file &&
        problem_load_text(m.problem_file, m.problem_text, &up, err, errcap))
        return KEVO_EPARSE; /* a file problem (core/probfile.c) */
    if (!(w->p = problem_find(m.problem)) || m.shape.n_dims != w->p->n_dims) {
        snprintf(err, errcap, "bad init message");
        return KEVO_EPARSE;
    }
    w->dt = m.dtype;
    w->shape = m.shape;
    w->seed = m.seed;
    w->profiler = m.profiler;
    *device = m.device;
    *cupti = m.cupti && !m.profiler; /* the profiler times nothing */
    return KEVO_OK;
}

/* Refuses a shape whose buffers, references and flush buffer do not fit
 * in the GPU's free memory, before allocating any of them. */
static int check_memory(struct worker *w, char *err, size_t errcap)
{
    size_t fr = 0, total = 0;
    CUresult rc = w->g.cu->cuMemGetInfo(&fr, &total);
    if (rc) {
        snprintf(err, errcap, "cuMemGetInfo: %s", gpu_errname(rc));
        return KEVO_ECUDA;
    }
    struct mem_need need;
    problem_mem_need(w->p, &w->shape, w->dt, (double)w->g.info.l2_bytes,
                     &need);
    return problem_mem_check(&need, (double)fr, err, errcap);
}

static int handle_init(struct worker *w, const cJSON *j)
{
    char err[512] = "";
    int device = 0, cupti = 1;
    if (w->ready)
        return fatal(w, 0, "init sent twice");
    snprintf(w->phase, sizeof w->phase, "init");
    int r = parse_init(w, j, &device, &cupti, err, sizeof err);
    if (!r)
        r = start_gpu(w, device, cupti, err, sizeof err);
    if (!r)
        r = check_memory(w, err, sizeof err);
    if (r)
        return fatal(w, r == KEVO_ENODEV, "%s", err);
    if ((r = start_harness(w, err, sizeof err)))
        return fatal(w, 0, "%s", err);
    if (!w->profiler && measure_baselines(w))
        return harness_fatal(w);
    w->ready = 1;
    return send_ready(w) ? WORKER_EXIT_FATAL : 0;
}

/* ---- loading a candidate */


/* A job's launch plan and flags, as core/wire.c decoded them. */
static void job_of(const struct wire_job *wj, struct job *jb)
{
    jb->seq = wj->seq;
    jb->n = wj->plan.n;
    memcpy(jb->l, wj->plan.l, sizeof jb->l);
    jb->ws_bytes = wj->plan.workspace_bytes;
    jb->n_tmaps = wj->plan.n_tmaps;
    jb->n_iargs = wj->plan.n_args;
    memcpy(jb->iargs, wj->plan.args, sizeof jb->iargs);
    memcpy(jb->tm, wj->plan.tm, sizeof jb->tm);
    jb->nondet = wj->nondet;
    jb->best_ns = wj->best_ns;
}

static int fattr(struct worker *w, CUfunction f, CUfunction_attribute a)
{
    int v = 0;
    w->g.cu->cuFuncGetAttribute(&v, a, f);
    return v;
}

static void watch_free(struct watch *wt)
{
    if (!wt)
        return;
    free(wt->p);
    free(wt->bytes);
    free(wt->h0);
    free(wt->now);
    free(wt->label);
    free(wt);
}

static void job_unload(struct worker *w, struct job *jb)
{
    if (jb->mod)
        w->g.cu->cuModuleUnload(jb->mod);
    jb->mod = NULL;
    watch_free(jb->watch);
    jb->watch = NULL;
}

/*
 * Encodes the job's tensor maps (core/tmap.h: the one description of the
 * encoding, shared with kevo export) for exactly the buffers the launches
 * pass (jb->bufs: the live buffers, fixed for the job). A map the driver
 * refuses is a verdict (compile_error), as a refused launch.
 */
static void encode_tmaps(struct worker *w, struct job *jb, struct verdict *v)
{
    for (int i = 0; i < jb->n_tmaps && v->outcome == EVAL_OK; i++) {
        const struct tmap_plan *m = &jb->tm[i];
        const struct buf_desc *d = m->buf >= 0 && m->buf < hx_n_bufs(w->h)
                                       ? hx_desc(w->h, m->buf) : NULL;
        struct tmap_enc e;
        if (!d || tmap_encoding(m, d, &e)) {
            set_verdict(v, EVAL_COMPILE_ERROR, "cannot launch: tensor map "
                        "%d: no 2-D buffer %d, or bad swizzle %d or l2 %d",
                        i, m->buf, m->swizzle, m->l2);
            return;
        }
        CUresult rc = w->g.cu->cuTensorMapEncodeTiled(
            &jb->tmap[i], e.data_type, TMAP_RANK,
            (void *)(uintptr_t)jb->bufs[m->buf], e.dims, e.stride, e.box,
            e.step, TMAP_INTERLEAVE, e.swizzle, e.l2, TMAP_OOB_FILL);
        if (rc)
            set_verdict(v, EVAL_COMPILE_ERROR, "cannot launch: tensor map "
                        "%d of %s (%lldx%lld, box %ux%u, swizzle %d): %s", i,
                        d->name, (long long)d->rows, (long long)d->cols,
                        e.box[0], e.box[1], m->swizzle, gpu_errname(rc));
    }
}

/* ---- module globals: watched, not refused */

#define MAX_GLOBALS 4096 /* more is refused (compile_error) */

struct sec_base {
    int section;             /* ELF section index */
    hx_dptr base;            /* device address of its offset 0; 0 = ? */
    int consistent;          /* every located symbol agrees on base */
    uint64_t lo, hi;         /* extent of its symbols, section offsets */
    int n;                   /* symbols in it */
};

static struct sec_base *sec_of(struct sec_base *sb, int *n_sb, int section)
{
    for (int i = 0; i < *n_sb; i++)
        if (sb[i].section == section)
            return &sb[i];
    sb[*n_sb] = (struct sec_base){.section = section, .consistent = 1,
                                  .lo = UINT64_MAX};
    return &sb[(*n_sb)++];
}

static void watch_add(struct watch *wt, hx_dptr p, uint64_t bytes,
                      const char *label)
{
    wt->p[wt->n] = p;
    wt->bytes[wt->n] = bytes;
    snprintf(wt->label[wt->n], sizeof wt->label[0], "%s", label);
    wt->n++;
}

static struct watch *watch_new(int cap)
{
    struct watch *wt = calloc(1, sizeof *wt);
    if (!wt)
        return NULL;
    wt->p = calloc((size_t)cap, sizeof *wt->p);
    wt->bytes = calloc((size_t)cap, sizeof *wt->bytes);
    wt->h0 = calloc((size_t)cap, sizeof *wt->h0);
    wt->now = calloc((size_t)cap, sizeof *wt->now);
    wt->label = calloc((size_t)cap, sizeof *wt->label);
    if (!wt->p || !wt->bytes || !wt->h0 || !wt->now || !wt->label) {
        watch_free(wt);
        return NULL;
    }
    return wt;
}

/*
 * Locates every module global of the loaded cubin (jit_cubin_globals:
 * name, size, section offset) with cuModuleGetGlobal. A symbol the driver
 * does not find by name (or data without a name) is placed through its
 * section's base address, known from another symbol of the section when
 * all located symbols agree on it; one that cannot be placed is refused
 * (compile_error), as is printf. Besides each symbol, the span of each
 * section's symbols is watched too (the bytes between them). Returns a
 * CUDA failure; a refusal is a verdict.
 */
static int watch_build(struct worker *w, struct job *jb, const void *cubin,
                       size_t len, struct verdict *v)
{
    int n = jit_cubin_globals(cubin, len, NULL, 0);
    if (n == 0)
        return KEVO_OK;
    if (n < 0 || n > MAX_GLOBALS) {
        set_verdict(v, EVAL_COMPILE_ERROR, n < 0 ? "cannot read the cubin's "
                    "symbol table (module globals)" : "too many module "
                    "globals (%d, at most %d)", n, MAX_GLOBALS);
        return KEVO_OK;
    }
    struct jit_global *g = calloc((size_t)n, sizeof *g);
    struct sec_base *sb = calloc((size_t)n, sizeof *sb);
    hx_dptr *at = calloc((size_t)n, sizeof *at);
    uint64_t *sz = calloc((size_t)n, sizeof *sz);
    int n_sb = 0, r = KEVO_OK;
    if (!g || !sb || !at || !sz || !(jb->watch = watch_new(2 * n))) {
        r = KEVO_ENOMEM;
        goto done;
    }
    jit_cubin_globals(cubin, len, g, n);
    for (int i = 0; i < n; i++) {
        struct sec_base *b = sec_of(sb, &n_sb, g[i].section);
        size_t bytes = 0;
        CUdeviceptr dp = 0;
        CUresult rc = g[i].name[0] ? w->g.cu->cuModuleGetGlobal(
                                         &dp, &bytes, jb->mod, g[i].name)
                                   : CUDA_ERROR_NOT_FOUND;
        if (rc && gpu_err_sticky(rc)) {
            r = hx_fail(w->h, KEVO_ECUDA, "cuModuleGetGlobal: %s",
                        gpu_errname(rc));
            goto done;
        }
        if (!rc) {
            at[i] = dp;
            sz[i] = bytes;
            if (b->base && b->base != dp - g[i].offset)
                b->consistent = 0;
            b->base = dp - g[i].offset;
        }
        uint64_t end = g[i].offset + g[i].bytes;
        b->lo = g[i].offset < b->lo ? g[i].offset : b->lo;
        b->hi = end > b->hi ? end : b->hi;
        b->n++;
    }
    for (int i = 0; i < n; i++) {
        struct sec_base *b = sec_of(sb, &n_sb, g[i].section);
        if (!at[i] && b->base && b->consistent) {
            at[i] = b->base + g[i].offset;
            sz[i] = g[i].bytes;
        }
        if (!at[i]) {
            set_verdict(v, EVAL_COMPILE_ERROR, "cannot locate module global "
                        "'%s' (%llu bytes) to watch it for state carried "
                        "across launches", g[i].name[0] ? g[i].name :
                        "(unnamed data)", (unsigned long long)g[i].bytes);
            goto done;
        }
        char label[300];
        snprintf(label, sizeof label, "module global '%s'", g[i].name[0] ?
                 g[i].name : "(unnamed data)");
        if (sz[i])
            watch_add(jb->watch, at[i], sz[i], label);
    }
    for (int i = 0; i < n_sb; i++)
        if (sb[i].n > 1 && sb[i].base && sb[i].consistent &&
            sb[i].hi > sb[i].lo)
            watch_add(jb->watch, sb[i].base + sb[i].lo, sb[i].hi - sb[i].lo,
                      "module global memory (between the globals)");
    r = hx_hash_ranges(w->h, jb->watch->n, jb->watch->p, jb->watch->bytes,
                       jb->watch->h0);
done:
    free(g);
    free(sb);
    free(at);
    free(sz);
    return r;
}

/* Hashes the watched globals again; a change is cheat. */
static int watch_check(struct worker *w, struct job *jb, const char *during,
                       struct verdict *v)
{
    struct watch *wt = jb->watch;
    if (!wt || !wt->n)
        return KEVO_OK;
    int r = hx_hash_ranges(w->h, wt->n, wt->p, wt->bytes, wt->now);
    for (int i = 0; !r && i < wt->n; i++)
        if (wt->now[i] != wt->h0[i]) {
            set_verdict(v, EVAL_CHEAT, "%s changed during %s: state carried "
                        "across launches; use the workspace", wt->label[i],
                        during);
            break;
        }
    return r;
}

/* Loads the module and checks each kernel can launch as planned. A
 * refusal is a verdict (compile_error); a CUDA failure is returned. */
static int job_load(struct worker *w, struct job *jb, const void *cubin,
                    size_t len, struct verdict *v)
{
    const struct gpu_api *cu = w->g.cu;
    jb->cu = cu;
    v->outcome = EVAL_OK;
    if (jit_cubin_calls(cubin, len, "vprintf")) {
        set_verdict(v, EVAL_COMPILE_ERROR, "printf is not allowed in "
                    "candidates (its output bypasses the checks and its "
                    "cost distorts timing)");
        return KEVO_OK;
    }
    CUresult rc = cu->cuModuleLoadData(&jb->mod, cubin);
    if (rc) {
        jb->mod = NULL;
        if (gpu_err_sticky(rc))
            return hx_fail(w->h, KEVO_ECUDA, "cuModuleLoadData: %s",
                           gpu_errname(rc));
        set_verdict(v, EVAL_COMPILE_ERROR, "cannot load module: %s",
                    gpu_errname(rc));
        return KEVO_OK;
    }
    memset(&jb->res, 0, sizeof jb->res);
    for (int i = 0; i < jb->n; i++) {
        struct launch_dims *d = &jb->l[i];
        if (!strncmp(d->kernel, "kevo_", 5)) {
            set_verdict(v, EVAL_COMPILE_ERROR, "kernel name '%s' is "
                        "reserved (kevo_ is the harness's prefix)", d->kernel);
            return KEVO_OK;
        }
        rc = cu->cuModuleGetFunction(&jb->f[i], jb->mod, d->kernel);
        if (rc) {
            set_verdict(v, EVAL_COMPILE_ERROR, "cannot launch: no kernel "
                        "'%s' in the module (%s)", d->kernel, gpu_errname(rc));
            return KEVO_OK;
        }
        CUfunction f = jb->f[i];
        int regs = fattr(w, f, CU_FUNC_ATTRIBUTE_NUM_REGS),
            maxt = fattr(w, f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
        int threads = (int)(d->block[0] * d->block[1] * d->block[2]);
        if (regs > jb->res.regs)
            jb->res.regs = regs;
        int ss = fattr(w, f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
            lb = fattr(w, f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
        if (ss > jb->res.smem_static)
            jb->res.smem_static = ss;
        if (lb > jb->res.local_bytes)
            jb->res.local_bytes = lb;
        if (threads > maxt) {
            set_verdict(v, EVAL_COMPILE_ERROR, "cannot launch: block of %d "
                        "threads exceeds kernel '%s''s limit of %d (%d "
                        "registers/thread)", threads, d->kernel, maxt, regs);
            return KEVO_OK;
        }
        /* static + dynamic past the 48 KB default needs the opt-in */
        if (d->smem_bytes + (uint32_t)(ss > 0 ? ss : 0) > 48 * 1024 &&
            (rc = cu->cuFuncSetAttribute(
                 f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                 (int)d->smem_bytes))) {
            set_verdict(v, EVAL_COMPILE_ERROR, "cannot launch: %u bytes of "
                        "dynamic shared memory for '%s': %s", d->smem_bytes,
                        d->kernel, gpu_errname(rc));
            return KEVO_OK;
        }
        /* clusters of more than 8 blocks (Hopper allows 16) need the
         * non-portable opt-in */
        uint32_t cl = d->cluster[0] * (d->cluster[1] ? d->cluster[1] : 1) *
                      (d->cluster[2] ? d->cluster[2] : 1);
        if (cl > 8 &&
            (rc = cu->cuFuncSetAttribute(
                 f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1))) {
            set_verdict(v, EVAL_COMPILE_ERROR, "cannot launch: cluster of "
                        "%u blocks for '%s': %s", cl, d->kernel,
                        gpu_errname(rc));
            return KEVO_OK;
        }
        if (i == 0 && cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(
                          &jb->res.occupancy, f, threads, d->smem_bytes))
            jb->res.occupancy = 0;
    }
    if (hx_workspace_reserve(w->h, jb->ws_bytes)) {
        set_verdict(v, EVAL_COMPILE_ERROR, "cannot launch: workspace of "
                    "%llu bytes: %s", (unsigned long long)jb->ws_bytes,
                    hx_errmsg(w->h));
        hx_clear_error(w->h);
        return KEVO_OK;
    }
    /* ABI: buffers, sizes as int, workspace */
    int a = 0;
    for (int i = 0; i < hx_n_bufs(w->h); i++) {
        jb->bufs[i] = hx_buf(w->h, i);
        jb->args[a++] = &jb->bufs[i];
    }
    for (int i = 0; i < w->shape.n_dims; i++) {
        jb->sizes[i] = (int)w->shape.d[i];
        jb->args[a++] = &jb->sizes[i];
    }
    jb->ws = jb->ws_bytes ? hx_workspace(w->h) : 0;
    jb->args[a++] = &jb->ws;
    /* tensor maps by value, after ws, in declaration order; then the
     * int args */
    encode_tmaps(w, jb, v);
    for (int i = 0; i < jb->n_tmaps; i++)
        jb->args[a++] = &jb->tmap[i];
    for (int i = 0; i < jb->n_iargs; i++)
        jb->args[a++] = &jb->iargs[i];
    return v->outcome == EVAL_OK ? watch_build(w, jb, cubin, len, v)
                                 : KEVO_OK;
}

/* hx_call_fn: enqueues every launch of the candidate. */
static int job_launch(struct hx *h, void *ud)
{
    struct job *jb = ud;
    const struct gpu_api *cu = jb->cu;
    for (int i = 0; i < jb->n; i++) {
        const struct launch_dims *d = &jb->l[i];
        CUresult rc;
        if (d->cluster[0] || d->pdl) {
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
                at[na].id =
                    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
                at[na].value.programmaticStreamSerializationAllowed = 1;
                na++;
            }
            CUlaunchConfig c = {
                .gridDimX = d->grid[0], .gridDimY = d->grid[1],
                .gridDimZ = d->grid[2], .blockDimX = d->block[0],
                .blockDimY = d->block[1], .blockDimZ = d->block[2],
                .sharedMemBytes = d->smem_bytes,
                .hStream = (CUstream)hx_stream(h), .attrs = at,
                .numAttrs = na};
            rc = cu->cuLaunchKernelEx(&c, jb->f[i], jb->args, NULL);
        } else {
            rc = cu->cuLaunchKernel(jb->f[i], d->grid[0], d->grid[1],
                                    d->grid[2], d->block[0], d->block[1],
                                    d->block[2], d->smem_bytes,
                                    (CUstream)hx_stream(h), jb->args, NULL);
        }
        if (rc) {
            jb->launch_rc = (int)rc;
            jb->launch_idx = i;
            return hx_fail(h, KEVO_ECUDA, "launch %d ('%s'): %s", i,
                           d->kernel, gpu_errname(rc));
        }
    }
    return KEVO_OK;
}

/* ---- checks */

static int poison_all(struct worker *w, struct job *jb)
{
    int r = hx_poison_outputs(w->h);
    if (!r && jb->ws_bytes)
        r = hx_fill_pattern(w->h, jb->ws, jb->ws_bytes, 0x7fc0deadu);
    return r;
}

/* A rejected launch becomes a verdict; other failures stay errors. */
static int launch_verdict(struct worker *w, struct job *jb, int r,
                          struct verdict *v)
{
    if (r && jb->launch_rc && !gpu_err_sticky((CUresult)jb->launch_rc)) {
        const struct launch_dims *d = &jb->l[jb->launch_idx];
        set_verdict(v, EVAL_COMPILE_ERROR, "cannot launch: %s for '%s' "
                    "(grid %ux%ux%u, block %ux%ux%u, %u B dynamic smem)",
                    gpu_errname((CUresult)jb->launch_rc), d->kernel,
                    d->grid[0], d->grid[1], d->grid[2], d->block[0],
                    d->block[1], d->block[2], d->smem_bytes);
        return KEVO_OK;
    }
    return r;
}

static void describe_wrong(struct worker *w, const struct hx_cmp *c,
                           const char *prefix, struct verdict *v)
{
    /* (row, col) with rows = the problem's first size */
    int64_t cols = w->shape.d[0] > 0
                       ? hx_buf_elems(w->h, c->buf) / w->shape.d[0]
                       : 1;
    if (cols < 1)
        cols = 1;
    set_verdict(v, EVAL_WRONG,
                "%s%lld of %lld elements wrong; first bad (%lld, %lld) of "
                "%s: got %.9g, want %.9g (tolerance %.3g); max rel err %.3g, "
                "worst error %.3g of tolerance%s", prefix, (long long)c->bad,
                (long long)c->n, (long long)(c->first_bad / cols),
                (long long)(c->first_bad % cols), hx_desc(w->h, c->buf)->name,
                c->got, c->want, c->tol, c->max_rel, c->max_tol,
                c->nonfinite ? " (NaN/Inf in output)" : "");
}

/* Reference compare of the current outputs; pristine view is set. */
static int ref_compare(struct worker *w, const char *prefix,
                       struct hx_cmp *cmp, struct verdict *v)
{
    hx_dptr ref, scale = 0;
    size_t bytes = (size_t)hx_out_elems(w->h) * 8;
    long long t0 = fs_now_ns();
    int r = hx_scratch(w->h, bytes, &ref);
    if (!r && w->p->error_tol)
        r = hx_scratch(w->h, bytes, &scale);
    if (!r)
        r = w->p->reference(w->p, w->h, &w->shape, w->dt,
                            (double *)(uintptr_t)ref,
                            (double *)(uintptr_t)scale);
    if (!r)
        r = hx_sync(w->h);
    if (!r)
        r = hx_compare(w->h, ref, scale, cmp);
    if (!r && cmp->bad)
        describe_wrong(w, cmp, prefix, v);
    w->ref_ms += (fs_now_ns() - t0) / 1e6;
    return r;
}

enum check_mode {
    CHECK_REF,  /* full reference compare */
    CHECK_HASH  /* bitwise equal to expect_hash, else decide */
};

#define INPUT_SLOT (HX_HASH_SLOTS - 2) /* hash slot for input fingerprints */

/* 1 if the problem has an in-place buffer (BUF_INOUT). */
static int has_inout(const struct worker *w)
{
    for (int i = 0; i < hx_n_bufs(w->h); i++)
        if (hx_desc(w->h, i)->role == BUF_INOUT)
            return 1;
    return 0;
}

/*
 * One check: fresh inputs from seed, poison, launch, sync, guards, input
 * integrity, hash, then the reference compare (or the hash compare).
 * Input integrity: inputs drawn again from seed into pristine copies and
 * compared word by word; with in_fp, a CHECK_REF check also leaves the
 * fingerprint of its (so verified) inputs in *in_fp, and a CHECK_HASH
 * check on the same seed compares its inputs' fingerprint with that one
 * instead of drawing them again (no in-place buffer: those need the
 * pristine copy for a reference). The fingerprint is taken after the
 * candidate ended and kept on the host, out of its reach.
 */
static int run_check(struct worker *w, struct job *jb, const char *phase,
                     uint64_t seed, enum check_mode mode, uint64_t expect,
                     uint64_t *in_fp, uint64_t *hash_out, struct hx_cmp *cmp,
                     struct verdict *v)
{
    const char *pre = strcmp(phase, "check C") ? "" : "after timing: ";
    struct hx *h = w->h;
    int bad = 0;
    progress(w, phase);
    hx_view_live(h);
    int r = w->p->gen_inputs(w->p, h, &w->shape, w->dt, seed);
    if (!r)
        r = poison_all(w, jb);
    if (r)
        return r;
    r = launch_verdict(w, jb, job_launch(h, jb), v);
    if (r || v->outcome != EVAL_OK)
        return r;
    if ((r = hx_sync(h)))
        return r;
    char why[400];
    if ((r = hx_guards_check(h, &bad, why, sizeof why)))
        return r;
    if (bad) {
        set_verdict(v, EVAL_CHEAT, "%s%s", pre, why);
        return KEVO_OK;
    }
    if ((r = watch_check(w, jb, phase, v)) || v->outcome != EVAL_OK)
        return r;
    int by_fp = mode == CHECK_HASH && in_fp && !has_inout(w);
    if (!by_fp) {
        r = hx_view_pristine(h);
        if (!r)
            r = w->p->gen_inputs(w->p, h, &w->shape, w->dt, seed);
        if (!r)
            r = hx_sync(h);
        if (!r)
            r = hx_inputs_check(h, &bad, why, sizeof why);
        if (r)
            return r;
        if (bad) {
            set_verdict(v, EVAL_CHEAT, "%s%s", pre, why);
            hx_scratch_release(h);
            return KEVO_OK;
        }
    }
    uint64_t fp = 0;
    r = hx_hash_reset(h);
    if (!r)
        r = hx_hash_outputs(h, CHECK_SLOT);
    if (!r && in_fp)
        r = hx_hash_inputs(h, INPUT_SLOT);
    if (!r)
        r = hx_sync(h);
    if (!r)
        r = hx_hash_read(h, CHECK_SLOT, 1, hash_out);
    if (!r && in_fp)
        r = hx_hash_read(h, INPUT_SLOT, 1, &fp);
    if (r)
        return r;
    if (by_fp && fp != *in_fp) {
        set_verdict(v, EVAL_CHEAT, "%sinputs modified: their fingerprint "
                    "(%016llx) differs from check A's on the same inputs "
                    "(%016llx)", pre, (unsigned long long)fp,
                    (unsigned long long)*in_fp);
        hx_view_live(h);
        return KEVO_OK;
    }
    if (in_fp && !by_fp)
        *in_fp = fp;
    memset(cmp, 0, sizeof *cmp);
    if (mode == CHECK_REF || *hash_out != expect) {
        r = ref_compare(w, pre, cmp, v);
        if (!r && v->outcome == EVAL_OK && mode == CHECK_HASH)
            set_verdict(v, EVAL_CHEAT, "non-deterministic: output differs "
                        "between two runs on the same inputs (hash %016llx "
                        "vs %016llx); mark the template nondeterministic if "
                        "that is intended", (unsigned long long)*hash_out,
                        (unsigned long long)expect);
    }
    hx_view_live(h);
    hx_scratch_release(h); /* no reference while a candidate runs */
    return r;
}

/* ---- timing */

struct timing_ud {
    struct worker *w;
    struct job *jb;
    uint64_t seed; /* the inputs' (an in-place buffer is drawn again) */
};

static int timing_call(struct hx *h, void *ud)
{
    return job_launch(h, ((struct timing_ud *)ud)->jb);
}

/* pre: poison outputs and workspace, draw in-place buffers again (each
 * repetition starts from the same inputs); post: hash outputs into slot
 * rep. */
static int timing_hook(struct hx *h, void *ud, int rep, int pre)
{
    struct timing_ud *t = ud;
    int r;
    if (pre && has_inout(t->w) &&
        (r = t->w->p->gen_inputs(t->w->p, h, &t->w->shape, t->w->dt,
                                 t->seed)))
        return r;
    if (pre)
        return poison_all(t->w, t->jb);
    return rep < CHECK_SLOT ? hx_hash_outputs(h, rep) : KEVO_OK;
}

/* Times the candidate; checks every repetition's hash against check B's
 * (deterministic templates). */
static int run_timing(struct worker *w, struct job *jb, uint64_t s2,
                      uint64_t hash_b, double best_ns,
                      struct hx_time_stats *st, struct verdict *v)
{
    struct hx_time_opts o;
    struct timing_ud ud = {w, jb, s2};
    hx_time_opts_default(&o);
    /* The check just before ran the candidate on these inputs: that is
     * the warm-up (module loaded, clocks up; every rep is flushed). */
    o.warmup = 0;
    o.quick_spread = TIMING_QUICK_SPREAD;
    o.best_ns = best_ns;
    o.cascade = TIMING_CASCADE;
    o.race_margin = TIMING_RACE_MARGIN;
    progress(w, "timing");
    int r = hx_hash_reset(w->h);
    if (!r)
        r = hx_time_loop(w->h, &o, timing_call, timing_hook, &ud, st);
    r = launch_verdict(w, jb, r, v);
    if (!r && v->outcome == EVAL_OK)
        r = watch_check(w, jb, "timing", v);
    if (r || v->outcome != EVAL_OK || jb->nondet)
        return r;
    uint64_t hs[HX_HASH_SLOTS];
    int n = st->reps < CHECK_SLOT ? st->reps : CHECK_SLOT;
    if ((r = hx_hash_read(w->h, 0, n, hs)))
        return r;
    int bad = -1;
    for (int i = 0; i < n && bad < 0; i++)
        if (hs[i] != hash_b)
            bad = i;
    if (bad < 0)
        return KEVO_OK;
    /* Is the last repetition's output still right (then the kernel is
     * merely nondeterministic) or wrong (it behaves differently when
     * timed)? Same guarantees as a check: pristine inputs, then ref. */
    int ibad = 0;
    char why[400];
    struct hx_cmp cmp;
    r = hx_view_pristine(w->h);
    if (!r)
        r = w->p->gen_inputs(w->p, w->h, &w->shape, w->dt, s2);
    if (!r)
        r = hx_sync(w->h);
    if (!r)
        r = hx_inputs_check(w->h, &ibad, why, sizeof why);
    if (!r && ibad)
        set_verdict(v, EVAL_CHEAT, "after timing: %s", why);
    else if (!r)
        r = ref_compare(w, "after timing: ", &cmp, v);
    if (!r && v->outcome == EVAL_OK)
        set_verdict(v, EVAL_CHEAT, "non-deterministic: output of timed "
                    "repetition %d differs from check B's on the same inputs "
                    "(the last one is within tolerance); mark the template "
                    "nondeterministic if that is intended", bad + 1);
    hx_view_live(w->h);
    hx_scratch_release(w->h);
    return r;
}

/* ---- results */

/* The speed-of-light floor on this GPU (problem_floor: inputs from DRAM,
 * outputs only beyond the L2 size; compute at solpeak.h's rate, named in
 * *which when not NULL). */
static void floor_of(const struct worker *w, struct sol_floor *f,
                     const char **which)
{
    const struct gpu_info *i = &w->g.info;
    double pf = solpeak_flops(w->dt, i->peak_fp32, i->peak_tensor16, which);
    problem_floor(w->p, &w->shape, w->dt, pf, i->peak_bw,
                  (double)i->l2_bytes, f);
}

struct outcome {
    struct verdict v;
    struct hx_time_stats st;
    struct hx_cmp cmp;       /* of check A */
    uint64_t hash_a;
    uint64_t in_fp_a;        /* check A's inputs' fingerprint (check C) */
    double check_ms, time_ms;
    double load_ms, a_ms, b_ms, c_ms, ref_ms; /* breakdown (evidence) */
    double post_ms;          /* after the checks: resources, unload */
    long long start_ns;      /* the job message read */
    int rechecked;
};

static int send_result(struct worker *w, struct job *jb, struct outcome *oc)
{
    int ok = oc->v.outcome == EVAL_OK;
    double work = w->p->work(w->p, &w->shape, w->dt);
    struct eval_result r;
    eval_result_init(&r);
    r.outcome = oc->v.outcome;
    snprintf(r.detail, sizeof r.detail, "%s", oc->v.detail);
    r.fitness = ok && oc->st.median_ns > 0 ? work / (oc->st.median_ns * 1e-9)
                                            : 0;
    struct sol_floor sf;
    floor_of(w, &sf, NULL);
    double fl = sf.ns;
    if (ok) {
        r.median_ns = oc->st.median_ns;
        r.min_ns = oc->st.min_ns;
        r.spread = oc->st.spread;
        r.reps = oc->st.reps;
        r.cascaded = oc->st.cascaded;
        r.ratio = w->bl.n && w->bl.fitness[0] > 0 ? r.fitness / w->bl.fitness[0]
                                                  : 0;
        r.roofline = oc->st.median_ns > 0 ? fl / oc->st.median_ns : 0;
    }
    r.res = jb->res;
    r.check_ms = oc->check_ms;
    r.time_ms = oc->time_ms;
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "timer", tmr_kind(w->t));
    cJSON_AddNumberToObject(e, "seq", (double)jb->seq);
    cJSON_AddNumberToObject(e, "kernels_per_rep", oc->st.kernels_per_rep);
    cJSON_AddNumberToObject(e, "floor_ns", fl);
    cJSON_AddNumberToObject(e, "floor_flops_ns", sf.flops_ns);
    cJSON_AddNumberToObject(e, "floor_bytes_ns", sf.bytes_ns);
    cJSON_AddNumberToObject(e, "floor_in_bytes", sf.in_bytes);
    cJSON_AddNumberToObject(e, "floor_out_bytes", sf.out_dram_bytes);
    cJSON_AddNumberToObject(e, "out_bytes", sf.out_bytes);
    cJSON_AddNumberToObject(e, "l2_bytes", sf.l2_bytes);
    cJSON_AddNumberToObject(e, "dram_all_bytes_ns", sf.all_bytes_ns);
    cJSON_AddBoolToObject(e, "outputs_in_l2", ok && oc->st.median_ns > 0 &&
                          oc->st.median_ns < sf.all_bytes_ns);
    cJSON_AddNumberToObject(e, "max_abs_err", oc->cmp.max_abs);
    cJSON_AddNumberToObject(e, "max_rel_err", oc->cmp.max_rel);
    cJSON_AddNumberToObject(e, "max_err_over_tol", oc->cmp.max_tol);
    char hx16[17];
    hash_hex(oc->hash_a, hx16);
    cJSON_AddStringToObject(e, "hash_a", hx16);
    cJSON_AddBoolToObject(e, "nondeterministic", jb->nondet);
    cJSON_AddBoolToObject(e, "rechecked", oc->rechecked);
    /* where the worker's time went (host ms; the GPU work is inside) */
    cJSON *ph = cJSON_AddObjectToObject(e, "phase_ms");
    cJSON_AddNumberToObject(ph, "load", oc->load_ms);
    cJSON_AddNumberToObject(ph, "check_a", oc->a_ms);
    cJSON_AddNumberToObject(ph, "check_b", oc->b_ms);
    cJSON_AddNumberToObject(ph, "check_c", oc->c_ms);
    cJSON_AddNumberToObject(ph, "reference", w->ref_ms);
    cJSON_AddNumberToObject(ph, "collect", oc->st.collect_ms);
    cJSON_AddNumberToObject(ph, "post", oc->post_ms);
    cJSON_AddNumberToObject(e, "collects", oc->st.collects);
    cJSON_AddNumberToObject(e, "first_rep_ns", oc->st.first_ns);
    cJSON_AddBoolToObject(e, "quick_stop", oc->st.quick);
    cJSON_AddBoolToObject(e, "race_stop", oc->st.raced);
    if (w->bl.n) {
        cJSON_AddStringToObject(e, "baseline", w->bl.name[0]);
        cJSON_AddNumberToObject(e, "baseline_ns", w->bl.median_ns[0]);
    }
    /* resources of every launch, not only the first (prompts, report) */
    cJSON *lr = jb->mod || jb->lres[0].kernel[0]
                    ? cJSON_AddArrayToObject(e, "launch_resources") : NULL;
    for (int i = 0; lr && i < jb->n && jb->lres[i].kernel[0]; i++) {
        const struct prof_launch *l = &jb->lres[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kernel", l->kernel);
        cJSON_AddNumberToObject(o, "regs", l->regs);
        cJSON_AddNumberToObject(o, "smem_bytes", l->smem_bytes);
        cJSON_AddNumberToObject(o, "threads", l->threads);
        cJSON_AddNumberToObject(o, "blocks_per_sm", l->blocks_per_sm);
        cJSON_AddStringToObject(o, "occupancy_limiter", l->limiter);
        cJSON_AddItemToArray(lr, o);
    }
    /* the worker's whole time on the job, from its message read to the
     * answer built (the phases above are inside) */
    long long end = fs_now_ns();
    cJSON_AddNumberToObject(ph, "job", (end - oc->start_ns) / 1e6);
    /* monotonic clock, same host: the coordinator turns these into the
     * transport times and removes them (gpueval.c stamp) */
    cJSON_AddNumberToObject(e, "t0_ns", (double)oc->start_ns);
    cJSON_AddNumberToObject(e, "t1_ns", (double)end);
    cJSON *j = wire_result_json(&r, e); /* the journal's shape */
    return j ? send_json(w, WM_RESULT, j) : KEVO_ENOMEM;
}

/* Checks A and B; *out->v set when the candidate fails one. */
static int checks_ab(struct worker *w, struct job *jb, uint64_t s1,
                     uint64_t s2, uint64_t *hash_b, struct outcome *oc)
{
    struct hx_cmp cb = {0};
    long long t0 = fs_now_ns();
    int r = run_check(w, jb, "check A", s1, CHECK_REF, 0, &oc->in_fp_a,
                      &oc->hash_a, &oc->cmp, &oc->v);
    long long t1 = fs_now_ns();
    oc->a_ms = (t1 - t0) / 1e6;
    if (!r && oc->v.outcome == EVAL_OK)
        r = run_check(w, jb, "check B", s2, CHECK_REF, 0, NULL, hash_b, &cb,
                      &oc->v);
    oc->b_ms = (fs_now_ns() - t1) / 1e6;
    if (!r && oc->v.outcome == EVAL_OK) {
        if (cb.max_rel > oc->cmp.max_rel)
            oc->cmp.max_rel = cb.max_rel;
        if (cb.max_tol > oc->cmp.max_tol)
            oc->cmp.max_tol = cb.max_tol;
    }
    return r;
}

static void ok_detail(struct worker *w, struct job *jb, struct outcome *oc,
                      const struct sol_floor *sf)
{
    /* Faster than moving every byte through DRAM at peak: legal, because
     * outputs written into L2 reach DRAM after the timed window; this is
     * also where a ratio above the copy baseline comes from. */
    char l2[256] = "", cp[64] = "", stop[64] = "";
    if (oc->st.cascaded)
        snprintf(stop, sizeof stop, "; cascaded (slower than %.1fx best)",
                 TIMING_CASCADE);
    else if (oc->st.quick)
        snprintf(stop, sizeof stop, "; 3 reps within %.1f%%",
                 TIMING_QUICK_SPREAD * 100);
    else if (oc->st.raced)
        snprintf(stop, sizeof stop, "; raced (every rep over %.0f%% slower "
                 "than best)", TIMING_RACE_MARGIN * 100);
    double med = oc->st.median_ns;
    int over_copy = w->bl.n && !strcmp(w->bl.name[0], "copy") &&
                    med < w->bl.median_ns[0];
    if (over_copy)
        snprintf(cp, sizeof cp, "faster than the copy baseline (%.0f ns): ",
                 w->bl.median_ns[0]);
    if (med > 0 && (med < sf->all_bytes_ns || over_copy))
        snprintf(l2, sizeof l2, "; %s%.0f ns vs %.0f ns for all %.1f MB at "
                 "DRAM peak: up to %.1f MB of output can stay dirty in the "
                 "%.0f MB L2 past the timed window", cp, med,
                 sf->all_bytes_ns, (sf->in_bytes + sf->out_bytes) / 1e6,
                 fmin(sf->out_bytes, sf->l2_bytes) / 1e6, sf->l2_bytes / 1e6);
    set_verdict(&oc->v, EVAL_OK, "checks A, B, C passed (worst error %.2g "
                "of tolerance, %s); %d reps (%s), spread %.1f%%, %d "
                "kernel%s/rep%s%s%s", oc->cmp.max_tol, jb->nondet ?
                "nondeterministic" : "bitwise reproducible", oc->st.reps,
                tmr_kind(w->t), oc->st.spread * 100, oc->st.kernels_per_rep,
                oc->st.kernels_per_rep == 1 ? "" : "s", stop,
                oc->rechecked ? "; re-checked: beat the roofline once" : "",
                l2);
}

/* The whole evaluation of one loaded candidate. */
static int evaluate(struct worker *w, struct job *jb, struct outcome *oc)
{
    uint64_t s1 = hx_seed(w->seed, 3 * (uint64_t)jb->seq),
             s2 = hx_seed(w->seed, 3 * (uint64_t)jb->seq + 1),
             s3 = hx_seed(w->seed, 3 * (uint64_t)jb->seq + 2), hash_b = 0,
             hash_c = 0;
    long long t0 = fs_now_ns();
    int r = checks_ab(w, jb, s1, s2, &hash_b, oc);
    long long t1 = fs_now_ns();
    if (!r && oc->v.outcome == EVAL_OK)
        r = run_timing(w, jb, s2, hash_b, jb->best_ns, &oc->st, &oc->v);
    long long t2 = fs_now_ns();
    struct hx_cmp cc;
    if (!r && oc->v.outcome == EVAL_OK)
        r = run_check(w, jb, "check C", s1, jb->nondet ? CHECK_REF :
                      CHECK_HASH, oc->hash_a, &oc->in_fp_a, &hash_c, &cc,
                      &oc->v);
    oc->c_ms = (fs_now_ns() - t2) / 1e6;
    struct sol_floor sf;
    const char *peak = "";
    floor_of(w, &sf, &peak);
    double fl = sf.ns;
    if (!r && oc->v.outcome == EVAL_OK && oc->st.median_ns > 0 &&
        fl > oc->st.median_ns) {
        /* faster than physically possible: new inputs, time again */
        double first = oc->st.median_ns;
        oc->rechecked = 1;
        r = run_check(w, jb, "recheck", s3, CHECK_REF, 0, NULL, &hash_b, &cc,
                      &oc->v);
        if (!r && oc->v.outcome == EVAL_OK)
            r = run_timing(w, jb, s3, hash_b, 0, &oc->st, &oc->v);
        if (!r && oc->v.outcome == EVAL_OK && fl > oc->st.median_ns)
            set_verdict(&oc->v, EVAL_CHEAT, "faster than the speed-of-light "
                        "floor: %.0f ns < floor %.0f ns (twice: %.0f ns "
                        "first; floor: %.1f MB of inputs from DRAM + %.1f MB "
                        "of outputs beyond the %.0f MB L2 at peak bandwidth, "
                        "%.0f ns of compute at the %s)", oc->st.median_ns,
                        fl, first, sf.in_bytes / 1e6, sf.out_dram_bytes / 1e6,
                        sf.l2_bytes / 1e6, sf.flops_ns, peak);
    }
    long long t3 = fs_now_ns();
    oc->check_ms = ((t1 - t0) + (t3 - t2)) / 1e6;
    oc->time_ms = (t2 - t1) / 1e6;
    if (!r && oc->v.outcome == EVAL_OK)
        ok_detail(w, jb, oc, &sf);
    return r;
}

/* The job of a job or profile message (a wire_job body and a cubin);
 * KEVO_EPARSE if it has neither, or the worker is not ready. */
static int read_job(const struct worker *w, const struct wmsg *m,
                    struct job *jb)
{
    memset(jb, 0, sizeof *jb);
    cJSON *j = cJSON_Parse(m->json);
    struct wire_job wj;
    int r = j && m->blob_len ? wire_job_parse(j, &wj) : KEVO_EPARSE;
    cJSON_Delete(j);
    if (!r)
        job_of(&wj, jb);
    return r || !w->ready ? KEVO_EPARSE : KEVO_OK;
}

static int handle_job(struct worker *w, const struct wmsg *m)
{
    struct job jb;
    struct outcome oc;
    memset(&oc, 0, sizeof oc);
    oc.start_ns = fs_now_ns();
    int r;
    if (read_job(w, m, &jb))
        return fatal(w, 0, "bad job message");
    hx_clear_error(w->h);
    progress(w, "load");
    w->ref_ms = 0;
    long long t0 = fs_now_ns();
    r = job_load(w, &jb, m->blob, m->blob_len, &oc.v);
    oc.load_ms = (fs_now_ns() - t0) / 1e6;
    if (!r && oc.v.outcome == EVAL_OK)
        r = evaluate(w, &jb, &oc);
    long long t1 = fs_now_ns();
    for (int i = 0; !r && jb.mod && i < jb.n; i++)
        launch_res(w, &jb, i, &jb.lres[i]);
    job_unload(w, &jb);
    hx_scratch_release(w->h);
    oc.post_ms = (fs_now_ns() - t1) / 1e6;
    if (r)
        return harness_fatal(w);
    return send_result(w, &jb, &oc) ? WORKER_EXIT_FATAL : 0;
}

/* ---- confirm: ABAB re-measurement of two loaded candidates */

static int load_side(struct worker *w, const struct wire_job *side,
                     const char *blob, size_t len, struct job *jb,
                     struct verdict *v)
{
    job_of(side, jb);
    return job_load(w, jb, blob, len, v);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int handle_confirm(struct worker *w, const struct wmsg *m)
{
    struct job a, b;
    struct verdict va = {EVAL_OK, ""}, vb = {EVAL_OK, ""};
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    struct wire_confirm c;
    cJSON *j = cJSON_Parse(m->json);
    int r = j ? wire_confirm_parse(j, &c) : KEVO_EPARSE;
    cJSON_Delete(j);
    /* vs_baseline: a against the problem's first baseline, no b */
    int vs_base = !r && c.vs_baseline;
    size_t lena = !r ? (size_t)c.a_cubin_len : 0;
    int pairs = !r ? c.pairs : 15;
    if (pairs < 3 || pairs > TMR_MAX_REPS / 2)
        pairs = 15;
    if (!w->ready || (vs_base ? lena != m->blob_len : lena >= m->blob_len))
        r = KEVO_EPARSE;
    progress(w, vs_base ? "vs baseline" : "confirm");
    hx_clear_error(w->h);
    if (!r)
        r = load_side(w, &c.a, m->blob, lena, &a, &va);
    if (!r && !vs_base)
        r = load_side(w, &c.b, m->blob + lena, m->blob_len - lena, &b, &vb);
    if (r == KEVO_EPARSE) {
        job_unload(w, &a);
        job_unload(w, &b);
        return fatal(w, 0, "bad confirm message");
    }
    double ta[TMR_MAX_REPS], tb[TMR_MAX_REPS], ratio[TMR_MAX_REPS];
    struct wire_confirmed o = {.pairs = pairs};
    if (!r && va.outcome == EVAL_OK && vb.outcome == EVAL_OK) {
        r = w->p->gen_inputs(w->p, w->h, &w->shape, w->dt,
                             hx_seed(w->seed, 99991));
        if (!r && vs_base) {
            /* the problem's baseline() times its first baseline with
             * hx_time: paired, a runs launch by launch against it */
            struct baseline_result bl;
            memset(&bl, 0, sizeof bl);
            hx_pair_next(w->h, timing_call, &(struct timing_ud){w, &a, 0},
                         pairs, ta, tb);
            r = w->p->baseline ? w->p->baseline(w->p, w->h, &w->shape,
                                                w->dt, &bl)
                               : KEVO_OK;
            int used = hx_pair_used(w->h);
            hx_pair_next(w->h, NULL, NULL, 0, NULL, NULL); /* if unused */
            if (!r && (!used || bl.n < 1))
                set_verdict(&vb, EVAL_COMPILE_ERROR, "the problem has no "
                            "timed baseline to compare with");
        } else if (!r) {
            r = hx_time_pairs(w->h, pairs, timing_call,
                              &(struct timing_ud){w, &a, 0}, timing_call,
                              &(struct timing_ud){w, &b, 0}, ta, tb);
        }
        if (!vs_base)
            r = launch_verdict(w, &b, r, &vb);
        r = launch_verdict(w, &a, r, &va);
        if (!r && va.outcome == EVAL_OK && vb.outcome == EVAL_OK)
            r = watch_check(w, &a, "confirm", &va);
        if (!r && va.outcome == EVAL_OK && !vs_base)
            r = watch_check(w, &b, "confirm", &vb);
    }
    job_unload(w, &a);
    job_unload(w, &b);
    if (r)
        return harness_fatal(w);
    if (va.outcome != EVAL_OK || vb.outcome != EVAL_OK) {
        snprintf(o.error, sizeof o.error, "%s",
                 va.outcome != EVAL_OK ? va.detail : vb.detail);
        return send_json(w, WM_CONFIRMED, wire_confirmed_json(&o))
                   ? WORKER_EXIT_FATAL : 0;
    }
    /* ratio per pair: b (incumbent, or the baseline) time / a time */
    for (int i = 0; i < pairs; i++)
        ratio[i] = ta[i] > 0 ? tb[i] / ta[i] : 0;
    qsort(ta, (size_t)pairs, sizeof *ta, cmp_dbl);
    qsort(tb, (size_t)pairs, sizeof *tb, cmp_dbl);
    qsort(ratio, (size_t)pairs, sizeof *ratio, cmp_dbl);
    double med = hx_quantile(ratio, pairs, 0.5);
    double dev[TMR_MAX_REPS];
    for (int i = 0; i < pairs; i++)
        dev[i] = fabs(ratio[i] - med);
    qsort(dev, (size_t)pairs, sizeof *dev, cmp_dbl);
    /* noise: ~2 standard errors of the median ratio from the MAD */
    double noise = 2.0 * 1.4826 * hx_quantile(dev, pairs, 0.5) /
                   sqrt((double)pairs);
    o.a_median_ns = hx_quantile(ta, pairs, 0.5);
    o.b_median_ns = hx_quantile(tb, pairs, 0.5);
    o.ratio = med;
    o.noise = noise;
    return send_json(w, WM_CONFIRMED, wire_confirmed_json(&o))
               ? WORKER_EXIT_FATAL : 0;
}

/* ---- profile: every launch of a candidate under the range profiler,
 * outside any timed window, on fresh inputs (prof.h) */

#define PROFILE_SEED_SALT (1ULL << 40) /* inputs no check or timing drew */

static int dev_attr(struct worker *w, CUdevice_attribute a, int dflt)
{
    int v = 0;
    return w->g.cu->cuDeviceGetAttribute(&v, a, w->g.dev) || v <= 0 ? dflt
                                                                    : v;
}

/* Resources of launch i of a loaded job, what limits its blocks per SM
 * (the smallest of the register, shared-memory, warp and block limits)
 * and its theoretical occupancy. */
static void launch_res(struct worker *w, const struct job *jb, int i,
                       struct prof_launch *l)
{
    const struct launch_dims *d = &jb->l[i];
    CUfunction f = jb->f[i];
    snprintf(l->kernel, sizeof l->kernel, "%s", d->kernel);
    l->regs = fattr(w, f, CU_FUNC_ATTRIBUTE_NUM_REGS);
    l->smem_bytes = fattr(w, f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) +
                    (int)d->smem_bytes;
    l->threads = (int)(d->block[0] * d->block[1] * d->block[2]);
    if (w->g.cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &l->blocks_per_sm, f, l->threads, d->smem_bytes))
        l->blocks_per_sm = 0;
    int max_thr = dev_attr(w, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
                           2048),
        max_regs = dev_attr(
            w, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, 65536),
        max_blk = dev_attr(w, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
                           32),
        max_smem = dev_attr(
            w, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            233472);
    int warps = (l->threads + 31) / 32;
    /* registers are allocated per warp in units of 256 */
    int regs_warp = (l->regs * 32 + 255) / 256 * 256;
    int lim[4] = {
        regs_warp ? max_regs / (regs_warp * (warps ? warps : 1)) : max_blk,
        l->smem_bytes ? max_smem / (l->smem_bytes + 1024) : max_blk,
        warps ? max_thr / (warps * 32) : max_blk, max_blk};
    static const char *const what[4] = {"registers", "shared memory",
                                        "warps", "blocks"};
    int k = 3;
    for (int x = 0; x < 4; x++)
        if (lim[x] < lim[k] || (lim[x] == lim[k] && x < k))
            k = x;
    snprintf(l->limiter, sizeof l->limiter, "%s", what[k]);
    l->theo_occ_pct = 100.0 * l->blocks_per_sm * warps * 32 / max_thr;
}

static int prof_call(void *ud)
{
    struct timing_ud *t = ud;
    return job_launch(t->w->h, t->jb);
}

/* Before each profiled pass: in-place inputs drawn again, outputs
 * poisoned, the L2 emptied (its dirty lines written back now, not during
 * the kernel), as ncu's --cache-control all does. */
static int prof_pre(void *ud)
{
    struct timing_ud *t = ud;
    int r = KEVO_OK;
    if (has_inout(t->w))
        r = t->w->p->gen_inputs(t->w->p, t->w->h, &t->w->shape, t->w->dt,
                                t->seed);
    if (!r)
        r = poison_all(t->w, t->jb);
    return r ? r : hx_flush(t->w->h);
}

static int handle_profile(struct worker *w, const struct wmsg *m)
{
    struct job jb;
    struct verdict v = {EVAL_OK, ""};
    struct kprof kp;
    prof_init(&kp);
    int r;
    if (read_job(w, m, &jb))
        return fatal(w, 0, "bad profile message");
    progress(w, "profile");
    hx_clear_error(w->h);
    if (!w->prof && prof_new(&w->g, &w->prof))
        return fatal(w, 0, "cannot start the profiler: out of memory");
    r = job_load(w, &jb, m->blob, m->blob_len, &v);
    if (!r && v.outcome == EVAL_OK) {
        const char *names[TPL_MAX_LAUNCHES];
        for (int i = 0; i < jb.n; i++)
            names[i] = jb.l[i].kernel;
        struct timing_ud ud = {w, &jb, hx_seed(w->seed, PROFILE_SEED_SALT +
                                                         (uint64_t)jb.seq)};
        r = w->p->gen_inputs(w->p, w->h, &w->shape, w->dt, ud.seed);
        if (!r) /* (kernel replay: the state of its one pre; user replay
                    runs pre before every pass) */
            r = prof_pre(&ud);
        /* no kernel records while CUPTI replays the launches */
        int paused = !r && !tmr_pause(w->t);
        if (!r)
            r = prof_run(w->prof, w->s, jb.n, names, prof_pre, prof_call,
                         &ud, &kp);
        r = launch_verdict(w, &jb, r, &v);
        if (paused && tmr_resume(w->t) && !r)
            r = hx_fail(w->h, KEVO_ECUDA, "%s", tmr_errmsg(w->t));
        if (!r)
            r = tmr_discard(w->t);
        for (int i = 0; !r && i < jb.n; i++)
            launch_res(w, &jb, i, &kp.l[i]);
    }
    if (!r && v.outcome != EVAL_OK)
        prof_set_unavailable(&kp, "the candidate did not run: %s", v.detail);
    job_unload(w, &jb);
    hx_scratch_release(w->h);
    /* Torn down after each profile (cuptiProfilerDeInitialize) and set up
     * again at the next. One that refused stays, so its note holds and
     * it is not tried again. (Why profiles have a process of their own,
     * the drift they left in the timing worker: worker.h 11.) */
    if (prof_available(w->prof)) {
        prof_free(w->prof);
        w->prof = NULL;
    }
    if (r)
        return harness_fatal(w);
    cJSON *o = wire_profile_json(&kp);
    return o && !send_json(w, WM_PROFILED, o) ? 0 : WORKER_EXIT_FATAL;
}

/* ---- main loop */

static int serve(struct worker *w)
{
    struct wmsg m;
    wmsg_init(&m);
    for (;;) {
        int r = wmsg_recv(w->fd, -1, &m);
        if (r) {
            wmsg_release(&m);
            return r == KEVO_EIO ? 0 : 2; /* coordinator gone: just end */
        }
        cJSON *j = NULL;
        int rc = 0;
        /* worker.h 11: the profiler's worker only profiles, the timing
         * worker never does */
        int prof_only = w->ready && w->profiler;
        if (w->ready && (m.type == WM_PROFILE) != prof_only &&
            m.type != WM_QUIT) {
            rc = fatal(w, 0, prof_only ? "the profiler's worker takes only "
                                         "profiles, not %s"
                                       : "the timing worker takes no %s: "
                                         "profiles go to the profiler's "
                                         "worker",
                       wire_kind_name(m.type));
            wmsg_release(&m);
            return rc;
        }
        switch (m.type) {
        case WM_INIT:
            j = cJSON_Parse(m.json);
            rc = j ? handle_init(w, j) : fatal(w, 0, "bad init message");
            cJSON_Delete(j);
            break;
        case WM_JOB:
            rc = handle_job(w, &m);
            break;
        case WM_CONFIRM:
            rc = handle_confirm(w, &m);
            break;
        case WM_PROFILE:
            rc = handle_profile(w, &m);
            break;
        case WM_BASELINE:
            rc = !w->ready ? fatal(w, 0, "baseline before init")
                 : measure_baselines(w) ? harness_fatal(w)
                 : send_ready(w) ? WORKER_EXIT_FATAL : 0;
            break;
        case WM_QUIT:
            wmsg_release(&m);
            return 0;
        default:
            rc = fatal(w, 0, "unknown message type %d", m.type);
        }
        if (rc) {
            wmsg_release(&m);
            return rc;
        }
    }
}

int worker_main(int argc, char **argv)
{
    char *end;
    if (argc < 2)
        return 2;
    long fd = strtol(argv[1], &end, 10);
    if (*end || fd < 0)
        return 2;
    /* die with the coordinator; it may already be gone */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (argc > 2 && getppid() != (pid_t)strtol(argv[2], NULL, 10))
        return 2;
    signal(SIGPIPE, SIG_IGN);
    struct worker w;
    memset(&w, 0, sizeof w);
    w.fd = (int)fd;
    int rc = serve(&w);
    /* After a fatal CUDA error nothing is released: the process ends. */
    if (rc == 0 && w.ready) {
        hx_free(w.h);
        blas_free(w.blas);
        prof_free(w.prof);
        tmr_free(w.t);
        w.g.cu->cuStreamDestroy(w.s);
        gpu_close(&w.g);
    }
    close(w.fd);
    return rc;
}
