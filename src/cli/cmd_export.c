/*
 * cmd_export.c - `kevo export <run>`: the winning kernel of a run, ready to
 * use outside kevo:
 *   cu     kevo_<problem>.cu: the exact instantiated source plus a comment
 *          block with the signature and the launch plan at the run's shape
 *   c      kevo_<problem>.h/.c + .cubin: the cubin compiled by NVRTC now,
 *          with the run's options, and a driver-API launcher that computes
 *          the launch plan for any sizes
 *   torch  the c files and, written by export_torch.c, a PyTorch custom
 *          operator launching them (kevo_<problem>.py) and KernelBench's
 *          ModelNew calling it (kevo_<problem>_kernelbench.py)
 * The plan is generated as C from the template's own expressions, so the
 * exported launcher agrees with kevo for every shape the template
 * supports: every launch in order, the workspace the plan sizes (the C
 * launcher allocates one when given none, the torch op per call) and
 * TMA tensor maps encoded as the harness does (worker.c). Works the same
 * for a run's own templates and LLM-born ones (runview.c finds both).
 * Nothing here names a problem: buffer dims come from the problem's
 * buffers() (rows, cols), mapped back to size names (a PyTorch problem's
 * dims of any rank: export_torch.c).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_export.h"
#include "cmd_outputs.h"
#include "cmd_run.h"
#include "cmd_sanitize.h"
#include "expr.h"
#include "fsutil.h"
#include "jit.h"
#include "kvhdr.h"
#include "proc.h"
#include "quote.h"
#include "record.h"
#include "tmap.h"
#include "version.h"

#include "launcher_text.c.in.h" /* generated from src/cli/export/ */

/* Maps each buffer's rows/cols to size indices by asking buffers() for a
 * shape of distinct primes (so no two sizes, or a size and a product,
 * coincide). */
static void map_dims(struct exporter *x)
{
    static const int64_t primes[PROB_MAX_DIMS] = {1009, 2003, 3001, 4001,
                                                  5003, 6007, 7001, 8009};
    const struct problem *p = x->v.prob;
    struct shape s = {.n_dims = p->n_dims};
    for (int i = 0; i < p->n_dims; i++)
        s.d[i] = primes[i];
    struct buf_desc b[PROB_MAX_BUFS];
    memset(b, 0, sizeof b);
    int n = p->buffers(p, &s, x->v.spec.dtype, b);
    x->n_bufs = p->buffers(p, &x->v.spec.shape, x->v.spec.dtype, x->bufs);
    for (int i = 0; i < n && i < x->n_bufs; i++)
        for (int k = 0; k < 2; k++) {
            int64_t want = k ? b[i].cols : b[i].rows;
            x->dim[i][k] = -1;
            for (int d = 0; d < p->n_dims; d++)
                if (want == primes[d])
                    x->dim[i][k] = d;
        }
}

/* ------------------------------------------------------------ shared */

/* The kernel's C parameter list: buffers, sizes, ws. */
static void put_signature(const struct exporter *x, FILE *f,
                          const char *ptr_in, const char *ptr_out)
{
    for (int i = 0; i < x->n_bufs; i++)
        fprintf(f, "%s %s, ", x->bufs[i].role == BUF_IN ? ptr_in : ptr_out,
                x->bufs[i].name);
    for (int d = 0; d < x->v.prob->n_dims; d++)
        fprintf(f, "int %s, ", x->v.prob->dim_names[d]);
}

/* A comment block: what this is, the signature, the plan at the run's
 * shape. prefix starts each line (" * " or ""). Raw: names from the run
 * (its name, the GPU's) are untrusted: put_about quotes it. */
void export_put_about_raw(const struct exporter *x, FILE *f, const char *pre)
{
    const struct run_view *v = &x->v;
    char shape[64], err[256];
    struct launch_plan lp;
    problem_format_shape(&v->spec.shape, shape, sizeof shape);
    fprintf(f, "%skevo export of run '%s' (kevo %s, commit %s)\n", pre,
            v->spec.name, KEVO_VERSION, kevo_git_commit());
    fprintf(f, "%sproblem %s, dtype %s, shape %s, template %s, genome %s\n",
            pre, v->prob->name, dtype_name(v->spec.dtype), shape,
            v->best_tpl->name, v->best_hex);
    fprintf(f, "%sparameters:", pre);
    for (int i = 0; i < v->best_tpl->n_params; i++)
        fprintf(f, " %s=%lld", v->best_tpl->params[i].name,
                (long long)v->best_vals[i]);
    fprintf(f, "\n%smeasured: %.6g %s, median %.1f ns%s%s\n", pre,
            v->best.fitness, v->prob->work_unit, v->best.median_ns,
            run_view_gpu(v)[0] ? " on " : "", run_view_gpu(v));
    fprintf(f, "%s\n%ssignature (the problem's ABI):\n%s  %s\n", pre, pre,
            pre, v->prob->abi);
    fprintf(f, "%s\n%slaunch plan at %s (SMS=%lld, SMEM_OPTIN=%lld, "
               "L2_BYTES=%lld):\n",
            pre, pre, shape, (long long)v->dev.sms,
            (long long)v->dev.smem_optin, (long long)v->dev.l2_bytes);
    if (tpl_plan(v->best_tpl, v->best_vals, &v->spec.shape, &v->dev, &lp,
                 err, sizeof err)) {
        fprintf(f, "%s  cannot be evaluated: %s\n", pre, err);
        return;
    }
    for (int i = 0; i < lp.n; i++) {
        const struct launch_dims *l = &lp.l[i];
        fprintf(f, "%s  %s<<<dim3(%u, %u, %u), dim3(%u, %u, %u), %u>>>", pre,
                l->kernel, l->grid[0], l->grid[1], l->grid[2], l->block[0],
                l->block[1], l->block[2], l->smem_bytes);
        if (l->cluster[0])
            fprintf(f, " cluster(%u, %u, %u)", l->cluster[0], l->cluster[1],
                    l->cluster[2]);
        if (l->pdl)
            fprintf(f, " programmatic dependent launch");
        fprintf(f, "\n");
    }
    fprintf(f, "%s  workspace: %llu bytes (ws may be NULL when 0)\n", pre,
            (unsigned long long)lp.workspace_bytes);
    fprintf(f, "%sas expressions of the sizes (template %s):\n", pre,
            v->best_tpl->name);
    for (int i = 0; i < v->best_tpl->n_launches; i++) {
        const struct tpl_launch *l = &v->best_tpl->launches[i];
        fprintf(f, "%s  %s: grid (", pre, l->kernel);
        for (int k = 0; k < 3; k++)
            fprintf(f, "%s%s", k ? ", " : "",
                    l->grid[k] ? expr_text(l->grid[k]) : "1");
        fprintf(f, "), block (");
        for (int k = 0; k < 3; k++)
            fprintf(f, "%s%s", k ? ", " : "",
                    l->block[k] ? expr_text(l->block[k]) : "1");
        fprintf(f, "), smem %s\n", l->smem ? expr_text(l->smem) : "0");
    }
    for (int i = 0; i < v->best_tpl->n_args; i++)
        fprintf(f, "%s  int argument %s = %s (%d here)\n", pre,
                v->best_tpl->args[i].name, expr_text(v->best_tpl->args[i].e),
                lp.args[i]);
    for (int i = 0; i < v->best_tpl->n_requires; i++)
        fprintf(f, "%s  requires %s\n", pre,
                expr_text(v->best_tpl->requires_[i].e));
    int64_t fv[TPL_MAX_FACTS];
    if (v->best_tpl->n_facts &&
        !tpl_facts(v->best_tpl, v->best_vals, &v->spec.shape, fv, err,
                   sizeof err))
        for (int i = 0; i < v->best_tpl->n_facts; i++)
            fprintf(f, "%s  built for %s = %lld (%s): other shapes are "
                       "refused\n",
                    pre, v->best_tpl->facts[i].name, (long long)fv[i],
                    expr_text(v->best_tpl->facts[i].e));
}

/* export_put_about_raw for the inside of a C comment (pre " * ") or of a Python
 * docstring (pre ""), quoted for it: a run named '*' '/' or '"""' stays
 * text. */
static void put_about(const struct exporter *x, FILE *f, int py)
{
    char *text = NULL;
    size_t len;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return;
    export_put_about_raw(x, m, py ? "" : " * ");
    fclose(m);
    if (py)
        quote_py_string(f, text, 1);
    else
        quote_c_comment(f, text);
    free(text);
}

static void put_expr_value(FILE *f, const char *lhs, const struct expr *e,
                           const char *dflt)
{
    fprintf(f, "    %s = (long long)(%s);\n", lhs, e ? expr_text(e) : dflt);
}

/* The head of a generated function of the sizes and device facts. */
static void put_sizes_params(const struct exporter *x, FILE *f)
{
    for (int d = 0; d < x->v.prob->n_dims; d++)
        fprintf(f, "long long %s, ", x->v.prob->dim_names[d]);
    fprintf(f, "long long SMS, long long SMEM_OPTIN, long long L2_BYTES,\n"
               "        ");
}

static void put_void_sizes(const struct exporter *x, FILE *f)
{
    fprintf(f, "    (void)SMS; (void)SMEM_OPTIN; (void)L2_BYTES;\n");
    for (int d = 0; d < x->v.prob->n_dims; d++)
        fprintf(f, "    (void)%s;\n", x->v.prob->dim_names[d]);
}

/* "static int <base>_<fn>_(sizes, device facts, out, why)\n{" and the
 * (void)s of a generated function of the sizes returning 0, or 1 with
 * *why. */
static void put_sizes_fn_head(const struct exporter *x, FILE *f,
                              const char *what, const char *fn,
                              const char *out)
{
    fprintf(f, "/* %s for the sizes; 0, or 1 with *why. */\n"
               "static int %s_%s_(", what, x->base, fn);
    put_sizes_params(x, f);
    fprintf(f, "%s, const char **kevo_why)\n{\n    long long kevo_v;\n", out);
    put_void_sizes(x, f);
}

/* The device facts a launcher passes to a generated function, after the
 * sizes: the C launcher's (read at _load) and the torch one's. */
static const char C_DEVICE_FACTS[] =
    "kevo_sms, kevo_smem_optin, kevo_l2_bytes, ";

/* "M, N, K, <facts>": the arguments of a call to a generated function. */
static void put_sizes_call(const struct exporter *x, FILE *f,
                           const char *facts)
{
    for (int d = 0; d < x->v.prob->n_dims; d++)
        fprintf(f, "%s, ", x->v.prob->dim_names[d]);
    fputs(facts, f);
}

/* <base>_tmaps_(): the box of each tensor map (inner, outer elements) and
 * its L2 promotion (bytes) for the sizes, from the template's "tensormap"
 * expressions; the same ranges as tpl_plan() ([1, 256]; 0, 64, 128, 256). */
static void put_tmaps_fn(const struct exporter *x, FILE *f)
{
    const struct tpl *t = x->v.best_tpl;
    put_sizes_fn_head(x, f, "Tensor map boxes", "tmaps",
                      "unsigned kevo_box[][3]");
    for (int i = 0; i < t->n_tmaps; i++)
        for (int k = 0; k < 2; k++) {
            put_expr_value(f, "kevo_v", t->tmaps[i].box[k], "1");
            fprintf(f, "    if (kevo_v < 1 || kevo_v > 256) {\n        "
                       "*kevo_why = \"tensormap %s box out of range\";\n"
                       "        return 1;\n    }\n    kevo_box[%d][%d] = "
                       "(unsigned)kevo_v;\n",
                    t->tmaps[i].name, i, k);
            if (k == 1) {
                put_expr_value(f, "kevo_v", t->tmaps[i].l2, "256");
                fprintf(f, "    if (kevo_v != 0 && kevo_v != 64 && kevo_v != "
                           "128 && kevo_v != 256) {\n        *kevo_why = "
                           "\"tensormap %s l2 promotion not 0, 64, 128 or "
                           "256\";\n        return 1;\n    }\n    "
                           "kevo_box[%d][2] = (unsigned)kevo_v;\n",
                        t->tmaps[i].name, i);
            }
        }
    fprintf(f, "    return 0;\n}\n");
}

/* <base>_args_(): the template's int kernel arguments ("arg") for the
 * sizes, in order; the same range as tpl_plan() (an int). */
static void put_args_fn(const struct exporter *x, FILE *f)
{
    const struct tpl *t = x->v.best_tpl;
    put_sizes_fn_head(x, f, "Int kernel arguments", "args",
                      "int *kevo_args");
    for (int i = 0; i < t->n_args; i++) {
        put_expr_value(f, "kevo_v", t->args[i].e, "0");
        fprintf(f, "    if (kevo_v < -2147483647LL - 1 || kevo_v > "
                   "2147483647LL) {\n        *kevo_why = \"arg %s out of "
                   "range\";\n        return 1;\n    }\n    kevo_args[%d] = "
                   "(int)kevo_v;\n",
                t->args[i].name, i);
    }
    fprintf(f, "    return 0;\n}\n");
}

/*
 * A C/C++ function <base>_plan_() computing the launch plan from the
 * sizes and device facts with the template's own expressions (params are
 * macros: the C file defines them, the torch file has them from the
 * kernel source). Returns 0, or 1 with *why set.
 */
static void put_plan_fn(const struct exporter *x, FILE *f)
{
    const struct tpl *t = x->v.best_tpl;
    const struct problem *p = x->v.prob;
    static const char *const fns[] = {"cdiv", "min", "max", "log2", "ispow2",
                                      "align"};
    fprintf(f, "\nstruct %s_dims {\n    unsigned grid[3], block[3], "
               "cluster[3]; /* cluster[0] == 0: none */\n    unsigned smem;"
               " /* dynamic shared memory, bytes */\n    unsigned pdl; /* 1: "
               "may start before the launch in front ends (programmatic "
               "dependent launch) */\n};\n\n",
            x->base);
    fputs(launcher_text_plan_helpers, f);
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
        fprintf(f, "#pragma push_macro(\"%s\")\n#undef %s\n#define %s "
                   "kevo_%s_\n", fns[i], fns[i], fns[i], fns[i]);
    fprintf(f, "/* Launch plan for the sizes; 0, or 1 with *kevo_why. */\n"
               "static int %s_plan_(", x->base);
    for (int d = 0; d < p->n_dims; d++)
        fprintf(f, "long long %s, ", p->dim_names[d]);
    fprintf(f, "long long SMS, long long SMEM_OPTIN, long long L2_BYTES,\n"
               "        struct %s_dims *kevo_l, unsigned long long "
               "*kevo_ws_bytes, const char **kevo_why)\n{\n"
               "    long long kevo_v;\n"
               "    (void)SMS; (void)SMEM_OPTIN; (void)L2_BYTES;\n",
            x->base);
    for (int d = 0; d < p->n_dims; d++)
        fprintf(f, "    (void)%s;\n", p->dim_names[d]);
    for (int i = 0; i < t->n_requires; i++) {
        fprintf(f, "    if (!(%s)) {\n        *kevo_why = \"shape not "
                   "supported: requires ", expr_text(t->requires_[i].e));
        quote_c_string(f, expr_text(t->requires_[i].e));
        fprintf(f, "\";\n        return 1;\n    }\n");
    }
    /* the source was instantiated with the shape facts of the run's shape
     * (tpl.h "fact"): it is only right for shapes with the same values */
    int64_t fv[TPL_MAX_FACTS];
    char err[256];
    int n_facts = tpl_facts(t, x->v.best_vals, &x->v.spec.shape, fv, err,
                            sizeof err) ? 0 : t->n_facts; /* 0: not reached,
                                      the run's shape passed tpl_prepare */
    for (int i = 0; i < n_facts; i++) {
        fprintf(f, "    if ((long long)(%s) != %lldLL) {\n        *kevo_why = "
                   "\"shape not supported: the kernel was built for %s = "
                   "%lld (", expr_text(t->facts[i].e), (long long)fv[i],
                t->facts[i].name, (long long)fv[i]);
        quote_c_string(f, expr_text(t->facts[i].e));
        fprintf(f, ")\";\n        return 1;\n    }\n");
    }
    for (int i = 0; i < t->n_launches; i++) {
        const struct tpl_launch *ln = &t->launches[i];
        char lhs[64];
        for (int k = 0; k < 3; k++) {
            static const char *const part[] = {"grid", "block", "cluster"};
            for (int q = 0; q < 3; q++) {
                const struct expr *e = q == 0 ? ln->grid[k]
                                       : q == 1 ? ln->block[k]
                                                : ln->cluster[k];
                if (q == 2 && !ln->cluster[0]) {
                    fprintf(f, "    kevo_l[%d].cluster[%d] = 0;\n", i, k);
                    continue;
                }
                snprintf(lhs, sizeof lhs, "kevo_v");
                put_expr_value(f, lhs, e, "1");
                fprintf(f, "    if (kevo_v < 1 || kevo_v > 2147483647LL) {\n"
                           "        *kevo_why = \"%s %s out of range\";\n"
                           "        return 1;\n    }\n"
                           "    kevo_l[%d].%s[%d] = (unsigned)kevo_v;\n",
                        ln->kernel, part[q], i, part[q], k);
            }
        }
        put_expr_value(f, "kevo_v", ln->smem, "0");
        fprintf(f, "    if (kevo_v < 0 || kevo_v > SMEM_OPTIN) {\n        *kevo_why = \"%s "
                   "shared memory out of range\";\n        return 1;\n    }\n"
                   "    kevo_l[%d].smem = (unsigned)kevo_v;\n    kevo_l[%d].pdl = %d;\n",
                ln->kernel, i, i, ln->pdl);
    }
    put_expr_value(f, "kevo_v", t->workspace, "0");
    fprintf(f, "    *kevo_ws_bytes = kevo_v > 0 ? (unsigned long long)kevo_v : 0;\n"
               "    return 0;\n}\n");
    if (t->n_tmaps)
        put_tmaps_fn(x, f);
    if (t->n_args)
        put_args_fn(x, f);
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
        fprintf(f, "#pragma pop_macro(\"%s\")\n", fns[i]);
}

static void put_param_defines(const struct exporter *x, FILE *f)
{
    for (int i = 0; i < x->v.best_tpl->n_params; i++)
        fprintf(f, "#define %s %lld\n", x->v.best_tpl->params[i].name,
                (long long)x->v.best_vals[i]);
}

/* ---------------------------------------------------------------- cu */

static int write_cu(struct exporter *x, char *path, size_t cap)
{
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return KEVO_ENOMEM;
    fprintf(f, "/*\n");
    put_about(x, f, 0);
    fprintf(f, " *\n * Source: %s of the run, unchanged below (kevo's own "
               "headers inlined\n * where it includes them). Compile with "
               "NVRTC or nvcc for %s\n * (kevo used: -arch=%s -std=c++17).\n"
               " */\n",
            x->src_rel[0] ? x->src_rel : "(instantiated)", x->arch, x->arch);
    fputs(x->src_out, f);
    fclose(f);
    snprintf(path, cap, "%s/%s.cu", x->out, x->base);
    int rc = outputs_write_file(path, text);
    free(text);
    return rc;
}

/* ----------------------------------------------------------------- c */

static void put_c_header(const struct exporter *x, FILE *f)
{
    const char *b = x->base;
    fprintf(f, "/*\n * %s.h - launcher for the kernel kevo found; see %s.c."
               "\n *\n", b, b);
    put_about(x, f, 0);
    fprintf(f, " *\n * Use (CUDA driver API, link with -lcuda):\n"
               " *   %s_load(\"%s.cubin\");      once per context\n"
               " *   %s_launch(..., kevo_stream);   any number of times\n"
               " *   %s_unload();\n"
               " * Buffers are device pointers to row-major arrays, as in "
               "the signature.\n * The launch plan has %d launch%s"
               "%s; all run on kevo_stream, in order.\n"
               " * Workspace: pass kevo_ws = 0 and the launcher allocates one "
               "sized by the plan\n * (kept until _unload, shared by all "
               "calls: for concurrent launches on\n * several streams pass "
               "your own, %s_workspace_bytes() bytes).\n%s */\n",
            b, b, b, b, x->v.best_tpl->n_launches,
            x->v.best_tpl->n_launches == 1 ? "" : "es",
            x->v.best_tpl->workspace ? " and a workspace" : "", b,
            x->v.best_tpl->n_tmaps
                ? " * TMA tensor maps are encoded by _launch for the "
                  "buffers it is given.\n"
                : "");
    fprintf(f, "#ifndef %s_H\n#define %s_H\n\n#include <cuda.h>\n\n"
               "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", b, b);
    fprintf(f, "/* Loads the cubin file into the current context and "
               "reads the device facts\n * the plan uses. */\n"
               "CUresult %s_load(const char *cubin_path);\n"
               "/* Unloads it. */\nvoid %s_unload(void);\n", b, b);
    fprintf(f, "/* Bytes of workspace the launch needs for these sizes "
               "(0 = none). */\nunsigned long long %s_workspace_bytes(", b);
    for (int d = 0; d < x->v.prob->n_dims; d++)
        fprintf(f, "%sint %s", d ? ", " : "", x->v.prob->dim_names[d]);
    fprintf(f, ");\n/* Launches the kernel(s) on kevo_stream. "
               "CUDA_ERROR_INVALID_VALUE if the\n * template does not support "
               "the sizes (see %s_last_error()). kevo_ws = 0: the\n * launcher's "
               "own workspace. */\n"
               "CUresult %s_launch(", b, b);
    put_signature(x, f, "CUdeviceptr", "CUdeviceptr");
    fprintf(f, "CUdeviceptr kevo_ws,\n                   CUstream kevo_stream);\n"
               "/* Why the last call failed, or \"\". */\n"
               "const char *%s_last_error(void);\n\n"
               "#ifdef __cplusplus\n}\n#endif\n\n#endif\n", b);
}

/*
 * Code that encodes tensor map i into kevo_tm[i] as the harness does (the
 * one encoding of core/tmap.h, with the sizes as the launcher's
 * arguments), with kevo_box[i] from <base>_tmaps_() (its L2 promotion in
 * kevo_box[i][2], chosen at run time). fn is the encode function (cuTensorMapEncodeTiled or a
 * pointer to it), ptr how to get buffer b's address ("%s" = its name),
 * fail the statement run with a message on failure.
 */
static void put_tmap_encode(const struct exporter *x, FILE *f, int i,
                            const char *fn, const char *ptr, const char *fail)
{
    const struct tpl_tmap *m = &x->v.best_tpl->tmaps[i];
    const struct problem *p = x->v.prob;
    const struct buf_desc *b = &x->bufs[m->buf];
    char addr[160], msg[256];
    snprintf(addr, sizeof addr, ptr, b->name);
    snprintf(msg, sizeof msg, "\"cannot encode tensor map %s of %s\"",
             m->name, b->name);
    const struct tmap_opt *sw = tmap_swizzle(m->swizzle); /* tpl.c checked */
    const char *rows = p->dim_names[x->dim[m->buf][0]],
               *cols = p->dim_names[x->dim[m->buf][1]];
    fprintf(f, "    {\n        cuuint64_t kevo_dims[%d] = {(cuuint64_t)%s, "
               "(cuuint64_t)%s};\n"
               "        cuuint64_t kevo_stride[%d] = {(cuuint64_t)%s * %zu};\n"
               "        cuuint32_t kevo_step[%d] = {1, 1};\n"
               "        CUresult kevo_er = %s(&kevo_tm[%d], %s, %d, %s, "
               "kevo_dims, kevo_stride, kevo_box[%d], kevo_step,\n"
               "            %s, %s,\n            ",
            TMAP_RANK, cols, rows, TMAP_RANK - 1, cols, dtype_size(b->dtype),
            TMAP_RANK, fn, i, tmap_data_type(b->dtype)->name, TMAP_RANK, addr,
            i, TMAP_INTERLEAVE_NAME, sw ? sw->name : tmap_swizzle(0)->name);
    const struct tmap_opt *l2;
    for (int k = 0; (l2 = tmap_l2_at(k)) && tmap_l2_at(k + 1); k++)
        fprintf(f, "kevo_box[%d][2] == %d ? %s\n            : ", i, l2->bytes,
                l2->name);
    fprintf(f, "%s,\n            %s);\n        if (kevo_er != CUDA_SUCCESS) "
               "{\n", l2->name, TMAP_OOB_FILL_NAME);
    fprintf(f, fail, msg);
    fprintf(f, "\n        }\n    }\n");
}

static void put_c_source(const struct exporter *x, FILE *f)
{
    const char *b = x->base;
    const struct tpl *t = x->v.best_tpl;
    const struct problem *p = x->v.prob;
    fprintf(f, "/*\n * %s.c - loads %s.cubin (compiled by kevo export "
               "with NVRTC: -arch=%s\n * -std=c++17) and launches it "
               "with the template's launch plan.\n */\n"
               "#include \"%s.h\"\n\n#include <stddef.h>\n"
               "#include <stdint.h>\n\n",
            b, b, x->arch, b);
    put_param_defines(x, f);
    put_plan_fn(x, f);
    fprintf(f, "\n#define KEVO_N_LAUNCH %d\nstatic const char *const "
               "kevo_kernel_names[KEVO_N_LAUNCH] = {", t->n_launches);
    for (int i = 0; i < t->n_launches; i++)
        fprintf(f, "%s\"%s\"", i ? ", " : "", t->launches[i].kernel);
    fprintf(f, "};\n%s", launcher_text_c_state);
    fprintf(f, "const char *%s_last_error(void)\n{\n    return kevo_last_error;"
               "\n}\n\n", b);
    fprintf(f, "CUresult %s_load(const char *cubin_path)\n%s", b,
            launcher_text_c_load_body);
    fprintf(f, "void %s_unload(void)\n%s", b, launcher_text_c_unload_body);
    fprintf(f, "unsigned long long %s_workspace_bytes(", b);
    for (int d = 0; d < p->n_dims; d++)
        fprintf(f, "%sint %s", d ? ", " : "", p->dim_names[d]);
    fprintf(f, ")\n{\n    struct %s_dims kevo_l[KEVO_N_LAUNCH];\n"
               "    unsigned long long kevo_ws = 0;\n    const char *kevo_why;\n"
               "    if (%s_plan_(", b, b);
    put_sizes_call(x, f, C_DEVICE_FACTS);
    fprintf(f, "kevo_l, &kevo_ws, &kevo_why))\n        return 0;"
               "\n    return kevo_ws;\n}\n\n");
    fprintf(f, "CUresult %s_launch(", b);
    put_signature(x, f, "CUdeviceptr", "CUdeviceptr");
    fprintf(f, "CUdeviceptr kevo_ws,\n                   CUstream kevo_stream)\n{\n"
               "    struct %s_dims kevo_l[KEVO_N_LAUNCH];\n"
               "    unsigned long long kevo_ws_bytes = 0;\n    CUresult kevo_r;\n"
               "    if (!kevo_module) {\n        kevo_last_error = \"%s_load() was "
               "not called\";\n        return CUDA_ERROR_NOT_INITIALIZED;\n"
               "    }\n    if (%s_plan_(",
            b, b, b);
    put_sizes_call(x, f, C_DEVICE_FACTS);
    fprintf(f, "kevo_l, &kevo_ws_bytes, &kevo_last_error))\n"
               "        return CUDA_ERROR_INVALID_VALUE;\n%s",
            launcher_text_c_ws_grow);
    if (t->n_tmaps) {
        fprintf(f, "    CUtensorMap kevo_tm[%d];\n    unsigned kevo_box[%d][3];\n"
                   "    if (%s_tmaps_(", t->n_tmaps, t->n_tmaps, b);
        put_sizes_call(x, f, C_DEVICE_FACTS);
        fprintf(f, "kevo_box, &kevo_last_error))\n"
                   "        return CUDA_ERROR_INVALID_VALUE;\n");
        for (int i = 0; i < t->n_tmaps; i++)
            put_tmap_encode(x, f, i, "cuTensorMapEncodeTiled",
                            "(void *)(uintptr_t)%s",
                            "            kevo_last_error = %s;\n"
                            "            return kevo_er;");
    }
    if (t->n_args) {
        fprintf(f, "    int kevo_ia[%d];\n    if (%s_args_(", t->n_args, b);
        put_sizes_call(x, f, C_DEVICE_FACTS);
        fprintf(f, "kevo_ia, &kevo_last_error))\n"
                   "        return CUDA_ERROR_INVALID_VALUE;\n");
    }
    fprintf(f, "    void *kevo_args[] = {");
    for (int i = 0; i < x->n_bufs; i++)
        fprintf(f, "&%s, ", x->bufs[i].name);
    for (int d = 0; d < p->n_dims; d++)
        fprintf(f, "&%s, ", p->dim_names[d]);
    fprintf(f, "&kevo_ws");
    for (int i = 0; i < t->n_tmaps; i++)
        fprintf(f, ", &kevo_tm[%d]", i);
    for (int i = 0; i < t->n_args; i++)
        fprintf(f, ", &kevo_ia[%d]", i);
    fprintf(f, "};\n%s", launcher_text_c_launch_loop);
}

static int write_text_file(const char *path, void (*put)(
                                                 const struct exporter *,
                                                 FILE *),
                           const struct exporter *x)
{
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return KEVO_ENOMEM;
    put(x, f);
    fclose(f);
    int rc = outputs_write_file(path, text);
    free(text);
    return rc;
}

static int write_c(struct exporter *x, char *err, size_t errcap)
{
    char path[4096], name[128];
    struct jit_output o;
    snprintf(name, sizeof name, "%s.cu", x->base);
    if (!x->quiet)
        fprintf(stderr, "kevo export: compiling with NVRTC %s for %s\n",
                jit_nvrtc_version(), x->arch);
    int rc = jit_compile(x->src, name, x->arch, &o);
    if (!rc && !o.ok) {
        snprintf(err, errcap, "NVRTC rejected the winner's source: %.300s",
                 o.log ? o.log : "");
        rc = KEVO_ECOMPILE;
    } else if (rc) {
        snprintf(err, errcap, "NVRTC failed: %.300s", o.log ? o.log : "");
    }
    if (!rc) {
        snprintf(path, sizeof path, "%s/%s.cubin", x->out, x->base);
        FILE *f = fs_fopen_write(path, &rc);
        if (f) {
            fwrite(o.cubin, 1, o.cubin_len, f);
            rc = fs_close_written(f);
        }
        if (rc) {
            snprintf(err, errcap, "cannot write '%s': %s", path,
                     kevo_strerror(rc));
        } else {
            cJSON_AddStringToObject(x->json, "cubin", path);
        }
    }
    jit_output_release(&o);
    if (rc)
        return rc;
    snprintf(path, sizeof path, "%s/%s.h", x->out, x->base);
    if (!(rc = write_text_file(path, put_c_header, x)))
        cJSON_AddStringToObject(x->json, "header", path);
    snprintf(path + strlen(path) - 1, 3, "c");
    if (!rc && !(rc = write_text_file(path, put_c_source, x)))
        cJSON_AddStringToObject(x->json, "c_source", path);
    if (rc)
        snprintf(err, errcap, "cannot write '%s': %s", path,
                 kevo_strerror(rc));
    return rc;
}


/* ------------------------------------------------------------ driver */

static const char export_usage[] =
    "usage: kevo export <run-dir> [--format cu|c|torch|kernelbench|all]\n"
    "                   [--out DIR] [--arch sm_XX] [--no-sanitize]\n"
    "                   [--sanitizer-path PATH] [--json] [--quiet]\n"
    "\n"
    "Writes the winning kernel of a run to DIR (default <run-dir>/export/):\n"
    "  cu     kevo_<problem>.cu: the exact source the run measured, with a\n"
    "         comment block giving the signature and the launch plan\n"
    "  c      kevo_<problem>.h/.c: a CUDA driver-API launcher\n"
    "         (kevo_<problem>_load/_launch/_workspace_bytes) that computes\n"
    "         the launch plan for any sizes, and kevo_<problem>.cubin\n"
    "         compiled now by NVRTC with the run's options\n"
    "  torch  the c files, libkevo_<problem>.so (the launcher, built with\n"
    "         $CC or cc), kevo_<problem>.py: a PyTorch custom operator\n"
    "         torch.ops.kevo.<problem>_<genome>(inputs...) -> new output(s),\n"
    "         traceable by torch.compile, no nvcc at run time (torch >= 2.4),\n"
    "         and kevo_<problem>_kernelbench.py (KernelBench's ModelNew; for\n"
    "         a PyTorch problem a subclass of its Model, whose module is\n"
    "         copied as kevo_<problem>_reference.py). A PyTorch problem's op\n"
    "         takes its inputs, then its parameters and buffers, any rank\n"
    "         and dtype; a size no input has is fixed at the run's value\n"
    "  kernelbench  the same as torch\n"
    "  all    all of them (default: cu)\n"
    "--arch overrides the target (default: the run's, else sm_90a).\n"
    "Needs no GPU, but a winner whose record in <run-dir>/sanitize.json\n"
    "(kevo verify --sanitize) has a finding is refused; an LLM-born winner\n"
    "without a record is sanitized first where a GPU and compute-sanitizer\n"
    "are there (a warning otherwise). --no-sanitize skips both;\n"
    "--sanitizer-path PATH names compute-sanitizer.\n";

/* "sm_" digits and at most one lower-case letter: the arch reaches NVRTC,
 * comments and Python strings, so nothing else passes. */
static int arch_ok(const char *a)
{
    if (strncmp(a, "sm_", 3) || !isdigit((unsigned char)a[3]))
        return 0;
    for (a += 3; isdigit((unsigned char)*a); a++)
        ;
    return !*a || (islower((unsigned char)a[0]) && !a[1]);
}

static int setup(struct exporter *x, const char *out, const char *arch,
                 char *err, size_t errcap)
{
    const struct run_view *v = &x->v;
    if (!v->has_best) {
        snprintf(err, errcap, "run '%s' has no winner: no evaluation passed "
                 "the checks", v->dir);
        return KEVO_ENOENT;
    }
    const cJSON *ea = run_view_env(v, "arch");
    snprintf(x->arch, sizeof x->arch, "%s",
             arch ? arch
             : v->spec.arch[0] ? v->spec.arch
             : cJSON_IsString(ea) ? ea->valuestring : "sm_90a");
    if (!arch_ok(x->arch)) {
        char q[64];
        snprintf(err, errcap, "%s '%s': expected sm_<digits>[a]",
                 arch ? "--arch" : "the run's arch (manifest.json)",
                 quote_term(x->arch, q, sizeof q));
        return KEVO_EINVAL;
    }
    snprintf(x->base, sizeof x->base, "kevo_%s", v->prob->name);
    int rc = out ? (snprintf(x->out, sizeof x->out, "%s", out) >=
                    (int)sizeof x->out ? KEVO_EINVAL : KEVO_OK)
                 : fs_join(x->out, sizeof x->out, v->dir, "export");
    if (!rc && (rc = fs_mkdirs(x->out)))
        snprintf(err, errcap, "cannot create '%s': %s", x->out,
                 kevo_strerror(rc));
    if (rc)
        return rc;
    if (!(x->src = run_view_source(v, x->src_rel, sizeof x->src_rel)) ||
        !(x->src_out = kvhdr_inline(x->src)))
        return KEVO_ENOMEM;
    map_dims(x);
    return KEVO_OK;
}

/* The C and torch launchers encode a tensor map from the buffer's rows
 * and cols as sizes of the problem; refused (naming why) when a mapped
 * buffer has none. */
static int tensormaps(const struct exporter *x, char *err, size_t errcap)
{
    const struct tpl *t = x->v.best_tpl;
    for (int i = 0; i < t->n_tmaps; i++) {
        int b = t->tmaps[i].buf;
        if (b < 0 || b >= x->n_bufs || x->dim[b][0] < 0 || x->dim[b][1] < 0) {
            snprintf(err, errcap, "template '%s' passes TMA tensor map '%s' "
                     "of buffer '%s', whose rows and cols are not sizes of "
                     "problem '%s', so the C and torch launchers cannot "
                     "encode it for other shapes (use --format cu)", t->name,
                     t->tmaps[i].name, b >= 0 && b < x->n_bufs
                                           ? x->bufs[b].name : "?",
                     x->v.prob->name);
            return KEVO_EINVAL;
        }
    }
    return KEVO_OK;
}

static int export_run(struct exporter *x, const char *dir, const char *out,
                      const char *arch, int all, char *err, size_t errcap)
{
    char path[4096];
    int rc = run_view_load(dir, &x->v, err, errcap);
    if (!rc && (rc = sanitize_gate(&x->v, x->sanitize, &x->san, err,
                                   errcap)) == KEVO_ENODEV) {
        fprintf(stderr, "kevo export: warning: %s\n", err);
        err[0] = '\0';
        rc = KEVO_OK; /* export needs no GPU: say so, go on */
    }
    if (!rc)
        rc = setup(x, out, arch, err, errcap);
    if (rc)
        return rc;
    cJSON_AddStringToObject(x->json, "run", dir);
    cJSON_AddStringToObject(x->json, "out", x->out);
    cJSON_AddStringToObject(x->json, "arch", x->arch);
    cJSON_AddStringToObject(x->json, "template", x->v.best_tpl->name);
    cJSON_AddStringToObject(x->json, "hash", x->v.best_hex);
    if (all || x->fmt == FMT_CU) {
        if ((rc = write_cu(x, path, sizeof path))) {
            snprintf(err, errcap, "cannot write '%s': %s", path,
                     kevo_strerror(rc));
            return rc;
        }
        cJSON_AddStringToObject(x->json, "cu", path);
    }
    if ((all || x->fmt != FMT_CU) && (rc = tensormaps(x, err, errcap)))
        return rc;
    if ((all || x->fmt != FMT_CU) && (rc = write_c(x, err, errcap)))
        return rc;
    if ((all || x->fmt == FMT_TORCH) && (rc = export_torch_write(x, err, errcap)))
        return rc;
    return KEVO_OK;
}

static int parse_fmt(const char *s, enum fmt *f, int *all)
{
    *all = !strcmp(s, "all");
    int torch = !strcmp(s, "torch") || !strcmp(s, "kernelbench");
    *f = !strcmp(s, "c") ? FMT_C : torch ? FMT_TORCH : FMT_CU;
    return *all || !strcmp(s, "c") || torch || !strcmp(s, "cu")
               ? 0
               : -1;
}

int cmd_export_main(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL, *arch = NULL;
    int json = 0, all = 0;
    struct exporter *x = calloc(1, sizeof *x);
    if (!x || !(x->json = cJSON_CreateObject())) {
        free(x);
        fprintf(stderr, "kevo export: out of memory\n");
        return EXIT_ERROR;
    }
    int rc = EXIT_DONE;
    for (int i = 1; i < argc && rc == EXIT_DONE; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(export_usage, stdout);
            rc = -1;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--quiet")) {
            x->quiet = 1;
        } else if (!strcmp(argv[i], "--no-sanitize")) {
            x->sanitize = -1;
        } else if (!strcmp(argv[i], "--sanitizer-path") && i + 1 < argc) {
            x->san.sanitizer = argv[++i];
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--arch") && i + 1 < argc) {
            arch = argv[++i];
        } else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            if (parse_fmt(argv[++i], &x->fmt, &all)) {
                fprintf(stderr, "kevo export: unknown format '%s' (cu, c, "
                        "torch, kernelbench or all)\n", argv[i]);
                rc = EXIT_USAGE;
            }
        } else if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "kevo export: unexpected argument '%s' (see "
                    "--help)\n", argv[i]);
            rc = EXIT_USAGE;
        } else {
            dir = argv[i];
        }
    }
    if (rc == EXIT_DONE && !dir) {
        fprintf(stderr, "kevo export: expected a run directory (see "
                "--help)\n");
        rc = EXIT_USAGE;
    }
    if (rc == EXIT_DONE) {
        char err[1024] = "";
        int r = export_run(x, dir, out, arch, all, err, sizeof err);
        if (r) {
            fprintf(stderr, "kevo export: %s\n",
                    err[0] ? err : kevo_strerror(r));
            rc = EXIT_ERROR;
        } else if (json) {
            outputs_print_json(x->json);
        } else if (!x->quiet) {
            fprintf(stderr, "kevo export: wrote to '%s'\n", x->out);
        }
    }
    free(x->src);
    free(x->src_out);
    run_view_release(&x->v);
    cJSON_Delete(x->json);
    free(x);
    return rc < 0 ? EXIT_DONE : rc;
}
