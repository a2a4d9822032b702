/*
 * torchprob.c - PyTorch modules in KernelBench's format as kevo problems
 * (kind "torch", files ending in .py; README "PyTorch problems"). Parsing
 * runs the embedded helper torchprob_helper.py under python3 ($KEVO_PYTHON)
 * in a private temporary folder: it imports the module (on torch's meta
 * device where it can, so no GPU and no big allocation), and describes
 * the ABI: inputs, then the module's parameters and buffers, then
 * forward's outputs, each dim a product of the file's int size constants
 * times a fraction. The problem record derives everything from that:
 * buffers at any shape, the kernel signature, bytes as the work (FLOPs
 * from torch.utils.flop_counter are only reported: an algebraically
 * cheaper kernel is legal). The GPU hooks are torchprob_gpu.c's, the
 * tolerance of each output torchtol.c's.
 * Python runs only for .py problems: every other kind works without it,
 * and a run directory's problem is rebuilt from the description recorded
 * at its start (tp_parse_record, torchdesc.c) by commands that do not
 * evaluate, running nothing.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "fsutil.h"
#include "proc.h"
#include "torchprob.h"

#include "torchprob_helper.py.h"

#define TP_DESCRIBE_MS 600000 /* an import of torch plus a few module runs */

static void tp_free(struct problem *p);

const char *torchprob_helper_text(void)
{
    return torchprob_helper;
}

const char *torchprob_python(void)
{
    const char *py = getenv("KEVO_PYTHON");
    return py && *py ? py : "python3";
}

static enum dtype buf_dtype(int code, enum dtype run)
{
    switch (code) {
    case TP_INT32: return DTYPE_I32;
    case TP_INT64: return DTYPE_I64;
    case TP_BOOL: return DTYPE_BOOL;
    default: return run;
    }
}

/* One dim of buffer b at shape s: coef * product of its sizes; -1 when
 * the fraction does not divide. */
static int64_t dim_at(const struct tp_dim *d, const struct shape *s)
{
    int64_t v = d->num;
    for (int k = 0; k < d->n_use; k++)
        v *= s->d[d->use[k]];
    return v % d->den ? -1 : v / d->den;
}

static int tp_buffers(const struct problem *p, const struct shape *s,
                      enum dtype dt, struct buf_desc *out)
{
    const struct tprob *t = (const struct tprob *)p;
    for (int i = 0; i < t->n_bufs; i++) {
        const struct tp_buf *b = &t->bufs[i];
        int64_t n = 1, d0 = 0, d1 = 0;
        for (int k = 0; k < b->rank; k++) {
            int64_t v = dim_at(&b->dims[k], s);
            n *= v < 0 ? 0 : v;
            if (k == 0)
                d0 = v;
            else
                d1 = v;
        }
        out[i] = (struct buf_desc){.name = b->name, .role = b->role,
                                   .n_elems = n,
                                   .dtype = buf_dtype(b->dtype, dt)};
        if (b->rank == 2 && b->dtype == TP_FLOAT) { /* tensor maps */
            out[i].rows = d0;
            out[i].cols = d1;
        }
    }
    return t->n_bufs;
}

static double tp_bytes(const struct problem *p, const struct shape *s,
                       enum dtype dt)
{
    struct buf_desc d[PROB_MAX_BUFS];
    double b = 0;
    int n = p->buffers(p, s, dt, d);
    for (int i = 0; i < n; i++)
        b += (double)d[i].n_elems * (double)dtype_size(d[i].dtype);
    return b;
}

static int tp_check_shape(const struct problem *p, const struct shape *s,
                          char *err, size_t errcap)
{
    const struct tprob *t = (const struct tprob *)p;
    for (int i = 0; i < t->n_bufs; i++)
        for (int k = 0; k < t->bufs[i].rank; k++)
            if (dim_at(&t->bufs[i].dims[k], s) < 0) {
                snprintf(err, errcap, "%s: dim %d of %s is %lld/%lld of a "
                         "product of sizes, which this shape does not "
                         "divide", p->file_path, k, t->bufs[i].name,
                         (long long)t->bufs[i].dims[k].num,
                         (long long)t->bufs[i].dims[k].den);
                return KEVO_EINVAL;
            }
    return problem_check_buffers(p, s, err, errcap);
}

/* ---- parsing: the describe JSON into a struct tprob ---- */

static const char *ctype(int code, int in)
{
    switch (code) {
    case TP_INT32: return in ? "const int *" : "int *";
    case TP_INT64: return in ? "const long long *" : "long long *";
    case TP_BOOL: return in ? "const bool *" : "bool *";
    default: return in ? "const elem_t *" : "elem_t *";
    }
}

static void cat(char **s, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void cat(char **s, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = *s ? vsnprintf(*s + *len, *cap - *len, fmt, ap) : -1;
        va_end(ap);
        if (*s && n >= 0 && (size_t)n < *cap - *len) {
            *len += (size_t)n;
            return;
        }
        size_t nc = *cap * 2 + 256 + (n > 0 ? (size_t)n : 0);
        char *g = realloc(*s, nc);
        if (!g)
            return; /* the caller checks for NULL at the end */
        *s = g;
        *cap = nc;
    }
}

/* The signature as text, with each buffer's dims, for people and LLMs. */
static char *make_abi(const struct tprob *t)
{
    char *s = NULL;
    size_t len = 0, cap = 0;
    cat(&s, &len, &cap, "extern \"C\" __global__ void kernel(");
    for (int i = 0; i < t->n_bufs; i++)
        cat(&s, &len, &cap, "%s%s%s", i ? ", " : "",
            ctype(t->bufs[i].dtype, t->bufs[i].role == BUF_IN),
            t->bufs[i].name);
    for (int i = 0; i < t->p.n_dims; i++)
        cat(&s, &len, &cap, ", int %s", t->p.dim_names[i]);
    cat(&s, &len, &cap, ", void *ws)\n");
    for (int i = 0; i < t->n_bufs; i++) {
        const struct tp_buf *b = &t->bufs[i];
        cat(&s, &len, &cap, "// %s (%s, %s): [", b->name,
            b->role == BUF_IN ? b->state[0] ? "module state" : "input"
                              : "output",
            b->dtype == TP_FLOAT ? "elem_t" : b->dtype == TP_INT32 ? "int32"
            : b->dtype == TP_INT64 ? "int64" : "bool");
        for (int k = 0; k < b->rank; k++) {
            const struct tp_dim *d = &b->dims[k];
            cat(&s, &len, &cap, "%s", k ? ", " : "");
            if (d->num != 1 || !d->n_use)
                cat(&s, &len, &cap, "%lld%s", (long long)d->num,
                    d->n_use ? "*" : "");
            for (int u = 0; u < d->n_use; u++)
                cat(&s, &len, &cap, "%s%s", u ? "*" : "",
                    t->p.dim_names[d->use[u]]);
            if (d->den != 1)
                cat(&s, &len, &cap, "/%lld", (long long)d->den);
        }
        cat(&s, &len, &cap, "] row-major, contiguous\n");
    }
    if (t->flops > 0)
        cat(&s, &len, &cap, "// torch.utils.flop_counter: %.4g FLOPs at the "
            "file's sizes (reported only: fitness counts bytes, and an "
            "algebraically cheaper kernel is legal)\n", t->flops);
    return s;
}

/* The helper's JSON: its error (the module's own, with file:line), or the
 * description, checked like any foreign input. */
static int from_helper(const char *path, const char *json, struct tprob *t,
                       char *err, size_t errcap)
{
    cJSON *root = cJSON_Parse(json);
    const char *e = cJSON_GetStringValue(cJSON_GetObjectItem(root, "error"));
    int rc = KEVO_OK;
    if (e && !strcmp(e, "no_torch")) {
        snprintf(err, errcap, "%s: PyTorch is not installed for '%s' (install "
                 "it with `pip install torch`, or point KEVO_PYTHON at a "
                 "python that has it)", path, torchprob_python());
        rc = KEVO_ENODEV;
    } else if (e) {
        snprintf(err, errcap, "%s", e);
        rc = KEVO_EINVAL;
    }
    cJSON_Delete(root);
    return rc ? rc : tp_desc_read(path, json, t, err, errcap);
}

/* Runs the helper's describe on text in a private temporary folder; the
 * JSON it wrote becomes *json (caller frees). */
static int run_describe(const char *path, const char *text, char **json,
                        char *err, size_t errcap)
{
    char src[64], helper[64], out[64], log[64];
    const char *tmp = getenv("TMPDIR");
    char tdir[4000];
    if (!tmp || !*tmp || strlen(tmp) > 3000)
        tmp = "/tmp";
    snprintf(tdir, sizeof tdir, "%s/kevo-torch-XXXXXX", tmp);
    char *d = mkdtemp(tdir);
    if (!d) {
        snprintf(err, errcap, "cannot create a temporary folder: %s",
                 strerror(errno));
        return KEVO_EIO;
    }
    char srcp[4200], helperp[4200], outp[4200], logp[4200];
    snprintf(src, sizeof src, "/module.py");
    snprintf(helper, sizeof helper, "/helper.py");
    snprintf(out, sizeof out, "/describe.json");
    snprintf(log, sizeof log, "/log");
    snprintf(srcp, sizeof srcp, "%s%s", d, src);
    snprintf(helperp, sizeof helperp, "%s%s", d, helper);
    snprintf(outp, sizeof outp, "%s%s", d, out);
    snprintf(logp, sizeof logp, "%s%s", d, log);
    int rc = fs_write_new(srcp, text, strlen(text), 0);
    if (!rc)
        rc = fs_write_new(helperp, torchprob_helper, strlen(torchprob_helper),
                          0);
    if (rc) {
        snprintf(err, errcap, "cannot write into '%s': %s", d,
                 kevo_strerror(rc));
        goto out;
    }
    char *argv[] = {(char *)torchprob_python(), helperp, "describe", srcp,
                    (char *)path, outp, NULL};
    int to = 0;
    int st = proc_run(NULL, argv, logp, TP_DESCRIBE_MS, &to);
    if (fs_read_file(outp, json, NULL)) {
        char *lg = NULL;
        if (fs_read_file(logp, &lg, NULL))
            lg = NULL;
        char *nl = lg ? strrchr(lg, '\n') : NULL;
        while (nl && nl > lg && nl[1] == '\0') { /* last non-empty line */
            *nl = '\0';
            nl = strrchr(lg, '\n');
        }
        snprintf(err, errcap, "%s: cannot describe the module with '%s'%s "
                 "(%s); a PyTorch problem needs Python 3 with PyTorch "
                 "(`pip install torch`; KEVO_PYTHON names the python)",
                 path, torchprob_python(),
                 to ? ": it ran past the time limit" : st < 0
                 ? ": it did not start" : "",
                 lg && *lg ? (nl ? nl + 1 : lg) : "no output");
        free(lg);
        rc = KEVO_ENODEV;
    }
out:
    unlink(srcp);
    unlink(helperp);
    unlink(outp);
    unlink(logp);
    rmdir(d);
    return rc;
}

/* A problem's name fits spec.h's and tpl.h's char[32]. */
#define TP_PROBLEM_NAME_MAX 31

/* "examples/torch/cumsum/cumsum.py" -> "cumsum": letters, digits and _,
 * an identifier (templates name their problem, the torch export names an
 * op after it): KernelBench's "19_ReLU.py" -> "kb19_ReLU"; at most
 * TP_PROBLEM_NAME_MAX characters. */
static void stem(const char *path, char *out, size_t cap)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = 0;
    if (cap > TP_PROBLEM_NAME_MAX + 1)
        cap = TP_PROBLEM_NAME_MAX + 1;
    if (isdigit((unsigned char)*b) && cap > 3)
        n = (size_t)snprintf(out, cap, "kb");
    for (; *b && strcmp(b, ".py") && n + 1 < cap; b++)
        out[n++] = (isalnum((unsigned char)*b) || *b == '_') ? *b : '_';
    out[n] = '\0';
    if (!n)
        snprintf(out, cap, "torch");
}

/* The problem record from t's sizes and buffers (read from json, which t
 * takes: freed even on failure); t is freed on failure. */
static int finish(struct tprob *t, const char *path, const char *text,
                  char *json, const struct problem_gpu *gpu,
                  struct problem **out, char *err, size_t errcap)
{
    int rc = KEVO_OK;
    t->record = json;
    /* No size constant (n_dims 0): every dim is a literal, the shape is
     * fixed and the kernel gets no size ints (KernelBench's
     * 100_HingeLoss: its forward only works at the file's sizes). */
    t->path = strdup(path);
    t->text = strdup(text);
    if (!rc && (!t->path || !t->text || !t->record))
        rc = KEVO_ENOMEM;
    if (rc) {
        tp_free(&t->p);
        return rc;
    }
    stem(path, t->name, sizeof t->name);
    struct problem *p = &t->p;
    p->name = t->name;
    p->summary = "a PyTorch module (KernelBench format)";
    p->abi = t->abi = make_abi(t);
    p->work_unit = "B/s";
    p->dtype_mask = 1u << DTYPE_FP32 | 1u << DTYPE_FP16 | 1u << DTYPE_BF16;
    p->prelude = problem_prelude_std;
    p->buffers = tp_buffers;
    p->work = tp_bytes;
    p->min_bytes = tp_bytes;
    p->flops = NULL; /* torch's count must not set the speed-of-light
                        floor: a cheaper algebra is legal (issue 30) */
    p->tolerance = tp_tolerance;
    p->out_tolerance = tp_out_tolerance; /* one per output: torchtol.c */
    p->check_shape = tp_check_shape;
    p->kind = &torchprob_kind;
    p->description = t->text;
    p->file_path = t->path;
    p->file_text = t->text;
    p->file_record = t->record;
    problem_format_shape(&t->file_shape, t->shape_text,
                         sizeof t->shape_text);
    p->doctor_shape = t->shape_text;
    if ((rc = tp_tol_given(t, err, errcap))) {
        tp_free(p);
        return rc;
    }
    if (gpu) {
        p->harness_src = gpu->harness_src;
        p->gen_inputs = gpu->gen_inputs;
        p->reference = gpu->reference;
        p->baseline = gpu->baseline;
    }
    if (!p->abi) {
        tp_free(p);
        return KEVO_ENOMEM;
    }
    *out = p;
    return KEVO_OK;
}

/* A module: the helper runs it (python3, in a private folder) and
 * describes it. */
static int tp_parse(const char *path, const char *text,
                    const struct problem_gpu *gpu, struct problem **out,
                    char *err, size_t errcap)
{
    struct tprob *t = calloc(1, sizeof *t);
    char *json = NULL;
    if (!t)
        return KEVO_ENOMEM;
    int rc = run_describe(path, text, &json, err, errcap);
    if (!rc)
        rc = from_helper(path, json, t, err, errcap);
    if (rc) {
        free(json);
        tp_free(&t->p);
        return rc;
    }
    return finish(t, path, text, json, gpu, out, err, errcap);
}

/* A module from its recorded description: nothing runs, and no GPU hooks
 * are attached (a command that evaluates loads the module itself). */
static int tp_parse_record(const char *path, const char *text,
                           const char *rec_path, const char *record,
                           const struct problem_gpu *gpu,
                           struct problem **out, char *err, size_t errcap)
{
    struct tprob *t = calloc(1, sizeof *t);
    (void)gpu;
    if (!t)
        return KEVO_ENOMEM;
    int rc = tp_desc_read(rec_path, record, t, err, errcap);
    if (rc) {
        tp_free(&t->p);
        return rc;
    }
    return finish(t, path, text, strdup(record), NULL, out, err, errcap);
}

static void tp_free(struct problem *p)
{
    struct tprob *t = (struct tprob *)p;
    if (!t)
        return;
    free(t->abi);
    free(t->path);
    free(t->text);
    free(t->record);
    free(t);
}

const struct problem_kind torchprob_kind = {
    .name = "torch",
    .suffix = ".py",
    .parse = tp_parse,
    .parse_record = tp_parse_record,
    .free = tp_free,
    .set_tolerance = tp_set_tolerance,
};
