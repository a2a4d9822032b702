/*
 * torchprob_gpu.c - the GPU side of PyTorch problems, inside kevo's
 * isolated worker: CPython is embedded (libpython loaded at run time, the
 * one `python3` / $KEVO_PYTHON reports through sysconfig, or
 * $KEVO_PYTHON_LIB), torch runs in the worker's own process and device
 * context (the primary one, which torch shares), and reads and writes
 * kevo's guarded buffers in place through __cuda_array_interface__: no
 * copy through the host, no second process, no IPC. Why embedded and not a
 * sidecar: a check then costs one Python call per hook (module build +
 * get_inputs(), the fp64 forward), nothing more, and a torch crash is a
 * worker crash the coordinator already handles.
 *
 *   gen_inputs  the module's get_inputs() and init under a seed drawn from
 *               kevo's, copied into the input buffers (floats cast to the
 *               run dtype), enqueued on kevo's stream (no sync: ordered
 *               with the candidate's launches like kevo's own draws);
 *   reference   the module cast to float64 (integers, bools kept) run on
 *               exactly the buffers the candidate read, into kevo's fp64
 *               reference array;
 *   baseline    before any candidate: the fp64 run twice (bitwise equal,
 *               finite), each output's tolerance calibrated from torch's
 *               own result on it in the run dtype (TF32 off: fp32 stays
 *               fp32; integer outputs exact), then torch
 *               eager and torch.compile timed by kevo's own timer, exactly
 *               like a candidate: hx_time (kevo's L2 flush kernel before
 *               each call, CUPTI records of every kernel the call
 *               launched on kevo's stream, first start to last end, the
 *               median of adaptive repetitions). memcpy/memset torch may
 *               issue are not counted, as for candidates (tmr.c records
 *               kernels only). The CUDA-event time around the call
 *               (launch and guard overhead included) is kept as "wall".
 * Everything else (poison, guards, checksums, hashes, comparison, timing of
 * candidates) stays kevo's harness, as for every problem.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "hx.h"
#include "proc.h"
#include "torchprob.h"

#define TP_CMD_MAX 8192
#define TP_MARGIN 16.0     /* torch's own error x this = the tolerance:
                              room for another legal summation order, still
                              ~1000x under TF32's or bf16's error */
#define TP_CALIB_DRAWS 3   /* calibration input draws */

static struct {
    int ready;                        /* interpreter up, helper loaded */
    int (*run)(const char *);         /* PyRun_SimpleString */
    const struct problem *set_up;     /* the problem tp_setup loaded */
    enum dtype set_dt;
    char err[1024];                   /* the helper's message, tp_err */
} py;

/* Asks the python for its libpython, home and path (one line each). */
static int query_python(char *lib, size_t libcap, struct hx *h)
{
    char dir[] = "/tmp/kevo-torchpy-XXXXXX";
    if (!mkdtemp(dir))
        return hx_fail(h, KEVO_EIO, "cannot create a temporary folder");
    char logp[64];
    snprintf(logp, sizeof logp, "%s/out", dir);
    char *argv[] = {(char *)torchprob_python(), "-c",
                    "import sysconfig,sys,os\n"
                    "print(os.path.join(sysconfig.get_config_var('LIBDIR') "
                    "or '', sysconfig.get_config_var('LDLIBRARY') or ''))\n"
                    "print(sys.base_prefix)\n"
                    "print(os.pathsep.join(p for p in sys.path if p))\n",
                    NULL};
    int st = proc_run(NULL, argv, logp, 60000, NULL);
    char *out = NULL;
    int r = fs_read_file(logp, &out, NULL);
    unlink(logp);
    rmdir(dir);
    if (st || r) {
        free(out);
        return hx_fail(h, KEVO_ENODEV, "cannot run '%s' to find libpython "
                       "(a PyTorch problem needs Python 3 with PyTorch: "
                       "`pip install torch`)", torchprob_python());
    }
    char *l1 = strtok(out, "\n"), *l2 = strtok(NULL, "\n"),
         *l3 = strtok(NULL, "\n");
    const char *env = getenv("KEVO_PYTHON_LIB");
    snprintf(lib, libcap, "%s", env && *env ? env : l1 ? l1 : "");
    if (l2 && !getenv("PYTHONHOME"))
        setenv("PYTHONHOME", l2, 1); /* the worker's argv[0] is kevo */
    if (l3)
        setenv("PYTHONPATH", l3, 1);
    free(out);
    return KEVO_OK;
}

static int start_python(struct hx *h)
{
    char lib[4096];
    if (py.ready)
        return KEVO_OK;
    int r = query_python(lib, sizeof lib, h);
    if (r)
        return r;
    void *so = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
    if (!so)
        return hx_fail(h, KEVO_ENODEV, "cannot load libpython '%s': %s "
                       "(a python built with --enable-shared is needed; "
                       "KEVO_PYTHON_LIB names the library)", lib, dlerror());
    void (*init)(int) = (void (*)(int))dlsym(so, "Py_InitializeEx");
    py.run = (int (*)(const char *))dlsym(so, "PyRun_SimpleString");
    if (!init || !py.run)
        return hx_fail(h, KEVO_ENODEV, "'%s' lacks Py_InitializeEx", lib);
    init(0); /* 0: leave the worker's signal handlers alone */
    if (py.run(torchprob_helper_text()) ||
        py.run("import ctypes, __main__\n"))
        return hx_fail(h, KEVO_EINTERNAL, "the torch helper failed to load");
    py.ready = 1;
    return KEVO_OK;
}

/* Runs one helper call (Python text); its error, if any, into hx. */
static int call(struct hx *h, const char *what, const char *code)
{
    py.err[0] = '\0';
    int r = py.run(code);
    if (py.err[0])
        return hx_fail(h, KEVO_EINVAL, "%s", py.err);
    if (r)
        return hx_fail(h, KEVO_EINTERNAL, "the torch helper's %s raised "
                       "(see the worker's log)", what);
    return KEVO_OK;
}

/* "[(ptr, n, dtype, role), ...]" of the live buffers. */
static void buf_list(struct hx *h, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "[");
    for (int i = 0; i < hx_n_bufs(h) && n < cap; i++) {
        const struct buf_desc *d = hx_desc(h, i);
        n += (size_t)snprintf(out + n, cap - n, "(%llu,%lld,%d,%d),",
                              (unsigned long long)hx_buf(h, i),
                              (long long)hx_buf_elems(h, i), (int)d->dtype,
                              (int)d->role);
    }
    if (n < cap)
        snprintf(out + n, cap - n, "]");
}

/* Loads problem p into the interpreter (once per problem and dtype). */
static int setup(const struct problem *p, struct hx *h,
                 const struct shape *s, enum dtype dt)
{
    int r = start_python(h);
    if (r || (py.set_up == p && py.set_dt == dt))
        return r;
    char sizes[1024], code[TP_CMD_MAX];
    size_t n = (size_t)snprintf(sizes, sizeof sizes, "{");
    for (int i = 0; i < p->n_dims && n < sizeof sizes; i++)
        n += (size_t)snprintf(sizes + n, sizeof sizes - n, "'%s':%lld,",
                              p->dim_names[i], (long long)s->d[i]);
    if (n < sizeof sizes)
        snprintf(sizes + n, sizeof sizes - n, "}");
    snprintf(code, sizeof code,
             "tp_setup(ctypes.string_at(%llu,%zu).decode(),"
             "ctypes.string_at(%llu,%zu).decode(),%s,%d,%llu,%zu,%llu,"
             "%llu)\n",
             (unsigned long long)(uintptr_t)p->file_text,
             strlen(p->file_text),
             (unsigned long long)(uintptr_t)p->file_path,
             strlen(p->file_path), sizes, (int)dt,
             (unsigned long long)(uintptr_t)py.err, sizeof py.err,
             (unsigned long long)hx_buf(h, 0),
             (unsigned long long)(uintptr_t)hx_stream(h));
    if ((r = call(h, "setup", code)))
        return r;
    py.set_up = p;
    py.set_dt = dt;
    return KEVO_OK;
}

static int tp_gen_inputs(const struct problem *p, struct hx *h,
                         const struct shape *s, enum dtype dt, uint64_t seed)
{
    char bl[TP_CMD_MAX / 2], code[TP_CMD_MAX];
    /* enqueued on kevo's stream: ordered after what kevo did with the
     * buffers and before what it launches next, no sync either side */
    int r = setup(p, h, s, dt);
    if (r)
        return r;
    buf_list(h, bl, sizeof bl);
    snprintf(code, sizeof code, "tp_gen(%llu,%s)\n",
             (unsigned long long)(seed & 0x7fffffffffffffffull), bl);
    return call(h, "get_inputs", code);
}

static int tp_reference(const struct problem *p, struct hx *h,
                        const struct shape *s, enum dtype dt, double *ref_dev,
                        double *scale_dev)
{
    char bl[TP_CMD_MAX / 2], code[TP_CMD_MAX];
    (void)scale_dev;
    int r = setup(p, h, s, dt); /* on kevo's stream, as tp_gen_inputs */
    if (r)
        return r;
    buf_list(h, bl, sizeof bl);
    snprintf(code, sizeof code, "tp_reference(%s,%llu)\n", bl,
             (unsigned long long)(uintptr_t)ref_dev);
    return call(h, "fp64 reference", code);
}

/* "[None,(atol,rtol),...]": the tolerance given for each output. */
static void given_list(const struct tprob *t, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "[");
    for (int k = 0; k < t->n_out && n < cap; k++)
        n += t->tol[k].given
                 ? (size_t)snprintf(out + n, cap - n, "(%.17g,%.17g),",
                                    t->tol[k].atol, t->tol[k].rtol)
                 : (size_t)snprintf(out + n, cap - n, "None,");
    if (n < cap)
        snprintf(out + n, cap - n, "]");
}

/* Output k's calibration result cal[4] (atol, rtol, share torch's own
 * result uses of it, share of the given one) into t->tol[k]; a tolerance
 * torch itself fails is refused. */
static int adopt_calibration(struct tprob *t, struct hx *h, enum dtype dt,
                             int k, const double cal[4])
{
    struct tp_tol *u = &t->tol[k];
    const struct tp_buf *b = tp_out_buf(t, k);
    const char *ga = getenv("KEVO_TORCH_ATOL"), *gr = getenv("KEVO_TORCH_RTOL");
    if (u->given && cal[3] > 1)
        return hx_fail(h, KEVO_EINVAL, "%s: torch's own %s result fails the "
                       "tolerance KEVO_TORCH_ATOL=%s KEVO_TORCH_RTOL=%s gives "
                       "output '%s' (atol %g rtol %g: it uses %.3g of it; the "
                       "calibrated one would be atol %.3g rtol %.3g)",
                       t->p.file_path, dtype_name(dt), ga ? ga : "",
                       gr ? gr : "", b->name, u->atol, u->rtol, cal[3],
                       cal[0], cal[1]);
    if (!u->given && cal[2] > 1) /* only an exact (integer) output can */
        return hx_fail(h, KEVO_EINVAL, "%s: torch's own %s result of output "
                       "'%s' differs from the fp64 reference, and an "
                       "integer output is compared exactly; give it a "
                       "tolerance (KEVO_TORCH_ATOL=%s=A and "
                       "KEVO_TORCH_RTOL=%s=R) if that is what it needs",
                       t->p.file_path, dtype_name(dt), b->name, b->name,
                       b->name);
    if (!u->given) {
        u->atol = cal[0];
        u->rtol = cal[1];
        u->set = 1;
        const char *src = b->dtype == TP_FLOAT ? "calibrated" : "exact";
        snprintf(u->source, sizeof u->source, "%s", src);
        snprintf(u->note, sizeof u->note, "%s: torch's own %s result uses "
                 "%.2g of it", src, dtype_name(dt), cal[2]);
    }
    u->used = u->given ? cal[3] : cal[2];
    fprintf(stderr, "kevo: %s: tolerance atol=%.3g rtol=%.3g for %s (%s; "
            "torch's own %s result uses %.2g of it)\n", t->p.file_path,
            u->atol, u->rtol, b->name, u->source, dtype_name(dt), u->used);
    return KEVO_OK;
}

/* Runs the fp64 self-check and calibrates each output's tolerance (once
 * per worker): a tolerance given by the user wins but is checked too. */
static int calibrate(struct tprob *t, struct hx *h, enum dtype dt)
{
    char bl[TP_CMD_MAX / 2], code[TP_CMD_MAX], given[TP_CMD_MAX / 4];
    double cal[PROB_MAX_BUFS][4] = {{0}};
    buf_list(h, bl, sizeof bl);
    given_list(t, given, sizeof given);
    snprintf(code, sizeof code,
             "tp_selfcheck_calibrate(%s,[%d,%d,%d],%g,%s,%llu)\n", bl, 11,
             12, 13, TP_MARGIN, given, (unsigned long long)(uintptr_t)cal);
    int r = call(h, "calibration", code);
    for (int k = 0; !r && k < t->n_out; k++)
        r = adopt_calibration(t, h, dt, k, cal[k]);
    if (r)
        return r;
    t->calibrated = 1;
    t->p.tolerance_note = t->tol[0].note[0] ? t->tol[0].note : NULL;
    return KEVO_OK;
}

/* Builds eager and torch.compile on kevo's stream (once per worker); a
 * compile that fails or exceeds the limit is skipped with a note. */
static int prepare(struct tprob *t, struct hx *h)
{
    char bl[TP_CMD_MAX / 2], code[TP_CMD_MAX];
    double res[2] = {0};
    const char *mode = getenv("KEVO_TORCH_COMPILE");
    const char *lim = getenv("KEVO_TORCH_COMPILE_LIMIT_S");
    char *end = NULL;
    double limit_s = lim && *lim ? strtod(lim, &end) : 300;
    if (lim && *lim && (*end || limit_s < 0))
        return hx_fail(h, KEVO_EINVAL, "KEVO_TORCH_COMPILE_LIMIT_S: '%s' is "
                       "not a number of seconds", lim);
    if (mode && (strchr(mode, '\'') || strchr(mode, '\\')))
        return hx_fail(h, KEVO_EINVAL, "KEVO_TORCH_COMPILE: '%s' is not a "
                       "torch.compile mode", mode);
    buf_list(h, bl, sizeof bl);
    /* the compile may take up to the limit (it is checked when it
     * returns): the coordinator's watchdog waits that long plus a minute;
     * a compile that never returns ends as this worker's timeout, naming
     * this phase */
    double budget = (limit_s + 60) * 1000;
    hx_progress(h, "baseline: torch.compile", budget > 2e9 ? 2000000000
                                                          : (int)budget);
    snprintf(code, sizeof code,
             "tp_prepare(%s,'%s',%.17g,%llu,%llu,%zu,%llu)\n", bl,
             mode && *mode ? mode : "max-autotune-no-cudagraphs", limit_s,
             (unsigned long long)(uintptr_t)hx_stream(h),
             (unsigned long long)(uintptr_t)t->base_note,
             sizeof t->base_note, (unsigned long long)(uintptr_t)res);
    int r = call(h, "baselines", code);
    hx_progress(h, "baseline", 0);
    if (r)
        return r;
    t->compiled = (int)res[0];
    t->prepared = 1;
    if (t->base_note[0])
        fprintf(stderr, "kevo: %s: %s\n", t->p.file_path, t->base_note);
    return KEVO_OK;
}

/* One module call on kevo's stream (hx_call_fn): ud points at the index
 * of the prepared call (0 eager, 1 compiled). */
static int call_module(struct hx *h, void *ud)
{
    char code[64];
    snprintf(code, sizeof code, "tp_call(%d)\n", *(const int *)ud);
    return call(h, "module call", code);
}

/* The CUDA-event time of call k (launch overhead included), median. */
static int wall(struct hx *h, int k, double *ns)
{
    char code[128];
    *ns = 0;
    snprintf(code, sizeof code, "tp_wall(%d,%llu)\n", k,
             (unsigned long long)(uintptr_t)ns);
    return call(h, "wall time", code);
}

/*
 * Torch eager and torch.compile timed like a candidate (hx_time: kevo's
 * L2 flush kernel, then one module call on kevo's stream, CUPTI records of
 * every kernel torch launched in it, first start to last end, median of
 * adaptive repetitions); the CUDA-event time around the call is kept as
 * wall_ns. The first hx_time is eager's, so a paired confirm (hx_pair_next)
 * runs a candidate against torch eager launch by launch.
 */
static int tp_baseline(const struct problem *p, struct hx *h,
                       const struct shape *s, enum dtype dt,
                       struct baseline_result *out)
{
    struct tprob *t = (struct tprob *)(uintptr_t)p; /* ours, by kind */
    static const int idx[2] = {0, 1};
    out->n = 0;
    int r = setup(p, h, s, dt);
    if (!r)
        r = hx_sync(h);
    if (!r && !t->calibrated)
        r = calibrate(t, h, dt);
    if (!r && !t->prepared)
        r = prepare(t, h);
    if (r)
        return r;
    double work = p->work(p, s, dt);
    int n = t->compiled == 1 ? 2 : 1;
    static const char *const names[2] = {"eager", "compile"};
    char none[128] = "";
    for (int k = 0; k < n; k++) {
        double ns = 0;
        r = hx_time(h, call_module, (void *)&idx[k], &ns);
        /* a call that launched no kernel (a view, a reshape): the timer
         * has no record of it (tmr.c), which is no GPU failure; its wall
         * time is all there is */
        int no_kernel = r == KEVO_ECUDA && !hx_cuda_rc(h) &&
                        strstr(hx_errmsg(h), "cupti returned");
        if (r && !no_kernel)
            return r;
        if ((r = wall(h, k, &out->wall_ns[k])))
            return r;
        if (no_kernel) {
            ns = out->wall_ns[k];
            size_t at = strlen(none);
            snprintf(none + at, sizeof none - at, "%s%s launched no "
                     "kernel: its time is the CUDA-event one", at ? "; " : "",
                     names[k]);
        }
        out->name[k] = names[k];
        out->median_ns[k] = ns;
        out->fitness[k] = ns > 0 ? work / (ns * 1e-9) : 0;
        out->n = k + 1;
    }
    snprintf(out->note, sizeof out->note, "%s%s%s", t->base_note,
             t->base_note[0] && none[0] ? "; " : "", none);
    /* output 0's (the one-pair view); wire_tolerance_outputs sends each
     * output's through p->out_tolerance */
    int any_calibrated = 0;
    for (int k = 0; k < t->n_out; k++)
        any_calibrated |= !strcmp(t->tol[k].source, "calibrated");
    out->tol_used = t->tol[0].used;
    out->tol_margin = any_calibrated ? TP_MARGIN : 0;
    out->tol_given = t->tol[0].given;
    out->tol_who = "torch";
    return KEVO_OK;
}

const struct problem_gpu torchprob_gpu = {
    .harness_src = "",
    .gen_inputs = tp_gen_inputs,
    .reference = tp_reference,
    .baseline = tp_baseline,
};
