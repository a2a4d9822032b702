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
 *               run dtype);
 *   reference   the module cast to float64 (integers, bools kept) run on
 *               exactly the buffers the candidate read, into kevo's fp64
 *               reference array;
 *   baseline    before any candidate: the fp64 run twice (bitwise equal,
 *               finite), the tolerance calibrated from torch's own result
 *               in the run dtype (TF32 off: fp32 stays fp32), then torch
 *               eager and torch.compile timed after kevo's L2 flush.
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
             "ctypes.string_at(%llu,%zu).decode(),%s,%d,%llu,%zu,%llu)\n",
             (unsigned long long)(uintptr_t)p->file_text,
             strlen(p->file_text),
             (unsigned long long)(uintptr_t)p->file_path,
             strlen(p->file_path), sizes, (int)dt,
             (unsigned long long)(uintptr_t)py.err, sizeof py.err,
             (unsigned long long)hx_buf(h, 0));
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
    int r = setup(p, h, s, dt);
    if (!r)
        r = hx_sync(h); /* kevo's stream is done with the buffers */
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
    int r = setup(p, h, s, dt);
    if (!r)
        r = hx_sync(h);
    if (r)
        return r;
    buf_list(h, bl, sizeof bl);
    snprintf(code, sizeof code, "tp_reference(%s,%llu)\n", bl,
             (unsigned long long)(uintptr_t)ref_dev);
    return call(h, "fp64 reference", code);
}

static int tp_baseline(const struct problem *p, struct hx *h,
                       const struct shape *s, enum dtype dt,
                       struct baseline_result *out)
{
    struct tprob *t = (struct tprob *)(uintptr_t)p; /* ours, by kind */
    char bl[TP_CMD_MAX / 2], code[TP_CMD_MAX];
    double cal[3] = {0}, base[3] = {0};
    const char *mode = getenv("KEVO_TORCH_COMPILE");
    const char *lim = getenv("KEVO_TORCH_COMPILE_LIMIT_S");
    out->n = 0;
    int r = setup(p, h, s, dt);
    if (!r)
        r = hx_sync(h);
    if (r)
        return r;
    buf_list(h, bl, sizeof bl);
    snprintf(code, sizeof code,
             "tp_selfcheck_calibrate(%s,[%d,%d,%d],%g,%llu)\n", bl, 11, 12,
             13, TP_MARGIN, (unsigned long long)(uintptr_t)cal);
    if ((r = call(h, "calibration", code)))
        return r;
    if (!t->tol_set) { /* a tolerance given by the user wins */
        t->atol = cal[0];
        t->rtol = cal[1];
        t->tol_set = 1;
    }
    fprintf(stderr, "kevo: %s: tolerance atol=%.3g rtol=%.3g (torch's own "
            "%s result uses %.2f of it)\n", p->file_path, t->atol, t->rtol,
            dtype_name(dt), cal[2]);
    snprintf(code, sizeof code, "tp_baselines(%s,'%s',%s,%llu)\n", bl,
             mode && *mode ? mode : "max-autotune-no-cudagraphs",
             lim && *lim ? lim : "300",
             (unsigned long long)(uintptr_t)base);
    if ((r = call(h, "baselines", code)))
        return r;
    double work = p->work(p, s, dt);
    out->name[0] = "eager";
    out->median_ns[0] = base[0];
    out->fitness[0] = base[0] > 0 ? work / (base[0] * 1e-9) : 0;
    out->n = 1;
    if (base[1] > 0) {
        out->name[1] = "compile";
        out->median_ns[1] = base[1];
        out->fitness[1] = work / (base[1] * 1e-9);
        out->n = 2;
    }
    return KEVO_OK;
}

const struct problem_gpu torchprob_gpu = {
    .harness_src = "",
    .gen_inputs = tp_gen_inputs,
    .reference = tp_reference,
    .baseline = tp_baseline,
};
