/*
 * export_torch.c - `kevo export --format torch|kernelbench`: the winner as
 * a PyTorch custom operator (kevo_<p>.py: torch.library.custom_op with a
 * fake implementation, calling the C launcher of --format c, built here
 * into libkevo_<p>.so, through ctypes) and KernelBench's ModelNew
 * (kevo_<p>_kernelbench.py). The op takes the kernel's inputs in ABI
 * order with their ranks and dtypes: for a PyTorch problem the module's
 * forward inputs, then its parameters and buffers, each dim a product of
 * size constants (fitness/torchprob.h); for the other kinds 2-D buffers
 * whose rows and cols are sizes. ModelNew of a PyTorch problem subclasses
 * the run's own Model, copied verbatim into kevo_<p>_reference.py, so its
 * parameters are Model's under the same seed. The fixed Python is
 * export/torch_op.py.in; run strings reach the .py files as quoted string
 * literals or comment lines only, never as code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_export.h"
#include "cmd_outputs.h"
#include "proc.h"
#include "quote.h"
#include "torchprob.h"

#include "torch_op.py.in.h" /* generated from src/cli/export/ */

/* One buffer as the op sees it: any rank, each dim num/den * product of
 * the sizes it uses (struct tp_dim; one size with 1/1 is the plain case). */
struct tbuf {
    const char *name;  /* ABI name */
    enum buf_role role;
    enum dtype dtype;  /* element type (floats: the run dtype) */
    int rank;          /* 0: a 0-D tensor */
    struct tp_dim dims[TP_MAX_RANK];
    const char *state; /* the module attribute it is ("fc.weight"); "" */
};

struct layout {
    int n;
    struct tbuf b[PROB_MAX_BUFS];
    int fixed[PROB_MAX_DIMS]; /* 1: no input's dims give this size: the op
                                 uses the run's value (PyTorch problems) */
    int n_fixed;
    int torch;                /* a PyTorch problem (kernelbench: ModelNew
                                 subclasses its Model) */
};

static const char *py_type(enum dtype dt)
{
    switch (dt) {
    case DTYPE_FP16: return "torch.float16";
    case DTYPE_BF16: return "torch.bfloat16";
    case DTYPE_I32: return "torch.int32";
    case DTYPE_I64: return "torch.int64";
    case DTYPE_BOOL: return "torch.bool";
    default: return "torch.float32";
    }
}

static int is_torch_problem(const struct problem *p)
{
    return p->kind == &torchprob_kind;
}

/* A PyTorch problem's buffers, straight from its description. */
static void layout_torch(const struct exporter *x, struct layout *L)
{
    const struct tprob *t = (const struct tprob *)x->v.prob;
    L->torch = 1;
    L->n = t->n_bufs;
    for (int i = 0; i < t->n_bufs; i++) {
        const struct tp_buf *b = &t->bufs[i];
        struct tbuf *o = &L->b[i];
        o->name = b->name;
        o->role = b->role;
        o->dtype = b->dtype == TP_INT32   ? DTYPE_I32
                   : b->dtype == TP_INT64 ? DTYPE_I64
                   : b->dtype == TP_BOOL  ? DTYPE_BOOL
                                          : x->v.spec.dtype;
        o->rank = b->rank;
        memcpy(o->dims, b->dims, sizeof o->dims);
        o->state = b->state;
    }
}

/* Any other problem: 2-D buffers whose rows and cols are sizes (what its
 * buffers() says at a shape of distinct primes: cmd_export.c map_dims). */
static int layout_2d(const struct exporter *x, struct layout *L, char *err,
                     size_t errcap)
{
    const struct problem *p = x->v.prob;
    L->n = x->n_bufs;
    for (int i = 0; i < x->n_bufs; i++) {
        struct tbuf *o = &L->b[i];
        if (x->bufs[i].role == BUF_INOUT) {
            snprintf(err, errcap, "--format torch: buffer '%s' of problem "
                     "'%s' is read and written in place (not supported; "
                     "--format cu or c)", x->bufs[i].name, p->name);
            return KEVO_EINVAL;
        }
        if (x->dim[i][0] < 0 || x->dim[i][1] < 0) {
            snprintf(err, errcap, "--format torch: buffer '%s' of problem "
                     "'%s' has no 2-D shape in sizes (its rows/cols)",
                     x->bufs[i].name, p->name);
            return KEVO_EINVAL;
        }
        *o = (struct tbuf){.name = x->bufs[i].name, .role = x->bufs[i].role,
                           .dtype = x->bufs[i].dtype, .rank = 2,
                           .state = ""};
        for (int k = 0; k < 2; k++)
            o->dims[k] = (struct tp_dim){.n_use = 1, .use = {x->dim[i][k]},
                                         .num = 1, .den = 1};
    }
    return KEVO_OK;
}

/*
 * Marks in L->fixed the sizes the op cannot read off its inputs, by the
 * rule the op's _sizes() follows: a dim that is one size gives it; a dim
 * num/den * product whose other sizes are known, using the size once,
 * gives it by division; repeated until nothing more is found.
 */
static void find_fixed(const struct exporter *x, struct layout *L)
{
    int known[PROB_MAX_DIMS] = {0}, more = 1;
    while (more) {
        more = 0;
        for (int i = 0; i < L->n; i++)
            for (int k = 0; L->b[i].role == BUF_IN && k < L->b[i].rank; k++) {
                const struct tp_dim *dm = &L->b[i].dims[k];
                int unknown = -1, n_unknown = 0;
                for (int u = 0; u < dm->n_use; u++)
                    if (!known[dm->use[u]]) {
                        n_unknown++;
                        unknown = dm->use[u];
                    }
                if (n_unknown == 1 && dm->num > 0) { /* solvable */
                    known[unknown] = 1;
                    more = 1;
                }
            }
    }
    L->n_fixed = 0;
    for (int d = 0; d < x->v.prob->n_dims; d++) {
        L->fixed[d] = !known[d];
        L->n_fixed += L->fixed[d];
    }
}

/*
 * What the op can take, into L; refuses (naming the buffer or size and
 * why) an in-place buffer, a buffer without a shape in sizes, a problem
 * without any input, and, outside PyTorch problems, a size no input has.
 */
static int torch_ready(const struct exporter *x, struct layout *L, char *err,
                       size_t errcap)
{
    const struct problem *p = x->v.prob;
    int rc = KEVO_OK, n_in = 0;
    memset(L, 0, sizeof *L);
    if (is_torch_problem(p))
        layout_torch(x, L);
    else
        rc = layout_2d(x, L, err, errcap);
    if (rc)
        return rc;
    for (int i = 0; i < L->n; i++)
        n_in += L->b[i].role == BUF_IN;
    if (!n_in) {
        snprintf(err, errcap, "--format torch: problem '%s' has no input "
                 "buffer, and the op takes its device from its inputs "
                 "(--format cu or c)", p->name);
        return KEVO_EINVAL;
    }
    find_fixed(x, L);
    for (int d = 0; d < p->n_dims && L->n_fixed; d++) {
        if (!L->fixed[d])
            continue;
        if (!L->torch) {
            snprintf(err, errcap, "--format torch: size '%s' is not a "
                     "dimension of any input", p->dim_names[d]);
            return KEVO_EINVAL;
        }
        if (!x->quiet)
            fprintf(stderr, "kevo export: size '%s' is no dimension of any "
                    "input of the op: it is fixed at the run's %s = %lld, "
                    "the value the kernel was measured with\n",
                    p->dim_names[d], p->dim_names[d],
                    (long long)x->v.spec.shape.d[d]);
    }
    return KEVO_OK;
}

static int n_outputs(const struct layout *L)
{
    int n = 0;
    for (int i = 0; i < L->n; i++)
        n += L->b[i].role == BUF_OUT;
    return n;
}

/* s as a Python string literal (quote.h: no newline, no quote can end it
 * early, whatever the run's strings hold). */
static void put_py_str(FILE *f, const char *s)
{
    fputc('"', f);
    quote_py_string(f, s, 0);
    fputc('"', f);
}

/* text as Python comment lines ("# " before each line; control bytes
 * other than the line ends become '?'), so nothing in it is code. */
static void put_py_comment(FILE *f, const char *text)
{
    int bol = 1;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (bol)
            fputs("# ", f);
        bol = *c == '\n' || *c == '\r';
        fputc(bol ? '\n' : *c < 0x20 || *c == 0x7f ? '?' : *c, f);
    }
    if (!bol)
        fputc('\n', f);
}

/* A Python identifier for buffer name n (C identifiers, checked by the
 * problem's parser): n, or n_ when n is a Python keyword or builtin the
 * generated code uses. */
static const char *py_ident(const char *n, char *out, size_t cap)
{
    static const char *const reserved[] = {
        "False", "None", "True", "and", "as", "assert", "async", "await",
        "break", "class", "continue", "def", "del", "elif", "else",
        "except", "finally", "for", "from", "global", "if", "import", "in",
        "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
        "try", "while", "with", "yield", "torch", "op", NULL};
    int hit = 0;
    for (int i = 0; reserved[i]; i++)
        hit |= !strcmp(n, reserved[i]);
    snprintf(out, cap, "%s%s", n, hit || n[0] == '_' ? "_" : "");
    return out;
}

/* The op's name: kevo::<problem>_<genome hex>, letters, digits, '_'. */
static void op_name(const struct exporter *x, char *out, size_t cap)
{
    snprintf(out, cap, "kevo::%s_%s", x->v.prob->name, x->v.best_hex);
    for (char *c = out + 6; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (*c >= '0' && *c <= '9')))
            *c = '_';
}



/* A dim for the tables: "N" (one size), 4 (a literal) or (num, den,
 * ("A", "B")) for num * A * B // den. Size names are C identifiers. */
static void put_dim(FILE *f, const struct problem *p, const struct tp_dim *d)
{
    if (d->n_use == 1 && d->num == 1 && d->den == 1) {
        fprintf(f, "\"%s\"", p->dim_names[d->use[0]]);
    } else if (!d->n_use && d->den == 1) {
        fprintf(f, "%lld", (long long)d->num);
    } else {
        fprintf(f, "(%lld, %lld, (", (long long)d->num, (long long)d->den);
        for (int u = 0; u < d->n_use; u++)
            fprintf(f, "\"%s\", ", p->dim_names[d->use[u]]);
        fprintf(f, "))");
    }
}

/* The run's tables the fixed runtime (export/torch_op.py.in) reads. */
static void put_py_tables(const struct exporter *x, const struct layout *L,
                          FILE *f)
{
    const struct run_view *v = &x->v;
    const struct problem *p = v->prob;
    char op[160], shape[64];
    op_name(x, op, sizeof op);
    problem_format_shape(&v->spec.shape, shape, sizeof shape);
    fprintf(f, "BASE = \"%s\"\nOP_NAME = \"%s\"\nLIB = \"lib%s.so\"\n"
               "CUBIN = \"%s.cubin\"\nARCH = \"%s\"\nEXPORT_DIR = ",
            x->base, op, x->base, x->base, x->arch);
    put_py_str(f, x->out);
    fprintf(f, "  # where kevo wrote it\nPROBLEM = ");
    put_py_str(f, p->name);
    fprintf(f, "\nDTYPE = \"%s\"\nRUN_DTYPE = %s  # floats of the kernel\n"
               "TEMPLATE = ", dtype_name(v->spec.dtype),
            py_type(v->spec.dtype));
    put_py_str(f, v->best_tpl->name);
    fprintf(f, "\nGENOME = \"%s\"\nSHAPE = {", v->best_hex);
    for (int d = 0; d < p->n_dims; d++)
        fprintf(f, "%s\"%s\": %lld", d ? ", " : "", p->dim_names[d],
                (long long)v->spec.shape.d[d]);
    fprintf(f, "}  # the run's (%s)\nFUNCTION = \"%s\"\nSIZES = (", shape,
            x->base);
    for (int d = 0; d < p->n_dims; d++)
        fprintf(f, "\"%s\", ", p->dim_names[d]);
    fprintf(f, ")\n# sizes no input's dims give: the run's values, which "
               "the kernel was measured\n# with (module constants of a "
               "PyTorch problem)\nFIXED = {");
    for (int d = 0, k = 0; d < p->n_dims; d++)
        if (L->fixed[d])
            fprintf(f, "%s\"%s\": %lld", k++ ? ", " : "", p->dim_names[d],
                    (long long)v->spec.shape.d[d]);
    fprintf(f, "}\n# (name, role, dtype, dims, module attribute or \"\"): "
               "the kernel's buffers in ABI\n# order; a dim is a size's "
               "name, a literal, or (num, den, (sizes...)) for\n# num * "
               "product(sizes) // den\nBUFFERS = (\n");
    for (int i = 0; i < L->n; i++) {
        const struct tbuf *b = &L->b[i];
        fprintf(f, "    (\"%s\", \"%s\", %s, (", b->name,
                b->role == BUF_IN ? "in" : "out", py_type(b->dtype));
        for (int k = 0; k < b->rank; k++) {
            put_dim(f, p, &b->dims[k]);
            fprintf(f, "%s", b->rank == 1 || k + 1 < b->rank ? ", " : "");
        }
        fprintf(f, "), ");
        put_py_str(f, b->state);
        fprintf(f, "),\n");
    }
    fprintf(f, ")\n");
}

/* The typed functions torch.library.custom_op reads its schema from, and
 * the module's entry points. */
static void put_py_op(const struct exporter *x, const struct layout *L,
                      FILE *f)
{
    char id[80];
    int multi = n_outputs(L) > 1;
    for (int fake = 0; fake < 2; fake++) {
        fprintf(f, "\n\ndef _impl%s(", fake ? "_fake" : "");
        for (int i = 0, k = 0; i < L->n; i++)
            if (L->b[i].role == BUF_IN)
                fprintf(f, "%s%s: torch.Tensor", k++ ? ", " : "",
                        py_ident(L->b[i].name, id, sizeof id));
        fprintf(f, ") -> %s", multi ? "typing.Tuple[" : "torch.Tensor");
        for (int i = 0, k = 0; multi && i < L->n; i++)
            if (L->b[i].role == BUF_OUT)
                fprintf(f, "%storch.Tensor", k++ ? ", " : "");
        fprintf(f, "%s:\n    return %s((", multi ? "]" : "",
                fake ? "_fake" : "_run");
        for (int i = 0; i < L->n; i++)
            if (L->b[i].role == BUF_IN)
                fprintf(f, "%s, ", py_ident(L->b[i].name, id, sizeof id));
        fprintf(f, "))\n");
    }
    fprintf(f, "\n\nop = _define(_impl, _impl_fake)\n\n\ndef %s(*tensors):\n"
               "    \"\"\"The kernel on CUDA tensors (the inputs in BUFFERS "
               "order); new output%s.\"\"\"\n    return op(*tensors)\n",
            x->base, multi ? "s" : "");
}

static void put_torch_py(const struct exporter *x, const struct layout *L,
                         FILE *f)
{
    char op[160], dotted[160], *about;
    size_t len;
    op_name(x, op, sizeof op);
    snprintf(dotted, sizeof dotted, "kevo.%s", op + 6);
    fprintf(f, "\"\"\"%s.py - the kernel kevo found, as the PyTorch custom "
               "operator torch.ops.%s.\n\nUse:\n    import %s\n"
               "    out = %s.op(inputs...)   # or torch.ops.%s(...)\n\n"
               "Inputs are CUDA tensors of the ranks and dtypes in BUFFERS "
               "(floats in RUN_DTYPE),\ncontiguous and 16-byte aligned; the "
               "sizes are read off them (FIXED ones are the\nrun's) and "
               "the launch plan computed for them (any shape the template\n"
               "supports). The op has a fake (meta) implementation, so "
               "torch.compile\ntraces through it. The kernel is the cubin "
               "next to this file, launched on torch's\ncurrent stream by "
               "the C launcher lib%s.so (built by kevo export): no\nnvcc "
               "and no C++ extension at run time. Forward only: no "
               "autograd formula.\n\"\"\"\n",
            x->base, dotted, x->base, x->base, dotted, x->base);
    FILE *m = open_memstream(&about, &len);
    if (m) {
        export_put_about_raw(x, m, "");
        fclose(m);
        put_py_comment(f, about);
        free(about);
    }
    fprintf(f, "import ctypes\nimport os\nimport typing\n\nimport torch\n\n");
    put_py_tables(x, L, f);
    fputs(torch_op, f);
    put_py_op(x, L, f);
}

/* KernelBench's ModelNew: for a PyTorch problem a subclass of the run's
 * Model (kevo_<p>_reference.py) passing the inputs and then its state to
 * the op; for the other kinds a module without state calling it. */
static void put_kernelbench_py(const struct exporter *x,
                               const struct layout *L, FILE *f)
{
    char op[160];
    op_name(x, op, sizeof op);
    op[4] = '.';
    memmove(op + 5, op + 6, strlen(op + 6) + 1);
    fprintf(f, "\"\"\"%s_kernelbench.py - KernelBench's submission format "
               "(class ModelNew) for the\nkernel kevo found: forward(inputs)"
               " calls torch.ops.%s from %s.py\n(in this folder).\n",
            x->base, op, x->base);
    if (L->torch)
        fprintf(f, "\nModelNew subclasses the problem's Model, the run's "
                   "module copied verbatim\ninto %s_reference.py: the same "
                   "__init__(*get_init_inputs()), so under the\nsame seed "
                   "the same parameters and buffers (and state_dict keys). "
                   "forward\npasses the inputs, then the state in the "
                   "kernel's ABI order (BUFFERS in\n%s.py), floats cast to "
                   "the run's dtype; floating outputs come back in\nthe "
                   "dtype of the first floating input (or state) given. "
                   "Forward only: the\nstate is passed detached.\n",
                x->base, x->base);
    fprintf(f, "\"\"\"\nBASE = \"%s\"\nEXPORT_DIR = ", x->base);
    put_py_str(f, x->out);
    fprintf(f, "\n");
    fputs(L->torch ? torch_op_kernelbench_module : torch_op_kernelbench, f);
}

/* Writes put's text to path. */
static int write_py(const char *path,
                    void (*put)(const struct exporter *,
                                const struct layout *, FILE *),
                    const struct exporter *x, const struct layout *L)
{
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return KEVO_ENOMEM;
    put(x, L, f);
    fclose(f);
    int rc = outputs_write_file(path, text);
    free(text);
    return rc;
}

/* Builds lib<base>.so from the C launcher with the system's C compiler
 * ($CC, else cc) against CUDA's driver stub: plain C, so it loads under
 * any torch. */
static int build_launcher_so(const struct exporter *x, char *err,
                             size_t errcap)
{
    char so[4096], src[4096], inc[4200], stub[4200], lib[4200], log[4200];
    const char *cc = getenv("CC"), *cuda = getenv("CUDA_HOME");
    if (!cc || !*cc)
        cc = "cc";
    if (!cuda || !*cuda)
        cuda = getenv("CUDA_PATH");
    if (!cuda || !*cuda)
        cuda = "/usr/local/cuda";
    snprintf(so, sizeof so, "%s/lib%s.so", x->out, x->base);
    snprintf(src, sizeof src, "%s/%s.c", x->out, x->base);
    snprintf(inc, sizeof inc, "-I%s/include", cuda);
    snprintf(stub, sizeof stub, "-L%s/lib64/stubs", cuda);
    snprintf(lib, sizeof lib, "-L%s/lib64", cuda);
    snprintf(log, sizeof log, "%s/lib%s.log", x->out, x->base);
    char *argv[] = {(char *)cc, "-std=c11", "-O2", "-fPIC", "-shared", inc,
                    "-o", so, src, stub, lib, "-lcuda", NULL};
    int timed_out = 0;
    int st = proc_run(NULL, argv, log, 120 * 1000, &timed_out);
    if (st) {
        snprintf(err, errcap, "--format torch: cannot build '%s' with '%s' "
                 "(%s; see '%s'): the torch op needs a C compiler at export "
                 "time (set CC), or use --format c",
                 so, cc, timed_out ? "no answer in 120 s"
                         : st < 0 ? "cannot run it" : "it failed", log);
        return KEVO_EIO;
    }
    unlink(log);
    cJSON_AddStringToObject(x->json, "library", so);
    return KEVO_OK;
}


/* kevo_<p>_reference.py: the run's module, byte for byte (ModelNew
 * imports it; nothing of it is pasted into generated code). */
static int write_reference(const struct exporter *x, char *err,
                           size_t errcap)
{
    char path[4200];
    const char *text = x->v.prob->file_text;
    snprintf(path, sizeof path, "%s/%s_reference.py", x->out, x->base);
    int rc = text ? outputs_write_file(path, text) : KEVO_ENOENT;
    if (rc) {
        snprintf(err, errcap, "cannot write '%s': %s", path,
                 text ? kevo_strerror(rc) : "the run's module text is "
                 "missing");
        return rc;
    }
    cJSON_AddStringToObject(x->json, "reference", path);
    return KEVO_OK;
}

int export_torch_write(struct exporter *x, char *err, size_t errcap)
{
    char path[4200];
    struct layout *L = calloc(1, sizeof *L);
    int rc = L ? torch_ready(x, L, err, errcap) : KEVO_ENOMEM;
    if (!rc)
        rc = build_launcher_so(x, err, errcap);
    if (!rc) {
        snprintf(path, sizeof path, "%s/%s.py", x->out, x->base);
        if ((rc = write_py(path, put_torch_py, x, L)))
            snprintf(err, errcap, "cannot write '%s': %s", path,
                     kevo_strerror(rc));
        else
            cJSON_AddStringToObject(x->json, "python", path);
    }
    if (!rc && L->torch)
        rc = write_reference(x, err, errcap);
    if (!rc) {
        snprintf(path, sizeof path, "%s/%s_kernelbench.py", x->out, x->base);
        if ((rc = write_py(path, put_kernelbench_py, x, L)))
            snprintf(err, errcap, "cannot write '%s': %s", path,
                     kevo_strerror(rc));
        else
            cJSON_AddStringToObject(x->json, "kernelbench", path);
    }
    free(L);
    return rc;
}
