/*
 * llm_facts.c - what the LLM prompts say (see llm_facts.h): the problem,
 * its ABI and sizes, the dtype prelude, the GPU, the state of the search,
 * and each parent's text, point and measurements, formatted for a reader
 * who tunes kernels. Wording around these facts lives in the prompt files.
 */
#include "llm_facts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvhdr.h"
#include "progress.h"
#include "record.h"

#define EVIDENCE_MAX 6000 /* characters of evidence JSON in a prompt */

/* ---- formatting helpers */

static void fmt_time(double ns, char *out, size_t cap)
{
    if (ns >= 1e6)
        snprintf(out, cap, "%.4g ms", ns / 1e6);
    else if (ns >= 1e3)
        snprintf(out, cap, "%.4g us", ns / 1e3);
    else
        snprintf(out, cap, "%.4g ns", ns);
}

static void fmt_bytes(double b, char *out, size_t cap)
{
    if (b >= 1 << 30)
        snprintf(out, cap, "%.3g GiB", b / (1 << 30));
    else if (b >= 1 << 20)
        snprintf(out, cap, "%.3g MiB", b / (1 << 20));
    else if (b >= 1 << 10)
        snprintf(out, cap, "%.3g KiB", b / (1 << 10));
    else
        snprintf(out, cap, "%.0f B", b);
}

/* "M=4096, N=4096, K=4096" */
static void set_shape(struct prompt_vars *pv, const struct llm_prompt_ctx *c)
{
    struct prompt_buf b, names;
    prompt_buf_init(&b, 0);
    prompt_buf_init(&names, 0);
    for (int i = 0; i < c->problem->n_dims; i++) {
        prompt_buf_addf(&b, "%s%s=%lld", i ? ", " : "",
                        c->problem->dim_names[i], (long long)c->shape->d[i]);
        prompt_buf_addf(&names, "%s%s", i ? ", " : "",
                        c->problem->dim_names[i]);
    }
    prompt_vars_take(pv, "SHAPE", prompt_buf_take(&b));
    prompt_vars_take(pv, "SIZE_NAMES", prompt_buf_take(&names));
}

/* One line per buffer, and the names in ABI order. */
static void set_buffers(struct prompt_vars *pv, const struct llm_prompt_ctx *c)
{
    struct buf_desc bufs[PROB_MAX_BUFS];
    int n = c->problem->buffers(c->problem, c->shape, c->dtype, bufs);
    struct prompt_buf b, names, tm;
    prompt_buf_init(&b, 0);
    prompt_buf_init(&names, 0);
    prompt_buf_init(&tm, 0);
    for (int i = 0; i < n; i++) {
        char sz[32];
        fmt_bytes((double)bufs[i].n_elems * (double)dtype_size(bufs[i].dtype),
                  sz, sizeof sz);
        prompt_buf_addf(&b, "%s  - %s: %s, %lld elements of %s (%s)",
                        i ? "\n" : "", bufs[i].name,
                        bufs[i].role == BUF_IN    ? "input (read only)"
                        : bufs[i].role == BUF_OUT ? "output"
                                                  : "input and output (read, "
                                                    "then overwritten in "
                                                    "place with the result)",
                        (long long)bufs[i].n_elems, dtype_name(bufs[i].dtype),
                        sz);
        prompt_buf_addf(&names, "%s%s", i ? ", " : "", bufs[i].name);
        /* a tensor map needs a 2-D shape (tpl.c refuses the others) */
        if (bufs[i].rows > 0 && bufs[i].cols > 0)
            prompt_buf_addf(&tm, "%s%s: %lld x %lld", tm.len ? ", " : "",
                            bufs[i].name, (long long)bufs[i].rows,
                            (long long)bufs[i].cols);
    }
    if (!tm.len)
        prompt_buf_addf(&tm, "none here: no buffer of this problem has a "
                             "2-D shape, so this problem takes no tensor map");
    prompt_vars_take(pv, "BUFFERS", prompt_buf_take(&b));
    prompt_vars_take(pv, "BUFFER_NAMES", prompt_buf_take(&names));
    prompt_vars_take(pv, "TMAP_BUFFERS", prompt_buf_take(&tm));
}

/* Work per call, the FLOPs and minimum bytes, and their ratio. */
static void set_work(struct prompt_vars *pv, const struct llm_prompt_ctx *c)
{
    const struct problem *p = c->problem;
    double work = p->work(p, c->shape, c->dtype);
    double flops = p->flops ? p->flops(p, c->shape, c->dtype) : 0;
    double bytes = p->min_bytes ? p->min_bytes(p, c->shape, c->dtype) : 0;
    double ai = bytes > 0 ? flops / bytes : 0;
    char sz[32];
    fmt_bytes(bytes, sz, sizeof sz);
    if (!strcmp(p->work_unit, "B/s"))
        prompt_vars_setf(pv, "WORK",
                         "%.4g bytes per call (inputs read once and outputs "
                         "written once: the minimum DRAM traffic); about "
                         "%.3g FLOP, %.2g FLOP per byte: memory-bound",
                         work, flops, ai);
    else
        prompt_vars_setf(pv, "WORK",
                         "%.4g FLOP per call; at least %s of DRAM traffic "
                         "(inputs read once, outputs written once), so at "
                         "most %.3g FLOP per byte",
                         work, sz, ai);
}

/* "41.2 TFLOP/s", or none when v <= 0. */
static void set_fitness(struct prompt_vars *pv, const char *name, double v,
                        const char *unit, const char *none)
{
    char f[64];
    if (!(v > 0) || !isfinite(v)) {
        prompt_vars_set(pv, name, none);
        return;
    }
    progress_fmt_fitness(v, unit, f, sizeof f);
    prompt_vars_set(pv, name, f);
}

/* 1 when the main baseline is a copy and the problem counts other work
 * (FLOP): its rate is bytes/s, and no ratio of work rates is meaningful. */
static int copy_vs_work(const struct llm_prompt_ctx *c)
{
    return c->baseline_name && !strcmp(c->baseline_name, "copy") &&
           c->baseline_ns > 0 && strcmp(c->problem->work_unit, "B/s");
}

/* "out0: |out - ref| <= A + R * |ref| (NOTE); out1: ..." (how ==
 * "<="), or "out0 within atol A + rtol R * |ref| (NOTE); ..." (how ==
 * "within") when p has a tolerance per output and several outputs
 * (problem.h out_tolerance); 0, writing nothing, otherwise. */
static int per_output_tolerance(const struct llm_prompt_ctx *c,
                                const char *how, char *out, size_t cap)
{
    const struct problem *p = c->problem;
    const char *names[PROB_MAX_BUFS];
    int n = p->out_tolerance ? problem_outputs(p, c->shape, c->dtype, names)
                             : 0;
    size_t at = 0;
    if (n < 2)
        return 0;
    out[0] = '\0';
    for (int k = 0; k < n && at < cap; k++) {
        struct out_tol t;
        problem_out_tolerance(p, c->shape, c->dtype, k, &t);
        at += (size_t)snprintf(out + at, cap - at, !strcmp(how, "<=")
                               ? "%s%s: |out - ref| <= %.3g + %.3g * |ref|"
                               : "%s%s within atol %.3g + rtol %.3g * |ref|",
                               k ? "; " : "", names[k], t.atol, t.rtol);
        if (at < cap && t.note && *t.note)
            at += (size_t)snprintf(out + at, cap - at, " (%s)", t.note);
    }
    return 1;
}

/* A PyTorch module: its source is the statement, then the tolerance
 * the worker calibrated (or the user gave), per output when it has
 * several. */
static void set_torch_summary(struct prompt_vars *pv,
                              const struct llm_prompt_ctx *c)
{
    const struct problem *p = c->problem;
    double atol = 0, rtol = 0;
    char tol[2048] = "", each[1900];
    p->tolerance(p, c->shape, c->dtype, &atol, &rtol);
    if (per_output_tolerance(c, "within", each, sizeof each))
        snprintf(tol, sizeof tol, "\n\ntolerance, per output: %s", each);
    else if (p->tolerance_note && *p->tolerance_note)
        snprintf(tol, sizeof tol, "\n\ntolerance: every output element "
                 "within atol %.3g + rtol %.3g * |ref| (%s)", atol, rtol,
                 p->tolerance_note);
    prompt_vars_setf(pv, "SUMMARY", "%s\n\nThe kernel implements this "
                     "module's forward. The harness draws the inputs "
                     "with get_inputs() (the module's parameters and "
                     "buffers are inputs too, in the ABI's order), runs "
                     "the module in float64 on exactly the values the "
                     "kernel read, and checks every output element:"
                     "\n\n```python\n%s```%s", p->summary, p->description,
                     tol);
}

static void set_common(struct prompt_vars *pv, const struct llm_prompt_ctx *c)
{
    const struct problem *p = c->problem;
    prompt_vars_set(pv, "PROBLEM", p->name);
    if (p->reference_src) /* a user problem: its words and its reference */
        prompt_vars_setf(pv, "SUMMARY", "%s\n\n%s%sThe harness checks "
                         "every output element against this fp64 reference "
                         "(trusted code from the problem's file; it gets "
                         "the exact fp64 values of the inputs the kernel "
                         "read, then the sizes):\n\n```cuda\n%s```",
                         p->summary, p->description ? p->description : "",
                         p->description ? "\n" : "", p->reference_src);
    else if (p->file_text && p->description == p->file_text) /* PyTorch */
        set_torch_summary(pv, c);
    else
        prompt_vars_set(pv, "SUMMARY", p->summary);
    prompt_vars_set(pv, "ABI", p->abi);
    prompt_vars_set(pv, "WORK_UNIT", p->work_unit);
    prompt_vars_set(pv, "DTYPE", dtype_name(c->dtype));
    prompt_vars_set(pv, "PRELUDE", p->prelude(p, c->dtype));
    prompt_vars_set(pv, "GPU_FACTS",
                    c->gpu_facts && *c->gpu_facts ? c->gpu_facts
                                                  : "(not given)");
    double atol = 0, rtol = 0;
    char each[1900];
    p->tolerance(p, c->shape, c->dtype, &atol, &rtol);
    if (per_output_tolerance(c, "<=", each, sizeof each))
        prompt_vars_setf(pv, "TOLERANCE", "the bound of its output, %s",
                         each);
    else if (p->error_tol) /* per-element scale: GEMM ||A row|| * ||B column|| */
        prompt_vars_setf(pv, "TOLERANCE",
                         "|out - ref| <= %.3g + %.3g * |ref| "
                         "+ %.3g * ||A[i,:]|| * ||B[:,j]||",
                         atol, rtol, p->error_tol(p, c->shape, c->dtype));
    else if (p->tolerance_note && *p->tolerance_note) /* calibrated */
        prompt_vars_setf(pv, "TOLERANCE", "|out - ref| <= %.3g + %.3g * |ref| "
                         "(%s)", atol, rtol, p->tolerance_note);
    else
        prompt_vars_setf(pv, "TOLERANCE", "|out - ref| <= %.3g + %.3g * |ref|",
                         atol, rtol);
    set_shape(pv, c);
    set_buffers(pv, c);
    set_work(pv, c);
    if (copy_vs_work(c)) { /* bytes/s; compared by time only */
        double bytes = p->min_bytes ? p->min_bytes(p, c->shape, c->dtype) : 0;
        char t[32], f[64];
        fmt_time(c->baseline_ns, t, sizeof t);
        prompt_vars_setf(pv, "BASELINE", "a device copy of the problem's "
                         "%.4g MB (inputs read once, outputs written once) "
                         "in %s = %.4g GB/s; a copy does no arithmetic, so "
                         "it is a floor on the time, not a %s rate",
                         bytes / 1e6, t, bytes / c->baseline_ns, p->work_unit);
        if (c->best_fitness > 0) {
            double work = p->work(p, c->shape, c->dtype);
            progress_fmt_fitness(c->best_fitness, p->work_unit, f, sizeof f);
            fmt_time(work / c->best_fitness * 1e9, t, sizeof t);
            prompt_vars_setf(pv, "BEST", "%s (%s per call, %.2fx the copy's "
                             "time)", f, t,
                             work / c->best_fitness * 1e9 / c->baseline_ns);
        } else {
            prompt_vars_set(pv, "BEST", "none yet (nothing measured correct "
                            "so far)");
        }
        return;
    }
    set_fitness(pv, "BASELINE", c->baseline_fitness, p->work_unit, "unknown");
    if (c->baseline_name && *c->baseline_name && c->baseline_fitness > 0) {
        char f[64];
        progress_fmt_fitness(c->baseline_fitness, p->work_unit, f, sizeof f);
        prompt_vars_setf(pv, "BASELINE", "%s (%s)", f, c->baseline_name);
    }
    if (c->best_fitness > 0 && c->baseline_fitness > 0) {
        char f[64];
        progress_fmt_fitness(c->best_fitness, p->work_unit, f, sizeof f);
        prompt_vars_setf(pv, "BEST", "%s (%.2fx the baseline)", f,
                         c->best_fitness / c->baseline_fitness);
    } else {
        set_fitness(pv, "BEST", c->best_fitness, p->work_unit,
                    "none yet (nothing measured correct so far)");
    }
}

/* ---- parents */

static const char *const outcome_meaning[EVAL_OUTCOME_COUNT] = {
    [EVAL_OK] = "correct and timed",
    [EVAL_COMPILE_ERROR] =
        "NVRTC rejected the source, or the compiled kernel cannot launch as "
        "planned (too many registers or too much shared memory for the "
        "block, or a source policy rule)",
    [EVAL_WRONG] = "the output differs from the fp64 reference by more than "
                   "the tolerance",
    [EVAL_CRASHED] = "the kernel faulted (illegal or misaligned address, "
                     "trap, illegal instruction)",
    [EVAL_TIMEOUT] = "the kernel did not finish before the watchdog (a "
                     "hang, a barrier not reached by every thread, or far "
                     "too slow)",
    [EVAL_CHEAT] = "the harness caught a rule violation: an input written, "
                   "memory outside the buffers touched, output bits that "
                   "change between identical calls without `// kevo: "
                   "nondeterministic`, or a time faster than physically "
                   "possible",
    [EVAL_UNSUPPORTED] = "the template does not support the run's shape at "
                         "this point (a `requires` fails or the launch plan "
                         "is out of range)",
};

/* "BM=128 BN=64 ..." */
static char *point_text(const struct tpl *t, const int64_t *vals)
{
    struct prompt_buf b;
    prompt_buf_init(&b, 0);
    if (t->n_params == 0)
        prompt_buf_adds(&b, "(the template has no parameters)");
    for (int i = 0; i < t->n_params; i++)
        prompt_buf_addf(&b, "%s%s=%lld", i ? " " : "", t->params[i].name,
                        (long long)vals[i]);
    return prompt_buf_take(&b);
}

/* The evaluated launch plan at the parent's point, or why it fails. */
static void add_plan(struct prompt_buf *b, const struct llm_prompt_ctx *c,
                     const struct llm_parent *par)
{
    struct launch_plan lp;
    char why[256];
    if (tpl_plan(par->tpl, par->vals, c->shape, NULL, &lp, why, sizeof why)) {
        prompt_buf_addf(b, "\n- launch plan: does not evaluate: %s", why);
        return;
    }
    for (int i = 0; i < lp.n; i++) {
        const struct launch_dims *d = &lp.l[i];
        prompt_buf_addf(b,
                        "\n- launch %d: %s, grid (%u, %u, %u), block (%u, "
                        "%u, %u), %u bytes of dynamic shared memory",
                        i + 1, d->kernel, d->grid[0], d->grid[1], d->grid[2],
                        d->block[0], d->block[1], d->block[2], d->smem_bytes);
        if (d->cluster[0])
            prompt_buf_addf(b, ", cluster (%u, %u, %u)", d->cluster[0],
                            d->cluster[1], d->cluster[2]);
    }
    if (lp.workspace_bytes)
        prompt_buf_addf(b, "\n- workspace: %llu bytes",
                        (unsigned long long)lp.workspace_bytes);
}

static void add_timing(struct prompt_buf *b, const struct eval_result *r,
                       const struct llm_prompt_ctx *c)
{
    const char *unit = c->problem->work_unit;
    char med[32], mn[32], fit[64];
    fmt_time(r->median_ns, med, sizeof med);
    fmt_time(r->min_ns, mn, sizeof mn);
    progress_fmt_fitness(r->fitness, unit, fit, sizeof fit);
    prompt_buf_addf(b,
                    "\n- median time: %s per call (min %s; spread p10-p90 "
                    "%.1f%% over %d timed repetitions%s)",
                    med, mn, 100 * r->spread, r->reps,
                    r->cascaded ? "; timing stopped early because it was "
                                  "clearly slower than the best"
                                : "");
    prompt_buf_addf(b, "\n- throughput: %s", fit);
    if (copy_vs_work(c))
        prompt_buf_addf(b, "; its time is %.2fx the copy baseline's",
                        r->median_ns / c->baseline_ns);
    else if (r->ratio > 0)
        prompt_buf_addf(b, " = %.3fx the main baseline", r->ratio);
    if (r->roofline > 0)
        prompt_buf_addf(b, "; %.1f%% of the speed of light (roofline)",
                        100 * r->roofline);
}

/* Resources of every launch, from the evidence (worker.c
 * "launch_resources"); 0 when the evidence has none. */
static int add_launch_resources(struct prompt_buf *b,
                                const struct eval_result *r)
{
    cJSON *e = r->evidence_json ? cJSON_Parse(r->evidence_json) : NULL;
    const cJSON *lr = cJSON_GetObjectItemCaseSensitive(e, "launch_resources"),
                *l;
    int n = 0;
    cJSON_ArrayForEach(l, lr)
    {
        const char *k = record_str(l, "kernel"),
                   *lim = record_str(l, "occupancy_limiter");
        int blocks = (int)record_num(l, "blocks_per_sm", 0);
        prompt_buf_addf(b, "\n- resources of launch %d (%s): %.0f "
                        "registers/thread, %.0f bytes of shared memory/block, "
                        "%.0f threads/block; occupancy %d resident block%s/SM",
                        ++n, k ? k : "?", record_num(l, "regs", 0),
                        record_num(l, "smem_bytes", 0),
                        record_num(l, "threads", 0), blocks,
                        blocks == 1 ? "" : "s");
        if (lim && *lim)
            prompt_buf_addf(b, " (limited by %s)", lim);
    }
    cJSON_Delete(e);
    return n;
}

static void add_resources(struct prompt_buf *b, const struct eval_result *r)
{
    const struct eval_resources *s = &r->res;
    if (s->regs <= 0)
        return;
    if (add_launch_resources(b, r)) { /* per launch; spills of the module */
        prompt_buf_addf(b, "\n- module: %d bytes spilled, %d bytes of local "
                        "memory/thread (the most of any kernel)",
                        s->spill_bytes, s->local_bytes);
        return;
    }
    prompt_buf_addf(b,
                    "\n- resources: %d registers/thread, %d bytes spilled, "
                    "%d bytes of local memory/thread, %d bytes of static "
                    "shared memory/block",
                    s->regs, s->spill_bytes, s->local_bytes, s->smem_static);
    if (s->occupancy > 0)
        prompt_buf_addf(b, "; occupancy %d resident block%s/SM", s->occupancy,
                        s->occupancy == 1 ? "" : "s");
}

static char *result_text(const struct llm_prompt_ctx *c,
                         const struct llm_parent *par)
{
    const struct eval_result *r = par->r;
    struct prompt_buf b;
    prompt_buf_init(&b, 0);
    if (!r) {
        prompt_buf_adds(&b, "- not measured yet");
        add_plan(&b, c, par);
        return prompt_buf_take(&b);
    }
    prompt_buf_addf(&b, "- outcome: %s (%s)", eval_outcome_name(r->outcome),
                    outcome_meaning[r->outcome]);
    if (r->outcome == EVAL_OK)
        add_timing(&b, r, c);
    else if (r->detail[0])
        prompt_buf_addf(&b, "\n- evidence: %s", r->detail);
    add_resources(&b, r);
    add_plan(&b, c, par);
    return prompt_buf_take(&b);
}

static char *evidence_text(const struct eval_result *r)
{
    struct prompt_buf b;
    prompt_buf_init(&b, 0);
    if (!r || !r->evidence_json || !*r->evidence_json) {
        prompt_buf_adds(&b, "(none recorded)");
        return prompt_buf_take(&b);
    }
    size_t n = strlen(r->evidence_json);
    prompt_buf_add(&b, r->evidence_json, n > EVIDENCE_MAX ? EVIDENCE_MAX : n);
    if (n > EVIDENCE_MAX)
        prompt_buf_addf(&b, " ... (cut: %zu more characters)",
                        n - EVIDENCE_MAX);
    return prompt_buf_take(&b);
}

/* The diagnosis and the raw metrics of each launch, or why there are
 * none. */
static char *profile_text(const struct llm_prompt_ctx *c,
                          const struct llm_parent *par)
{
    struct prompt_buf b;
    prompt_buf_init(&b, 0);
    if (!par->prof) {
        prompt_buf_adds(&b, "(not profiled)");
        return prompt_buf_take(&b);
    }
    const struct problem *p = c->problem;
    struct prof_ctx pc = prof_ctx_of(p, c->shape, c->dtype);
    char line[2048];
    prof_diagnose(par->prof, &pc, line, sizeof line);
    prompt_buf_addf(&b, "%s", line);
    for (int i = 0; par->prof->available && i < par->prof->n; i++) {
        prof_launch_text(&par->prof->l[i], line, sizeof line);
        prompt_buf_addf(&b, "\n- launch %d (%s): %s", i + 1,
                        par->prof->l[i].kernel, line);
    }
    return prompt_buf_take(&b);
}

/* The template text without trailing blank lines (it goes in a fence). */
static char *text_trimmed(const char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        n--;
    return strndup(s, n);
}

/* The kevo headers (kvhdr.h) that text #includes, each once, with their
 * text in a fence (the model sees what it calls), or "" when none. */
static char *headers_text(const char *text)
{
    struct prompt_buf b;
    unsigned seen = 0; /* bit i: header i shown */
    prompt_buf_init(&b, 0);
    for (const char *line = text; line && *line;) {
        const char *name = kvhdr_included(line);
        for (int i = 0; name && i < kvhdr_count() && i < 32; i++)
            if (!strcmp(kvhdr_name(i), name) && !(seen & 1u << i)) {
                seen |= 1u << i;
                prompt_buf_addf(&b, "\nIt includes \"%s\", kevo's own header "
                                    "(kevo gives it to the compiler; your "
                                    "template may #include it too, but must "
                                    "not copy or redefine what it defines):"
                                    "\n\n```cuda\n%s```\n",
                                name, kvhdr_text(i));
            }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return prompt_buf_take(&b);
}

void llm_facts_parent(struct prompt_vars *pv, const char *prefix,
                      const struct llm_prompt_ctx *ctx,
                      const struct llm_parent *par)
{
    char name[PROMPT_NAME_MAX];
#define KEY(k) (snprintf(name, sizeof name, "%s_%s", prefix, k), name)
    const struct eval_result *r = par->r;
    enum eval_outcome o = r ? r->outcome : EVAL_OK;
    prompt_vars_set(pv, KEY("NAME"), par->tpl->name);
    prompt_vars_take(pv, KEY("TEXT"), text_trimmed(par->tpl->text));
    prompt_vars_take(pv, KEY("HEADERS"), headers_text(par->tpl->text));
    prompt_vars_take(pv, KEY("POINT"), point_text(par->tpl, par->vals));
    prompt_vars_take(pv, KEY("RESULT"), result_text(ctx, par));
    prompt_vars_set(pv, KEY("OUTCOME"), r ? eval_outcome_name(o) : "none");
    prompt_vars_set(pv, KEY("MEANING"),
                    r ? outcome_meaning[o] : "not measured");
    prompt_vars_set(pv, KEY("DETAIL"),
                    r && r->detail[0] ? r->detail : "(none)");
    prompt_vars_take(pv, KEY("EVIDENCE"), evidence_text(r));
    prompt_vars_take(pv, KEY("PROFILE"), profile_text(ctx, par));
#undef KEY
}

int llm_facts_check_parents(const char *name, int n,
                            const struct llm_parent *par, char *err,
                            size_t errcap)
{
    for (int i = 0; i < n; i++)
        if (!par || !par[i].tpl || !par[i].vals ||
            (par[i].r && (unsigned)par[i].r->outcome >= EVAL_OUTCOME_COUNT)) {
            snprintf(err, errcap,
                     "%s needs %d parent%s with a template and "
                     "a point",
                     name, n, n == 1 ? "" : "s");
            return KEVO_EINVAL;
        }
    return KEVO_OK;
}

int llm_prompts_build(const struct llm_prompt_ctx *ctx, struct prompt_vars *pv,
                      const char *user_file, char **system, char **user,
                      char *err, size_t errcap)
{
    const char *dir = ctx->prompts_dir ? ctx->prompts_dir : LLM_PROMPTS_DIR;
    char *format = NULL;
    *system = *user = NULL;
    if (ctx->shape->n_dims != ctx->problem->n_dims) {
        snprintf(err, errcap, "shape has %d sizes, problem '%s' has %d",
                 ctx->shape->n_dims, ctx->problem->name, ctx->problem->n_dims);
        return KEVO_EINVAL;
    }
    set_common(pv, ctx);
    int rc = prompt_render(dir, "format.txt", pv, &format, err, errcap);
    if (rc)
        return rc;
    prompt_vars_take(pv, "FORMAT", format);
    rc = prompt_render(dir, "system.txt", pv, system, err, errcap);
    if (!rc)
        rc = prompt_render(dir, user_file, pv, user, err, errcap);
    if (rc) {
        free(*system);
        *system = NULL;
    }
    return rc;
}
