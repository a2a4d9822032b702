/*
 * cmd_report.c - `kevo report <run>`: a Markdown and a self-contained HTML
 * report of one run (what was searched, the winner with its launch plan,
 * best-so-far curves, outcomes per mutator, fitness against each of the
 * winner's parameters, the winner's lineage), with gnuplot SVGs inlined
 * into the HTML. Reads the run (through runview.c), writes only DIR.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_outputs.h"
#include "cmd_run.h"
#include "cmd_sanitize.h"
#include "eval.h"
#include "fsutil.h"
#include "hash.h"
#include "jnl.h"
#include "plot.h"
#include "progress.h"
#include "record.h"
#include "rundir.h"
#include "tolerance.h"

/* --------------------------------------------------------- document */

/* One report written twice at once: Markdown and HTML. */
struct doc {
    FILE *md, *html; /* open_memstream over mdtext / htmltext */
    char *mdtext, *htmltext;
    size_t mdlen, htmllen;
};

static void html_esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
}

static void doc_h(struct doc *d, int level, const char *text)
{
    fprintf(d->md, "\n%.*s %s\n\n", level, "####", text);
    fprintf(d->html, "<h%d>", level);
    html_esc(d->html, text);
    fprintf(d->html, "</h%d>\n", level);
}

static void KEVO_PRINTF(2, 3) doc_p(struct doc *d, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(d->md, "%s\n\n", buf);
    fputs("<p>", d->html);
    html_esc(d->html, buf);
    fputs("</p>\n", d->html);
}

static void doc_row(struct doc *d, int n, const char *const *cells, int head)
{
    fputs("|", d->md);
    fputs("<tr>", d->html);
    for (int i = 0; i < n; i++) {
        fputc(' ', d->md);
        md_cell(d->md, cells[i]);
        fputs(" |", d->md);
        fputs(head ? "<th>" : "<td>", d->html);
        html_esc(d->html, cells[i]);
        fputs(head ? "</th>" : "</td>", d->html);
    }
    fputs("\n", d->md);
    fputs("</tr>\n", d->html);
    if (head) {
        fputs("|", d->md);
        for (int i = 0; i < n; i++)
            fputs("---|", d->md);
        fputs("\n", d->md);
    }
}

static void doc_table(struct doc *d, int n, const char *const *head)
{
    fputs("\n", d->md);
    fputs("<table>\n", d->html);
    doc_row(d, n, head, 1);
}

static void doc_table_end(struct doc *d)
{
    fputs("\n", d->md);
    fputs("</table>\n", d->html);
}

/* A two-column row with a formatted value. */
static void KEVO_PRINTF(3, 4) doc_kv(struct doc *d, const char *k,
                                     const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    const char *cells[2] = {k, buf};
    doc_row(d, 2, cells, 0);
}

static void doc_code(struct doc *d, const char *lang, const char *text,
                     const char *summary)
{
    fprintf(d->md, "\n```%s\n%s%s```\n\n", lang, text,
            text[0] && text[strlen(text) - 1] == '\n' ? "" : "\n");
    if (summary) {
        fputs("<details><summary>", d->html);
        html_esc(d->html, summary);
        fputs("</summary>", d->html);
    }
    fputs("<pre><code>", d->html);
    html_esc(d->html, text);
    fputs("</code></pre>\n", d->html);
    if (summary)
        fputs("</details>\n", d->html);
}

/* Inlines the SVG at path (its <svg> element only, without the
 * namespace attributes, which HTML does not need and which would be
 * the only URLs in the page). */
static int doc_svg(struct doc *d, const char *path, const char *rel,
                   const char *alt)
{
    char *text;
    int rc = fs_read_file(path, &text, NULL);
    if (rc)
        return rc;
    char *s = strstr(text, "<svg");
    if (!s) {
        free(text);
        return KEVO_EPARSE;
    }
    static const char *const ns[] = {" xmlns=\"http://www.w3.org/2000/svg\"",
                                     " xmlns:xlink=\"http://www.w3.org/1999/"
                                     "xlink\""};
    for (int i = 0; i < 2; i++) {
        char *at = strstr(s, ns[i]);
        if (at)
            memmove(at, at + strlen(ns[i]), strlen(at + strlen(ns[i])) + 1);
    }
    fprintf(d->md, "![%s](%s)\n\n", alt, rel);
    fputs("<figure>", d->html);
    fputs(s, d->html);
    fputs("<figcaption>", d->html);
    html_esc(d->html, alt);
    fputs("</figcaption></figure>\n", d->html);
    free(text);
    return KEVO_OK;
}

/* ------------------------------------------------------------ report */

struct mut_stat {
    char name[48];
    long n[EVAL_OUTCOME_COUNT];
    long total;
};

struct report {
    struct run_view v;
    char out[4096];          /* DIR */
    char plots[4096];        /* DIR/plots */
    char runref[4096];       /* the run dir as seen from DIR, with '/' */
    struct doc d;
    struct mut_stat *muts;
    int n_muts;
    long outcomes[EVAL_OUTCOME_COUNT];
    long evals;
    int have_gnuplot;
    char plot_note[512];     /* why there are no plots, or "" */
    double scale;            /* fitness divisor for plots */
    char unit[32];           /* plot unit, e.g. "GFLOP/s" */
    cJSON *json;             /* --json summary */
    int quiet;
};

static void count_outcomes(struct report *r)
{
    const struct rec_eval *e;
    for (int k = 0; k < r->v.n_records; k++) {
        if (!(e = run_view_eval(&r->v, k)))
            continue;
        enum eval_outcome o = e->r.outcome;
        const char *m = e->mutator[0] ? e->mutator : "?";
        int i = 0;
        while (i < r->n_muts && strcmp(r->muts[i].name, m))
            i++;
        if (i == r->n_muts) {
            struct mut_stat *n = realloc(r->muts,
                                         (size_t)(i + 1) * sizeof *n);
            if (!n)
                continue;
            r->muts = n;
            memset(&n[i], 0, sizeof n[i]);
            snprintf(n[i].name, sizeof n[i].name, "%s", m);
            r->n_muts++;
        }
        r->muts[i].n[o]++;
        r->muts[i].total++;
        r->outcomes[o]++;
        r->evals++;
    }
}

/* s, or "?" for a missing member. */
static const char *S(const char *s)
{
    return s ? s : "?";
}

static void fmt_fit(const struct report *r, double f, char *out, size_t cap)
{
    progress_fmt_fitness(f, r->v.prob->work_unit, out, cap);
}

static void fmt_params(const struct tpl *t, const int64_t *vals, char *out,
                       size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < t->n_params && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%s=%lld", i ? " " : "",
                              t->params[i].name, (long long)vals[i]);
}

static void section_searched(struct report *r)
{
    const struct run_view *v = &r->v;
    char shape[64];
    problem_format_shape(&v->spec.shape, shape, sizeof shape);
    doc_h(&r->d, 2, "What was searched");
    static const char *const kv[2] = {"", ""};
    doc_table(&r->d, 2, kv);
    doc_kv(&r->d, "problem", "%s (%s)", v->prob->name, v->prob->summary);
    doc_kv(&r->d, "dtype", "%s", dtype_name(v->spec.dtype));
    char dims[64] = "";
    for (int i = 0; i < v->prob->n_dims; i++)
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%s",
                 i ? " x " : "", v->prob->dim_names[i]);
    doc_kv(&r->d, "shape", "%s (%s)", shape, dims);
    doc_kv(&r->d, "seed", "%llu", (unsigned long long)v->spec.seed);
    char tol[2048]; /* one pair per output */
    cli_tolerance_line(v->prob, &v->spec.shape, v->spec.dtype,
                       cJSON_GetObjectItem(v->manifest, "environment"), tol,
                       sizeof tol);
    if (tol[0])
        doc_kv(&r->d, "tolerance", "%s", strchr(tol, ':') + 2);
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(v->manifest, "templates"))
        doc_kv(&r->d, "template", "%s (%d params, hash %s)",
               S(record_str(t, "name")), record_int(t, "params", 0),
               S(record_str(t, "hash")));
    doc_kv(&r->d, "kevo", "%s (commit %s)",
           S(record_str(v->manifest, "kevo_version")),
           S(record_str(v->manifest, "git_commit")));
    const cJSON *dev = run_view_env(v, "device");
    if (dev)
        doc_kv(&r->d, "GPU", "%s (%s, uuid %s, %d SMs, driver %d)",
               S(record_str(dev, "name")), S(record_str(dev, "arch")),
               S(record_str(dev, "uuid")), record_int(dev, "sms", 0),
               record_int(dev, "driver_version", 0));
    else
        doc_kv(&r->d, "GPU", "none recorded (evaluator '%s')",
               v->spec.evaluator);
    const cJSON *nv = run_view_env(v, "nvrtc_version"),
                *ch = run_view_env(v, "cuda_headers");
    if (cJSON_IsString(nv))
        doc_kv(&r->d, "NVRTC / CUDA headers", "%s / %s", nv->valuestring,
               cJSON_IsString(ch) ? ch->valuestring : "?");
    const cJSON *host = cJSON_GetObjectItem(v->manifest, "host");
    doc_kv(&r->d, "host", "%s (%s %s, %d CPUs)", S(record_str(host, "hostname")),
           S(record_str(host, "os")), S(record_str(host, "kernel")),
           record_int(host, "cpus", 0));
    doc_table_end(&r->d);
    char *spec = cJSON_Print(cJSON_GetObjectItem(v->manifest, "spec"));
    char *env = cJSON_Print(cJSON_GetObjectItem(v->manifest, "environment"));
    doc_code(&r->d, "json", spec ? spec : "", "full spec (manifest.json)");
    doc_code(&r->d, "json", env ? env : "", "environment (manifest.json)");
    free(spec);
    free(env);
}

static void plan_text(const struct report *r, char *out, size_t cap)
{
    const struct run_view *v = &r->v;
    struct launch_plan lp;
    char err[256];
    size_t n = 0;
    if (tpl_plan(v->best_tpl, v->best_vals, &v->spec.shape, &v->dev, &lp,
                 err, sizeof err)) {
        snprintf(out, cap, "launch plan cannot be evaluated: %s\n", err);
        return;
    }
    for (int i = 0; i < lp.n && n < cap; i++) {
        const struct launch_dims *l = &lp.l[i];
        n += (size_t)snprintf(out + n, cap - n,
                              "launch %d: %s<<<grid(%u, %u, %u), block(%u, "
                              "%u, %u), smem %u B>>>",
                              i, l->kernel, l->grid[0], l->grid[1],
                              l->grid[2], l->block[0], l->block[1],
                              l->block[2], l->smem_bytes);
        if (l->cluster[0] && n < cap)
            n += (size_t)snprintf(out + n, cap - n, " cluster(%u, %u, %u)",
                                  l->cluster[0], l->cluster[1],
                                  l->cluster[2]);
        if (n < cap)
            n += (size_t)snprintf(out + n, cap - n, "\n");
    }
    if (n < cap)
        snprintf(out + n, cap - n, "workspace: %llu bytes\n",
                 (unsigned long long)lp.workspace_bytes);
}

/* 1 when baseline name is a copy and the problem counts other work than
 * bytes: its rate is bytes/s, never a ratio to FLOP/s. */
static int copy_of_other_work(const struct report *r, const char *name)
{
    return !strcmp(name, "copy") && strcmp(r->v.prob->work_unit, "B/s");
}

static void winner_numbers(struct report *r, cJSON *w)
{
    const struct run_view *v = &r->v;
    /* the winner's measurement: its eval record, else best.json's */
    struct eval_result m;
    eval_result_init(&m);
    if (v->best_eval)
        m = v->best_eval->r;
    else
        m.median_ns = v->best.median_ns;
    char fit[64];
    double f = v->best.fitness, med = m.median_ns, roof = m.roofline;
    fmt_fit(r, f, fit, sizeof fit);
    doc_kv(&r->d, "fitness", "%s (%.6g %s)", fit, f, v->prob->work_unit);
    doc_kv(&r->d, "median", "%.1f ns", med);
    doc_kv(&r->d, "min", "%.1f ns", m.min_ns);
    doc_kv(&r->d, "spread (p90-p10)/median", "%.4f", m.spread);
    doc_kv(&r->d, "timed repetitions", "%d", m.reps);
    if (roof > 0)
        doc_kv(&r->d, "fraction of roofline", "%.1f %%", roof * 100);
    else
        doc_kv(&r->d, "fraction of roofline", "not measured");
    cJSON_AddNumberToObject(w, "fitness", f);
    cJSON_AddNumberToObject(w, "median_ns", med);
    cJSON_AddNumberToObject(w, "min_ns", m.min_ns);
    cJSON_AddNumberToObject(w, "spread", m.spread);
    cJSON_AddNumberToObject(w, "roofline", roof);
    cJSON *ratios = cJSON_AddObjectToObject(w, "baselines");
    struct record_baseline b;
    int nb = 0;
    for (int i = 0; i < run_view_n_baselines(v); i++) {
        char k[96];
        run_view_baseline(v, i, &b);
        if (!b.name[0] || b.fitness <= 0)
            continue;
        if (copy_of_other_work(r, b.name)) { /* bytes/s; compare times */
            snprintf(k, sizeof k, "time vs %s", b.name);
            doc_kv(&r->d, k, "%.3fx the copy's time (copy: %.1f ns, %.4g "
                   "GB/s over the problem's minimum bytes)",
                   med / b.median_ns, b.median_ns,
                   r->v.prob->min_bytes
                       ? r->v.prob->min_bytes(r->v.prob, &r->v.spec.shape,
                                              r->v.spec.dtype) / b.median_ns
                       : 0);
            nb++;
            continue;
        }
        snprintf(k, sizeof k, "ratio to %s", b.name);
        doc_kv(&r->d, k, "%.3fx (%s: %.1f ns)", f / b.fitness, b.name,
               b.median_ns);
        cJSON_AddNumberToObject(ratios, b.name, f / b.fitness);
        nb++;
    }
    if (!nb)
        doc_kv(&r->d, "baselines", "none measured in this run");
}

static void section_winner(struct report *r)
{
    const struct run_view *v = &r->v;
    cJSON *w = cJSON_AddObjectToObject(r->json, "winner");
    doc_h(&r->d, 2, "Winner");
    if (!v->has_best) {
        doc_p(&r->d, "No evaluation of this run passed the checks: there is "
              "no winner.");
        return;
    }
    char params[1024], rel[256], plan[2048], link[4400], hex[17];
    hash_hex(v->best.hash, hex);
    fmt_params(v->best_tpl, v->best_vals, params, sizeof params);
    char *src = run_view_source(v, rel, sizeof rel);
    static const char *const kv[2] = {"", ""};
    doc_table(&r->d, 2, kv);
    doc_kv(&r->d, "template", "%s", v->best_tpl->name);
    doc_kv(&r->d, "parameters", "%s", params);
    doc_kv(&r->d, "genome hash", "%s", hex);
    if (v->best_eval)
        doc_kv(&r->d, "found in generation", "%d", v->best_eval->gen);
    winner_numbers(r, w);
    char san[700];
    sanitize_summary(v->dir, hex, san, sizeof san);
    doc_kv(&r->d, "sanitizer", "%s", san[0] ? san : "not run (kevo verify "
           "--sanitize)");
    cJSON_AddStringToObject(w, "sanitizer", san);
    doc_table_end(&r->d);
    plan_text(r, plan, sizeof plan);
    doc_p(&r->d, "Launch plan at the winner's point for shape %s:",
          S(record_str(cJSON_GetObjectItem(v->manifest, "spec"), "shape")));
    doc_code(&r->d, "text", plan, NULL);
    cJSON_AddStringToObject(w, "template", v->best_tpl->name);
    cJSON_AddStringToObject(w, "hash", hex);
    cJSON *wp = cJSON_AddObjectToObject(w, "params");
    for (int i = 0; wp && i < v->best.n_params; i++)
        cJSON_AddNumberToObject(wp, v->best.names[i],
                                (double)v->best.vals[i]);
    cJSON_AddStringToObject(w, "launch_plan", plan);
    if (rel[0]) {
        snprintf(link, sizeof link, "%s%s", r->runref, rel);
        fprintf(r->d.md, "Source: [%s](%s)\n", rel, link);
        fprintf(r->d.html, "<p>Source: <code>");
        html_esc(r->d.html, link);
        fprintf(r->d.html, "</code></p>\n");
        cJSON_AddStringToObject(w, "source", link);
    }
    doc_code(&r->d, "cuda", src ? src : "", "winner's source");
    free(src);
}

static void section_outcomes(struct report *r)
{
    doc_h(&r->d, 2, "Outcomes per mutator");
    const char *head[EVAL_OUTCOME_COUNT + 3];
    char cells[EVAL_OUTCOME_COUNT + 3][48];
    const char *row[EVAL_OUTCOME_COUNT + 3];
    head[0] = "mutator";
    head[1] = "evaluations";
    for (int o = 0; o < EVAL_OUTCOME_COUNT; o++)
        head[2 + o] = eval_outcome_name(o);
    head[EVAL_OUTCOME_COUNT + 2] = "success rate";
    doc_table(&r->d, EVAL_OUTCOME_COUNT + 3, head);
    cJSON *jm = cJSON_AddObjectToObject(r->json, "mutators");
    for (int i = 0; i <= r->n_muts; i++) {
        const char *name = i < r->n_muts ? r->muts[i].name : "all";
        const long *n = i < r->n_muts ? r->muts[i].n : r->outcomes;
        long total = i < r->n_muts ? r->muts[i].total : r->evals;
        cJSON *o = cJSON_AddObjectToObject(i < r->n_muts ? jm : r->json,
                                           i < r->n_muts ? name
                                                         : "outcomes");
        snprintf(cells[0], sizeof cells[0], "%s", name);
        snprintf(cells[1], sizeof cells[1], "%ld", total);
        for (int k = 0; k < EVAL_OUTCOME_COUNT; k++) {
            snprintf(cells[2 + k], sizeof cells[2 + k], "%ld", n[k]);
            cJSON_AddNumberToObject(o, eval_outcome_name(k), (double)n[k]);
        }
        double rate = total ? 100.0 * (double)n[EVAL_OK] / (double)total : 0;
        snprintf(cells[EVAL_OUTCOME_COUNT + 2], 48, "%.1f %%", rate);
        cJSON_AddNumberToObject(o, "evaluations", (double)total);
        cJSON_AddNumberToObject(o, "success_rate", rate / 100);
        for (int k = 0; k < EVAL_OUTCOME_COUNT + 3; k++)
            row[k] = cells[k];
        doc_row(&r->d, EVAL_OUTCOME_COUNT + 3, row, 0);
    }
    doc_table_end(&r->d);
}

/* -------------------------------------------------------------- plots */

/* Opens plots/name for writing; NULL with the first failure in
 * r->plot_note (a link or FIFO planted there is refused: fsutil.h), which
 * stops gnuplot from reading what kevo did not write. */
static FILE *open_in(struct report *r, const char *name)
{
    char path[4096];
    int rc = fs_join(path, sizeof path, r->plots, name);
    FILE *f = rc ? NULL : fs_fopen_write(path, &rc);
    if (!f && !r->plot_note[0])
        snprintf(r->plot_note, sizeof r->plot_note, "cannot write '%s': %s",
                 path, kevo_strerror(rc));
    return f;
}

static void plot_head(FILE *g, const char *out, const char *title,
                      const char *xl, const char *yl)
{
    fprintf(g, "reset\nset output '%s'\nset title '%s'\n"
               "set xlabel '%s'\nset ylabel '%s'\nset grid\n",
            out, title, xl, yl);
}

/* best_evals.dat: index, t, best measured so far; best_gen.dat: evals,
 * t, accepted best at the end of each generation. Returns how many ok
 * evaluations there were. */
static long write_best_data(struct report *r)
{
    FILE *e = open_in(r, "best_evals.dat"),
         *g = open_in(r, "best_gen.dat");
    long i = 0, ok = 0;
    double best = 0;
    for (int k = 0; k < r->v.n_records; k++) {
        const struct record *rec = &r->v.recs[k];
        if (rec->type == REC_EVAL) {
            const struct rec_eval *x = &rec->u.eval;
            i++;
            if (x->r.outcome == EVAL_OK) {
                ok++;
                if (x->r.fitness > best)
                    best = x->r.fitness;
            }
            if (e && best > 0)
                fprintf(e, "%ld %.9g %.9g\n", i, x->t, best / r->scale);
        } else if (rec->type == REC_GEN && g &&
                   rec->u.gen.best_fitness > 0) {
            fprintf(g, "%ld %.9g %.9g\n", rec->u.gen.evals, rec->u.gen.t,
                    rec->u.gen.best_fitness / r->scale);
        }
    }
    if (e)
        fclose(e);
    if (g)
        fclose(g);
    return ok;
}

static int has_gen_best(const struct report *r)
{
    for (int k = 0; k < r->v.n_records; k++)
        if (r->v.recs[k].type == REC_GEN &&
            r->v.recs[k].u.gen.best_fitness > 0)
            return 1;
    return 0;
}

/* The problem's work over the winner's speed-of-light floor (evidence
 * floor_ns), in its unit; 0 when unknown. */
static double speed_of_light(const struct report *r)
{
    const struct rec_eval *e = r->v.best_eval;
    cJSON *ev = e && e->r.evidence_json ? cJSON_Parse(e->r.evidence_json)
                                        : NULL;
    double fl = record_num(ev, "floor_ns", 0);
    cJSON_Delete(ev);
    return fl > 0 ? r->v.prob->work(r->v.prob, &r->v.spec.shape,
                                    r->v.spec.dtype) / (fl * 1e-9)
                  : 0;
}

static void script_best(struct report *r, FILE *g, int xcol, const char *out,
                        const char *xl)
{
    char title[128];
    snprintf(title, sizeof title, "Best %s vs %s", r->unit, xl);
    plot_head(g, out, title, xl, r->unit);
    fprintf(g, "set key bottom right\n"
               "plot 'best_evals.dat' using %d:3 with steps lw 1 "
               "lc rgb '#999999' title 'best measured so far'",
            xcol);
    if (has_gen_best(r))
        fprintf(g, ", \\\n     'best_gen.dat' using %d:3 with steps lw 2 "
                   "lc rgb '#1f77b4' title 'accepted best (end of "
                   "generation)'",
                xcol);
    /* the baselines in the problem's unit, and the speed of light */
    struct record_baseline b;
    for (int i = 0; i < run_view_n_baselines(&r->v); i++) {
        run_view_baseline(&r->v, i, &b);
        if (b.name[0] && b.fitness > 0 && !copy_of_other_work(r, b.name))
            fprintf(g, ", \\\n     %.9g with lines dt 2 lw 1.5 lc rgb "
                       "'#2ca02c' title '%s (baseline)'",
                    b.fitness / r->scale, b.name);
    }
    double sol = speed_of_light(r);
    if (sol > 0)
        fprintf(g, ", \\\n     %.9g with lines dt 3 lw 1.5 lc rgb "
                   "'#d62728' title 'speed of light (roofline floor)'",
                sol / r->scale);
    fprintf(g, "\n");
}

static void script_mutators(struct report *r, FILE *g)
{
    FILE *d = open_in(r, "mutators.dat");
    if (!d)
        return;
    for (int i = 0; i < r->n_muts; i++)
        fprintf(d, "%s %.4f\n", r->muts[i].name,
                r->muts[i].total ? 100.0 * (double)r->muts[i].n[EVAL_OK] /
                                       (double)r->muts[i].total
                                 : 0.0);
    fclose(d);
    plot_head(g, "success.svg", "Success rate per mutator", "mutator",
              "ok (% of evaluations)");
    fprintf(g, "set yrange [0:100]\nset style fill solid 0.6\n"
               "set boxwidth 0.6\nset xtics rotate by -30\n"
               "plot 'mutators.dat' using 0:2:xtic(1) with boxes "
               "lc rgb '#2ca02c' notitle\n");
}

/* One scatter of fitness against param i of the winner's template. */
static int script_param(struct report *r, FILE *g, int i)
{
    const struct tpl *t = r->v.best_tpl;
    const char *pn = t->params[i].name;
    char name[96];
    snprintf(name, sizeof name, "param_%s.dat", pn);
    FILE *d = open_in(r, name);
    if (!d)
        return 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    long n = 0;
    const struct rec_eval *e;
    for (int k = 0; k < r->v.n_records; k++) {
        if (!(e = run_view_eval(&r->v, k)) || e->r.outcome != EVAL_OK ||
            strcmp(e->tpl, t->name))
            continue;
        int64_t x = rec_eval_param(e, pn, INT64_MIN);
        if (x == INT64_MIN) /* not a parameter of this record */
            continue;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        fprintf(d, "%lld %.9g\n", (long long)x, e->r.fitness / r->scale);
        n++;
    }
    fclose(d);
    if (!n)
        return 0;
    char out[96], title[160];
    snprintf(out, sizeof out, "param_%s.svg", pn);
    snprintf(title, sizeof title, "%s: %s against %s (%ld ok evaluations)",
             t->name, r->unit, pn, n);
    plot_head(g, out, title, pn, r->unit);
    if (lo > 0 && hi >= 8 * lo)
        fprintf(g, "set logscale x 2\n");
    fprintf(g, "set offsets graph 0.05, graph 0.05, graph 0.05, 0\n"
               "set key bottom right\n"
               "plot '%s' using 1:2 with points pt 7 ps 0.6 "
               "lc rgb '#601f77b4' title 'evaluations', \\\n"
               "     '-' using 1:2 with points pt 6 ps 2 lw 2 "
               "lc rgb '#d62728' title 'winner'\n%lld %.9g\ne\n",
            name, (long long)r->v.best_vals[i], r->v.best.fitness / r->scale);
    return 1;
}

struct plot_list {
    char name[TPL_MAX_PARAMS + 3][96]; /* svg file names */
    char alt[TPL_MAX_PARAMS + 3][160];
    int n;
};

static void add_plot(struct plot_list *pl, const char *name, const char *alt)
{
    snprintf(pl->name[pl->n], sizeof pl->name[0], "%s", name);
    snprintf(pl->alt[pl->n], sizeof pl->alt[0], "%s", alt);
    pl->n++;
}

static int script_roofline(struct report *r, FILE *g);

/* Writes data + plots.gp for every chart and runs gnuplot once. */
static int make_plots(struct report *r, struct plot_list *pl)
{
    char path[4096], log[4096], err[512];
    pl->n = 0;
    int rc = fs_mkdirs(r->plots);
    if (rc) {
        snprintf(r->plot_note, sizeof r->plot_note, "cannot create '%s': %s",
                 r->plots, kevo_strerror(rc));
        return rc;
    }
    FILE *g = open_in(r, "plots.gp");
    if (!g)
        return KEVO_EIO;
    fprintf(g, "# kevo report: gnuplot script (run in this directory)\n"
               "set terminal svg size 720,420 dynamic noenhanced "
               "font 'sans,12' background '#ffffff'\nset encoding utf8\n");
    long ok = write_best_data(r);
    if (ok) {
        script_best(r, g, 2, "best_time.svg", "run time (s)");
        add_plot(pl, "best_time.svg", "best so far against run time");
        script_best(r, g, 1, "best_evals.svg", "evaluations");
        add_plot(pl, "best_evals.svg", "best so far against evaluations");
    }
    if (script_roofline(r, g))
        add_plot(pl, "roofline.svg", "roofline with the profiled candidates");
    if (r->n_muts) {
        script_mutators(r, g);
        add_plot(pl, "success.svg", "success rate per mutator");
    }
    for (int i = 0; ok && r->v.best_tpl && i < r->v.best_tpl->n_params; i++)
        if (script_param(r, g, i)) {
            char n[96], a[160];
            snprintf(n, sizeof n, "param_%s.svg",
                     r->v.best_tpl->params[i].name);
            snprintf(a, sizeof a, "fitness against %s (%s)",
                     r->v.best_tpl->params[i].name, r->v.best_tpl->name);
            add_plot(pl, n, a);
        }
    fclose(g);
    if (r->plot_note[0]) { /* a data file is not ours: gnuplot reads none */
        pl->n = 0;
        return KEVO_EIO;
    }
    if (!pl->n)
        return KEVO_OK;
    if (!r->have_gnuplot) {
        snprintf(r->plot_note, sizeof r->plot_note,
                 "gnuplot was not found ('%s'): no charts were drawn; "
                 "install it (Debian: apt-get install gnuplot-nox) and run "
                 "'kevo report' again, or run 'gnuplot plots.gp' in '%s'",
                 plot_program(), r->plots);
        pl->n = 0;
        return KEVO_OK;
    }
    if (!r->quiet)
        fprintf(stderr, "kevo report: drawing %d charts with gnuplot\n",
                pl->n);
    if (fs_join(log, sizeof log, r->plots, "gnuplot.log") ||
        fs_join(path, sizeof path, r->plots, "plots.gp"))
        return KEVO_EINVAL;
    /* gnuplot writes the charts and kevo its log afresh: what is at those
     * names now (a planted link, a FIFO) goes, so neither is followed */
    unlink(log);
    for (int i = 0; i < pl->n; i++)
        if (!fs_join(path, sizeof path, r->plots, pl->name[i]))
            unlink(path);
    rc = plot_run(r->plots, "plots.gp", log, err, sizeof err);
    if (rc) {
        snprintf(r->plot_note, sizeof r->plot_note, "%s (see '%s')", err,
                 log);
        pl->n = 0;
    }
    return rc;
}

static void section_plots(struct report *r, const struct plot_list *pl,
                          int from, int to, const char *title)
{
    char path[4096], rel[160];
    doc_h(&r->d, 2, title);
    if (r->plot_note[0]) {
        doc_p(&r->d, "Charts: %s.", r->plot_note);
        return;
    }
    for (int i = from; i < to && i < pl->n; i++) {
        snprintf(rel, sizeof rel, "plots/%s", pl->name[i]);
        if (fs_join(path, sizeof path, r->out, rel) ||
            doc_svg(&r->d, path, rel, pl->alt[i]))
            doc_p(&r->d, "(chart '%s' is missing)", rel);
    }
}

/* ------------------------------------------------ hardware profiles */

#define REPORT_PROFILES 5 /* the best few profiled candidates */

struct profiled {
    const struct rec_profile *p;
    const struct rec_eval *e;  /* its ok eval record */
};

static int cmp_profiled(const void *a, const void *b)
{
    const struct profiled *x = a, *y = b;
    if (x->e->r.fitness != y->e->r.fitness)
        return x->e->r.fitness > y->e->r.fitness ? -1 : 1;
    return x->p->hash < y->p->hash ? -1 : x->p->hash > y->p->hash;
}

/* The available profiles of ok candidates, fittest first (at most cap);
 * *why: the note of an unavailable one (or NULL). */
static int collect_profiled(const struct report *r, struct profiled *out,
                            int cap, const char **why)
{
    int n = 0;
    *why = NULL;
    for (int k = 0; k < r->v.n_records; k++) {
        const struct record *rec = &r->v.recs[k];
        if (rec->type != REC_PROFILE)
            continue;
        const struct rec_profile *p = &rec->u.profile;
        if (!p->p.available) {
            *why = *why ? *why : p->p.note;
            continue;
        }
        const struct rec_eval *e = run_view_find_eval(&r->v, p->hash);
        int dup = 0;
        for (int i = 0; i < n; i++)
            dup |= out[i].p->hash == p->hash;
        if (e && e->r.outcome == EVAL_OK && !dup && n < cap)
            out[n++] = (struct profiled){p, e};
    }
    qsort(out, (size_t)n, sizeof *out, cmp_profiled);
    return n;
}

static double sum_metric(const struct kprof *p, enum prof_metric m)
{
    double s = 0;
    for (int i = 0; i < p->n; i++)
        s += isfinite(p->l[i].m[m]) ? p->l[i].m[m] : 0;
    return s;
}

static void pct_cell(char *out, size_t cap, double v)
{
    if (isfinite(v))
        snprintf(out, cap, "%.1f", v);
    else
        snprintf(out, cap, "-");
}

static void section_profiles(struct report *r)
{
    struct profiled pr[64];
    const char *why;
    int n = collect_profiled(r, pr, 64, &why);
    cJSON *js = cJSON_AddArrayToObject(r->json, "profiles");
    doc_h(&r->d, 2, "Hardware profiles");
    if (!n) {
        doc_p(&r->d, "No hardware profile in this run%s%s.", why ? ": " : "",
              why ? why : " (profiles are taken of new bests and LLM "
              "parents when the GPU's counters can be read)");
        return;
    }
    doc_p(&r->d, "The best %d profiled candidates (CUPTI range profiler, "
          "every launch replayed outside the timed runs; numbers of the "
          "launch that takes the most time).", n < REPORT_PROFILES ? n
                                                               : REPORT_PROFILES);
    static const char *const head[11] = {
        "#", "template", "time", "fitness", "DRAM %", "SM %", "tensor %",
        "occupancy %", "L2 hit %", "diagnosis", "launches"};
    doc_table(&r->d, 11, head);
    struct prof_ctx pc =
        prof_ctx_of(r->v.prob, &r->v.spec.shape, r->v.spec.dtype);
    for (int i = 0; i < n && i < REPORT_PROFILES; i++) {
        const struct kprof *p = &pr[i].p->p;
        const struct prof_launch *l = &p->l[prof_main_launch(p)];
        char c[11][1024];
        snprintf(c[0], sizeof c[0], "%d", i + 1);
        snprintf(c[1], sizeof c[1], "%s", pr[i].e->tpl);
        snprintf(c[2], sizeof c[2], "%.1f us", pr[i].e->r.median_ns / 1e3);
        fmt_fit(r, pr[i].e->r.fitness, c[3], sizeof c[3]);
        pct_cell(c[4], sizeof c[4], l->m[PM_DRAM_PCT]);
        pct_cell(c[5], sizeof c[5], l->m[PM_SM_PCT]);
        pct_cell(c[6], sizeof c[6], fmax(l->m[PM_TENSOR_GMMA_PCT],
                                         l->m[PM_TENSOR_HMMA_PCT]));
        pct_cell(c[7], sizeof c[7], l->m[PM_OCC_PCT]);
        pct_cell(c[8], sizeof c[8], l->m[PM_L2_HIT_PCT]);
        prof_diagnose(p, &pc, c[9], sizeof c[9]);
        snprintf(c[10], sizeof c[10], "%d", p->n);
        const char *cells[11];
        for (int k = 0; k < 11; k++)
            cells[k] = c[k];
        doc_row(&r->d, 11, cells, 0);
        cJSON *o = prof_json(p);
        if (o) {
            char hex[17];
            hash_hex(pr[i].p->hash, hex);
            cJSON_AddStringToObject(o, "hash", hex);
            cJSON_AddStringToObject(o, "template", pr[i].e->tpl);
            cJSON_AddStringToObject(o, "diagnosis", c[9]);
            cJSON_AddItemToArray(js, o);
        }
    }
    doc_table_end(&r->d);
}

/* roofline.dat: arithmetic intensity (FLOP per DRAM byte moved) and
 * FLOP/s of each profiled candidate; the peaks as lines. 0 without
 * profiles or FLOPs. */
static int script_roofline(struct report *r, FILE *g)
{
    struct profiled pr[64];
    const char *why;
    int n = collect_profiled(r, pr, 64, &why);
    const struct problem *pb = r->v.prob;
    double flops = pb->flops ? pb->flops(pb, &r->v.spec.shape,
                                         r->v.spec.dtype) : 0;
    const cJSON *d = run_view_env(&r->v, "device");
    double bw = record_num(d, "peak_bw", 0),
           pk = record_num(d, r->v.spec.dtype == DTYPE_FP32 ? "peak_fp32"
                                                            : "peak_tensor16",
                           0);
    FILE *f = n && flops > 0 ? open_in(r, "roofline.dat") : NULL;
    if (!f)
        return 0;
    int pts = 0;
    for (int i = 0; i < n; i++) {
        double bytes = sum_metric(&pr[i].p->p, PM_DRAM_READ) +
                       sum_metric(&pr[i].p->p, PM_DRAM_WRITE);
        if (bytes > 0 && pr[i].e->r.median_ns > 0) {
            fprintf(f, "%.9g %.9g %d\n", flops / bytes,
                    flops / (pr[i].e->r.median_ns * 1e-9) / 1e12, i + 1);
            pts++;
        }
    }
    fclose(f);
    if (!pts)
        return 0;
    plot_head(g, "roofline.svg", "Roofline: the profiled candidates",
              "FLOP per DRAM byte moved", "TFLOP/s");
    fprintf(g, "set logscale xy\nset key bottom right\n");
    if (bw > 0 && pk > 0)
        fprintf(g, "plot (x * %.9g < %.9g ? x * %.9g : %.9g) lw 2 lc rgb "
                   "'#d62728' title 'peak: %.3g TB/s, %.4g TFLOP/s', \\\n"
                   "     'roofline.dat' using 1:2 with points pt 7 ps 1 lc "
                   "rgb '#1f77b4' title 'profiled candidates', \\\n"
                   "     'roofline.dat' using 1:2:3 with labels offset 1,0 "
                   "notitle\n",
                bw / 1e12, pk / 1e12, bw / 1e12, pk / 1e12, bw / 1e12,
                pk / 1e12);
    else
        fprintf(g, "plot 'roofline.dat' using 1:2 with points pt 7 ps 1 "
                   "title 'profiled candidates (no device peaks recorded)'\n");
    return 1;
}

/* ----------------------------------------------------------- lineage */

/* 1 and *v if eval record e names parameter k. */
static int has_param(const struct rec_eval *e, const char *k, int64_t *v)
{
    for (int i = 0; i < e->n_params; i++)
        if (!strcmp(e->names[i], k)) {
            *v = e->vals[i];
            return 1;
        }
    return 0;
}

static void param_diff(const struct rec_eval *child,
                       const struct rec_eval *parent, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < child->n_params; i++) {
        int64_t q;
        int has = has_param(parent, child->names[i], &q);
        if (has && q == child->vals[i])
            continue;
        if (n < cap)
            n += (size_t)snprintf(out + n, cap - n, "%s%s %g->%g",
                                  n ? ", " : "", child->names[i],
                                  has ? (double)q : 0.0,
                                  (double)child->vals[i]);
    }
    if (strcmp(parent->tpl, child->tpl))
        snprintf(out, cap, "template %s -> %s", parent->tpl, child->tpl);
}

static void section_lineage(struct report *r)
{
    static const char *const head[7] = {"step", "gen", "genome", "mutator",
                                        "fitness", "parents", "changed"};
    doc_h(&r->d, 2, "Lineage of the winner");
    const struct rec_eval *rec = r->v.best_eval;
    if (!rec) {
        doc_p(&r->d, "The winner has no evaluation record in the journal.");
        return;
    }
    cJSON *jl = cJSON_AddArrayToObject(r->json, "lineage");
    doc_p(&r->d, "From the winner back to a random initial point, following "
          "each record's first parent (crossover children have two).");
    doc_table(&r->d, 7, head);
    for (int step = 0; rec && step < 1000; step++) {
        char gen[16], fit[64], par[64] = "", diff[512] = "", hex[17];
        const struct rec_eval *parent = NULL;
        for (int k = 0; k < rec->n_par; k++) {
            hash_hex(rec->par[k], hex);
            snprintf(par + strlen(par), sizeof par - strlen(par), "%s%.8s",
                     k ? ", " : "", hex);
        }
        if (rec->n_par)
            parent = run_view_find_eval(&r->v, rec->par[0]);
        if (parent)
            param_diff(rec, parent, diff, sizeof diff);
        else if (rec->n_par)
            snprintf(diff, sizeof diff, "(parent not in the journal)");
        snprintf(gen, sizeof gen, "%d", rec->gen);
        fmt_fit(r, rec->r.fitness, fit, sizeof fit);
        char stepc[16];
        snprintf(stepc, sizeof stepc, "%d", step);
        const char *m = rec->mutator[0] ? rec->mutator : "?";
        hash_hex(rec->hash, hex);
        const char *row[7] = {stepc, gen, hex, m, fit,
                              rec->n_par ? par : "-", diff};
        doc_row(&r->d, 7, row, 0);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "hash", hex);
        cJSON_AddStringToObject(o, "mutator", m);
        cJSON_AddNumberToObject(o, "gen", rec->gen);
        cJSON_AddNumberToObject(o, "fitness", rec->r.fitness);
        cJSON_AddItemToArray(jl, o);
        if (parent == rec)
            break;
        rec = parent;
    }
    doc_table_end(&r->d);
}

/* ------------------------------------------------------------ driver */

static const char report_usage[] =
    "usage: kevo report <run-dir> [--out DIR] [--json] [--quiet]\n"
    "\n"
    "Writes a report of a run to DIR (default <run-dir>/report/):\n"
    "report.md and a self-contained report.html (charts inlined) with what\n"
    "was searched, the winner (source, parameters, launch plan, timings,\n"
    "roofline, ratio to each baseline), best-so-far against run time and\n"
    "evaluations, outcomes and success rate per mutator, fitness against\n"
    "each of the winner's parameters, and the winner's lineage. Charts are\n"
    "drawn by gnuplot (SVG, in DIR/plots/); without gnuplot the report\n"
    "says so and is written without them. Needs no GPU.\n"
    "\n"
    "  --out DIR   where to write (created if needed)\n"
    "  --json      print a JSON summary (paths, winner, outcomes) on stdout\n"
    "  --quiet     no progress lines on stderr\n";

static const char html_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<title>kevo report</title>\n<style>\n"
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;"
    "padding:0 1em;color:#222}\n"
    "table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}\n"
    "th{background:#f4f4f4}pre{background:#f8f8f8;padding:.6em;"
    "overflow-x:auto}\nfigure{margin:1em 0}svg{max-width:100%;height:auto}\n"
    "</style></head><body>\n";

static int doc_open(struct doc *d)
{
    memset(d, 0, sizeof *d);
    d->md = open_memstream(&d->mdtext, &d->mdlen);
    d->html = open_memstream(&d->htmltext, &d->htmllen);
    if (!d->md || !d->html)
        return KEVO_ENOMEM;
    fputs(html_head, d->html);
    return KEVO_OK;
}

static void doc_close(struct doc *d)
{
    if (d->md)
        fclose(d->md);
    if (d->html)
        fclose(d->html);
    d->md = d->html = NULL;
}

static void doc_release(struct doc *d)
{
    doc_close(d);
    free(d->mdtext);
    free(d->htmltext);
}

static void set_scale(struct report *r)
{
    static const char *const pre[] = {"", "K", "M", "G", "T", "P"};
    double f = r->v.has_best ? r->v.best.fitness : 0;
    int k = 0;
    r->scale = 1;
    while (k < 5 && f / r->scale >= 1000) {
        r->scale *= 1000;
        k++;
    }
    snprintf(r->unit, sizeof r->unit, "%s%s", pre[k], r->v.prob->work_unit);
}

static void write_body(struct report *r, const struct plot_list *pl)
{
    char shape[64], title[256];
    problem_format_shape(&r->v.spec.shape, shape, sizeof shape);
    snprintf(title, sizeof title, "kevo report: %s %s %s (%s)",
             r->v.prob->name, dtype_name(r->v.spec.dtype), shape,
             r->v.spec.name);
    fprintf(r->d.md, "# %s\n\n", title);
    fputs("<h1>", r->d.html);
    html_esc(r->d.html, title);
    fputs("</h1>\n", r->d.html);
    doc_p(&r->d, "Run directory: %s. %ld evaluations, %d journal records.",
          r->v.dir, r->evals, r->v.n_records);
    section_searched(r);
    section_winner(r);
    section_profiles(r);
    int np = 0;
    while (np < pl->n && strncmp(pl->name[np], "param_", 6))
        np++;
    section_plots(r, pl, 0, np, "Progress");
    section_outcomes(r);
    section_plots(r, pl, np, pl->n, "Fitness against each parameter of the "
                                    "winner's template");
    section_lineage(r);
    fputs("</body></html>\n", r->d.html);
}

static int write_outputs(struct report *r, char *err, size_t errcap)
{
    char md[4096], html[4096];
    doc_close(&r->d);
    if (fs_join(md, sizeof md, r->out, "report.md") ||
        fs_join(html, sizeof html, r->out, "report.html"))
        return KEVO_EINVAL;
    int rc = outputs_write_file(md, r->d.mdtext ? r->d.mdtext : "");
    if (rc) {
        snprintf(err, errcap, "cannot write '%s': %s", md, kevo_strerror(rc));
        return rc;
    }
    if ((rc = outputs_write_file(html, r->d.htmltext ? r->d.htmltext : ""))) {
        snprintf(err, errcap, "cannot write '%s': %s", html,
                 kevo_strerror(rc));
        return rc;
    }
    cJSON_AddStringToObject(r->json, "markdown", md);
    cJSON_AddStringToObject(r->json, "html", html);
    return KEVO_OK;
}

/* DIR and how the report refers back to the run. */
static int setup_dirs(struct report *r, const char *dir, const char *out,
                      char *err, size_t errcap)
{
    char real[PATH_MAX];
    int rc = out ? (snprintf(r->out, sizeof r->out, "%s", out) >=
                    (int)sizeof r->out ? KEVO_EINVAL : KEVO_OK)
                 : fs_join(r->out, sizeof r->out, dir, "report");
    if (!rc)
        rc = fs_join(r->plots, sizeof r->plots, r->out, "plots");
    if (!rc && (rc = fs_mkdirs(r->out)))
        snprintf(err, errcap, "cannot create '%s': %s", r->out,
                 kevo_strerror(rc));
    if (rc)
        return rc;
    if (!out)
        snprintf(r->runref, sizeof r->runref, "../");
    else if (realpath(dir, real))
        snprintf(r->runref, sizeof r->runref, "%s/", real);
    else
        snprintf(r->runref, sizeof r->runref, "%s/", dir);
    return KEVO_OK;
}

static int report_run(struct report *r, const char *dir, const char *out,
                      char *err, size_t errcap)
{
    int rc = run_view_load(dir, &r->v, err, errcap);
    if (rc)
        return rc;
    if (!r->quiet)
        fprintf(stderr, "kevo report: %s: %d journal records\n", dir,
                r->v.n_records);
    if ((rc = setup_dirs(r, dir, out, err, errcap)))
        return rc;
    count_outcomes(r);
    set_scale(r);
    r->have_gnuplot = plot_available();
    struct plot_list *pl = calloc(1, sizeof *pl);
    if (!pl || doc_open(&r->d)) {
        free(pl);
        return KEVO_ENOMEM;
    }
    rc = make_plots(r, pl);
    if (rc && !r->quiet)
        fprintf(stderr, "kevo report: warning: %s; writing the report "
                "without charts\n", r->plot_note);
    else if (r->plot_note[0] && !r->quiet)
        fprintf(stderr, "kevo report: warning: %s\n", r->plot_note);
    cJSON_AddStringToObject(r->json, "run", dir);
    cJSON_AddStringToObject(r->json, "out", r->out);
    cJSON_AddBoolToObject(r->json, "gnuplot", r->have_gnuplot);
    cJSON_AddStringToObject(r->json, "plot_note", r->plot_note);
    cJSON *jp = cJSON_AddArrayToObject(r->json, "plots");
    for (int i = 0; i < pl->n; i++)
        cJSON_AddItemToArray(jp, cJSON_CreateString(pl->name[i]));
    cJSON_AddNumberToObject(r->json, "evaluations", (double)r->evals);
    write_body(r, pl);
    free(pl);
    return write_outputs(r, err, errcap);
}

int cmd_report_main(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    int json = 0, quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(report_usage, stdout);
            return EXIT_DONE;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--quiet")) {
            quiet = 1;
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out = argv[++i];
        } else if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "kevo report: unexpected argument '%s' (see "
                    "--help)\n", argv[i]);
            return EXIT_USAGE;
        } else {
            dir = argv[i];
        }
    }
    if (!dir) {
        fprintf(stderr, "kevo report: expected a run directory (see "
                "--help)\n");
        return EXIT_USAGE;
    }
    struct report *r = calloc(1, sizeof *r);
    char err[1024] = "";
    if (!r || !(r->json = cJSON_CreateObject())) {
        free(r);
        fprintf(stderr, "kevo report: out of memory\n");
        return EXIT_ERROR;
    }
    r->quiet = quiet;
    int rc = report_run(r, dir, out, err, sizeof err);
    if (rc)
        fprintf(stderr, "kevo report: %s\n", err[0] ? err
                                                    : kevo_strerror(rc));
    else if (json)
        outputs_print_json(r->json);
    else if (!quiet)
        fprintf(stderr, "kevo report: wrote '%s/report.md' and "
                "'%s/report.html'\n", r->out, r->out);
    doc_release(&r->d);
    run_view_release(&r->v);
    free(r->muts);
    cJSON_Delete(r->json);
    free(r);
    return rc ? EXIT_ERROR : EXIT_DONE;
}
