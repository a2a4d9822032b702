/*
 * cmd_promote.c - `kevo promote <run> [template]`: copies a template that
 * an LLM answer made in a run into the template library, once `kevo
 * verify` has re-measured it within noise on the run's GPU and software,
 * so that the next run on any shape starts from it. The copy is the
 * template text the run used, unchanged, under a block of
 * "// kevo: provenance KEY VALUE" lines (tpl.h; provenance.h reads them,
 * kevo list shows them): run, dates, model, prompt hash, answer key, GPU,
 * problem/dtype/shape, point, fitness, ratio and the verify drift.
 * Refuses, saying why: no verify.json, a template verify did not verify
 * (drift, failure, another GPU or software, not among those it
 * re-measured), a shipped template, one already in the library (same code
 * and directives), a file of that name. Reads the run; writes one file.
 */
#include "cmd_promote.h"

#include <getopt.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd_outputs.h"
#include "cmd_run.h"
#include "cmd_sanitize.h"
#include "fsutil.h"
#include "hash.h"
#include "progress.h"
#include "provenance.h"
#include "record.h"
#include "rundir.h"
#include "vdoc.h"
#include "version.h"

#define MAX_VERIFY_TOP 32 /* kevo verify --top's limit (cmd_verify.c) */
#define MAX_PROV 24

static const char usage[] =
    "usage: kevo promote <run-dir> [template] [--to DIR] [--name NAME]\n"
    "                    [--force]\n"
    "\n"
    "Adds a template born from an LLM answer in a run to the template\n"
    "library, so that the next run (any shape) starts from it. The template\n"
    "(default: the one of the run's best kernel) must have passed `kevo\n"
    "verify <run-dir>`: its kernel re-measured correct and within noise, on\n"
    "the run's GPU and software. The file written is the template text the\n"
    "run used, unchanged, under '// kevo: provenance KEY VALUE' lines: the\n"
    "run and its date, the model, the prompt hash and the answer key\n"
    "(<run-dir>/llm/<key>.json), the GPU, problem, dtype and shape, the\n"
    "kernel's point, fitness and ratio to the baseline, and the verify\n"
    "drift. `kevo list` shows them.\n"
    "\n"
    "  --to DIR     library to add to (default: the templates directory kevo\n"
    "               run uses: $KEVO_TEMPLATES, ./templates, or the one next\n"
    "               to kevo; for a user-defined problem the problems\n"
    "               directory, as kevo list finds it); writes\n"
    "               DIR/<problem>/<name>.cu, making folders\n"
    "  --name NAME  template name = file name (default <problem>_<template>,\n"
    "               e.g. softmax_llm_8fa86405); letters, digits, '_' and\n"
    "               '-', not starting with 'llm_' (kept for run-born ones)\n"
    "  --force      replace an earlier promotion of the same name (never a\n"
    "               template that kevo promote did not write)\n"
    "  --no-sanitize  skip the sanitizer gate (below)\n"
    "  --sanitizer-path PATH  compute-sanitizer for the gate\n"
    "\n"
    "The winner must also pass the sanitizer pass (kevo verify --sanitize:\n"
    "compute-sanitizer memcheck, racecheck, synccheck, initcheck): a\n"
    "finding in <run-dir>/sanitize.json refuses; without a record the pass\n"
    "runs now (needs a GPU and compute-sanitizer).\n"
    "\n"
    "Refuses (exit 1, saying why) when the run has no verify.json, when\n"
    "verify did not verify the template (it failed, drifted beyond the\n"
    "noise, was measured on another GPU or software, or was not among the\n"
    "kernels verify re-measured), when it is a shipped template, when the\n"
    "library already holds the same template (same code and directives;\n"
    "says where), or when another file has that name.\n"
    "\n"
    "exit status: 0 promoted, 1 refused or an error, 2 usage\n";

struct promote {
    const char *run;         /* the run directory, as given */
    const char *want;        /* the template named, NULL = the best's */
    const char *to;          /* --to, NULL = kevo run's library */
    const char *name_opt;    /* --name, NULL = <problem>_<template> */
    int force;               /* --force */
    int sanitize;            /* -1 --no-sanitize, 0 default (cmd_sanitize.h) */
    const char *sanitizer;   /* --sanitizer-path, NULL = found */
    struct run_view v;       /* the run, owned */
    const struct tpl *t;     /* the template to promote, borrowed */
    const struct rec_llm *birth; /* its first "llm" record, borrowed */
    const struct vdoc_entry *ventry; /* its verify.json entry, borrowed */
    const struct rec_eval *eval; /* that kernel's journal record */
    cJSON *transcript;       /* llm/<key>.json, owned (may be NULL) */
    char name[TPL_NAME_MAX]; /* the library name */
    char lib[4096];          /* the library directory */
    char dest[4096 + TPL_NAME_MAX + 40]; /* lib/<problem>/<name>.cu */
    int n_prov;              /* provenance lines filled */
    char prov[MAX_PROV][2][512]; /* KEY, VALUE */
    char err[2048];          /* why it failed, one line */
};

/* ---------------------------------------------------------- the run */

/* The template to promote: named, else the best kernel's; it must be
 * one an LLM answer made in this run. */
static int pick_template(struct promote *p)
{
    const char *name = p->want       ? p->want
                       : p->v.has_best ? p->v.best.tpl
                                       : NULL;
    if (!name) {
        snprintf(p->err, sizeof p->err, "run '%s' has no correct kernel, so "
                 "no best template to promote", p->run);
        return KEVO_ENOENT;
    }
    for (int i = 0; i < p->v.n_tpls; i++)
        if (!strcmp(p->v.tpls[i]->name, name)) {
            snprintf(p->err, sizeof p->err, "template '%s' is not born from "
                     "an LLM answer: the run copied it from the library "
                     "('%s/templates/%s/%s.cu'); kevo promote adds the ones "
                     "the run's LLM answers made (llm_...)", name, p->run,
                     p->v.spec.problem, name);
            return KEVO_EINVAL;
        }
    if (!(p->t = run_view_tpl(&p->v, name))) {
        char why[1500];
        run_view_tpl_missing(&p->v, name, why, sizeof why);
        snprintf(p->err, sizeof p->err, "run '%s': %s", p->run, why);
        return KEVO_ENOENT;
    }
    for (int i = 0; !p->birth && i < p->v.n_records; i++) {
        const struct rec_llm *l = &p->v.recs[i].u.llm;
        if (p->v.recs[i].type == REC_LLM && l->has_tpl &&
            !strcmp(l->tpl, name))
            p->birth = l;
    }
    if (!p->birth) /* (run_view found it through such a record) */
        snprintf(p->err, sizeof p->err, "template '%s' has no \"llm\" record "
                 "in '%s/journal.jsonl'", name, p->run);
    return p->birth ? KEVO_OK : KEVO_EPARSE;
}

/* Rank (1-based) of template name's fittest kernel among the run's
 * distinct correct kernels, as kevo verify orders them; 0 if it has none,
 * MAX_VERIFY_TOP + 1 past that. */
static int verify_rank(const struct promote *p, const char *name)
{
    double best = -1;
    const struct rec_eval *e;
    for (int i = 0; i < p->v.n_records; i++)
        if ((e = run_view_eval(&p->v, i)) && !strcmp(e->tpl, name) &&
            e->r.outcome == EVAL_OK && e->r.median_ns > 0 &&
            e->r.fitness > best)
            best = e->r.fitness;
    if (best < 0)
        return 0;
    uint64_t seen[MAX_VERIFY_TOP + 1];
    int n = 0;
    for (int i = 0; i < p->v.n_records; i++) {
        int dup = 0;
        if (!(e = run_view_eval(&p->v, i)) || e->r.outcome != EVAL_OK ||
            e->r.median_ns <= 0 || e->r.fitness <= best)
            continue;
        for (int k = 0; k < n; k++)
            dup |= seen[k] == e->hash;
        if (!dup && n == MAX_VERIFY_TOP)
            return MAX_VERIFY_TOP + 1;
        if (!dup)
            seen[n++] = e->hash;
    }
    return n + 1;
}

/* "a (hash), b (hash)" of the kernels verify.json holds. */
static void verified_list(const struct vdoc *verify, char *out, size_t cap)
{
    size_t k = 0;
    out[0] = '\0';
    for (int i = 0; i < verify->n_entries && k < cap; i++) {
        const struct vdoc_entry *e = &verify->entries[i];
        k += (size_t)snprintf(out + k, cap - k, "%s%s (%s)", k ? ", " : "",
                              *e->tpl ? e->tpl : "?",
                              *e->hash ? e->hash : "?");
    }
}

static int not_in_top(struct promote *p)
{
    char list[600];
    int rank = verify_rank(p, p->t->name);
    verified_list(p->v.verify, list, sizeof list);
    int k = snprintf(p->err, sizeof p->err, "kevo verify did not verify "
                     "template '%s': it is not among the kernels it "
                     "re-measured (%s)", p->t->name, list[0] ? list : "none");
    if (rank == 0)
        snprintf(p->err + k, sizeof p->err - (size_t)k, ", and the run has "
                 "no correct timed kernel of it");
    else if (rank > MAX_VERIFY_TOP)
        snprintf(p->err + k, sizeof p->err - (size_t)k, "; its fittest "
                 "kernel ranks below the %d that kevo verify can re-measure",
                 MAX_VERIFY_TOP);
    else
        snprintf(p->err + k, sizeof p->err - (size_t)k, "; its fittest "
                 "kernel ranks #%d in the run: run `kevo verify %s --top %d`",
                 rank, p->run, rank);
    return KEVO_EINVAL;
}

/* The template's kernel in verify.json (the run's best if it is one, else
 * its fittest) and its journal record. */
static int find_entry(struct promote *p)
{
    if (!p->v.verify) {
        snprintf(p->err, sizeof p->err, "run '%s' has no verify.json: "
                 "re-measure it first with `kevo verify %s` (needs the "
                 "run's GPU); only a verified template is promoted", p->run,
                 p->run);
        return KEVO_ENOENT;
    }
    for (int i = 0; i < p->v.verify->n_entries; i++) {
        const struct vdoc_entry *e = &p->v.verify->entries[i];
        if (!strcmp(e->tpl, p->t->name) && (!p->ventry || e->best))
            p->ventry = e;
    }
    if (!p->ventry)
        return not_in_top(p);
    const char *h = *p->ventry->hash ? p->ventry->hash : NULL;
    uint64_t hv;
    p->eval = h && strlen(h) == 16 && !hash_parse(h, &hv)
                  ? run_view_find_eval(&p->v, hv) : NULL;
    if (!p->eval || p->eval->r.outcome != EVAL_OK ||
        strcmp(p->eval->tpl, p->t->name)) {
        snprintf(p->err, sizeof p->err, "'%s/verify.json' does not match the "
                 "run: its kernel %s of '%s' is no correct kernel of that "
                 "template in the journal; run `kevo verify %s` again",
                 p->run, h ? h : "?", p->t->name, p->run);
        return KEVO_EPARSE;
    }
    return KEVO_OK;
}

/* Whether kevo verify verified that kernel: correct in every round, on
 * the run's GPU and software, within noise (each says why not). */
static int check_verified(struct promote *p)
{
    int rc = find_entry(p);
    if (rc)
        return rc;
    const struct vdoc *vf = p->v.verify;
    const struct vdoc_entry *x = p->ventry;
    const char *h = x->hash, *oc = *x->outcome ? x->outcome : NULL,
               *detail = *x->detail ? x->detail : NULL,
               *diff = vf->differences;
    int k = snprintf(p->err, sizeof p->err, "kevo verify did not verify "
                     "template '%s': ", p->t->name);
    char *w = p->err + k;
    size_t cap = sizeof p->err - (size_t)k;
    if (!oc || strcmp(oc, "ok"))
        snprintf(w, cap, "its kernel %s was %s when re-measured%s%s", h,
                 oc ? oc : "not measured", detail ? ": " : "",
                 detail ? detail : "");
    else if (!vf->same_gpu || !vf->same_software)
        snprintf(w, cap, "it re-measured it on another %s than the run's "
                 "(%s); verify on the run's machine",
                 !vf->same_gpu ? "GPU" : "software stack",
                 *diff ? diff : "differences not recorded");
    else if (!x->within_noise)
        snprintf(w, cap, "its kernel %s drifted %+.2f%% from the recorded "
                 "time, beyond the noise (%.2f%%)", h, x->drift * 100,
                 x->noise * 100);
    else
        return KEVO_OK;
    return KEVO_EINVAL;
}

/* llm/<key>.json of the template's first answer (model, provider), or
 * NULL when it is gone (the template came from llm/templates/). */
static void read_transcript(struct promote *p)
{
    char rel[64], path[4096], *text;
    const char *key = p->birth->key;
    if (strspn(key, "0123456789abcdef") != strlen(key))
        return;
    snprintf(rel, sizeof rel, "llm/%s.json", key);
    if (rundir_path(path, sizeof path, p->run, rel) ||
        fs_read_file(path, &text, NULL))
        return;
    p->transcript = cJSON_Parse(text);
    free(text);
}

/* ------------------------------------------------------- provenance */

static void add(struct promote *p, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Adds one KEY VALUE line; the value is kept on one line. */
static void add(struct promote *p, const char *key, const char *fmt, ...)
{
    if (p->n_prov == MAX_PROV)
        return;
    char *k = p->prov[p->n_prov][0], *val = p->prov[p->n_prov][1];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(val, sizeof p->prov[0][1], fmt, ap);
    va_end(ap);
    for (char *c = val; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t')
            *c = ' ';
    if (!*val)
        snprintf(val, sizeof p->prov[0][1], "?");
    snprintf(k, sizeof p->prov[0][0], "%s", key);
    p->n_prov++;
}

static void iso_date(double epoch_s, char *out, size_t cap)
{
    time_t t = (time_t)epoch_s;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* "provider:model" of the answer, else the run's --llm up to its URL. */
static void model_of(const struct promote *p, char *out, size_t cap)
{
    const char *pv = record_str(p->transcript, "provider"),
               *m = record_str(p->transcript, "model");
    if (pv && m) {
        snprintf(out, cap, "%s:%s", pv, m);
        return;
    }
    const char *llm = record_str(cJSON_GetObjectItemCaseSensitive(
                                     p->v.manifest, "spec"), "llm");
    snprintf(out, cap, "%.*s", llm ? (int)strcspn(llm, "@") : 1,
             llm ? llm : "?");
}

/* "NAME=v NAME=v" of the verified kernel, in the template's order. */
static void point_of(const struct promote *p, char *out, size_t cap)
{
    int64_t vals[TPL_MAX_PARAMS];
    size_t k = 0;
    run_view_point(p->t, p->eval, vals);
    out[0] = '\0';
    for (int i = 0; i < p->t->n_params && k < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%s=%lld", i ? " " : "",
                              p->t->params[i].name, (long long)vals[i]);
    if (!p->t->n_params)
        snprintf(out, cap, "(no parameters)");
}

static void fill_provenance(struct promote *p)
{
    char date[40], s[512], fit[64], tk[17], hex[17];
    const struct spec *sp = &p->v.spec;
    const struct vdoc *vf = p->v.verify;
    const cJSON *bl = run_view_baselines(&p->v);
    const char *base = bl ? record_str(cJSON_GetArrayItem(bl, 0), "name")
                          : NULL;
    iso_date(fs_wall_s(), date, sizeof date);
    add(p, "promoted", "%s by kevo promote (kevo %s, %s)", date, KEVO_VERSION,
        kevo_git_commit());
    add(p, "run", "%s", p->run);
    iso_date(record_num(p->v.manifest, "created", 0), date, sizeof date);
    add(p, "run_date", "%s", date);
    hash_hex(p->t->hash, tk);
    add(p, "template", "%s (text hash %s)", p->t->name, tk);
    model_of(p, s, sizeof s);
    add(p, "model", "%s", s);
    add(p, "op", "%s", p->birth->op);
    hash_hex(p->birth->prompt, hex);
    add(p, "prompt", "%s", hex);
    add(p, "answer", "%s (%s/llm/%s.json)", p->birth->key, p->run,
        p->birth->key);
    add(p, "gpu", "%s", *run_view_gpu(&p->v) ? run_view_gpu(&p->v)
                        : "none recorded (the run's evaluator named none)");
    problem_format_shape(&sp->shape, s, sizeof s);
    add(p, "problem", "%s %s %s", sp->problem, dtype_name(sp->dtype), s);
    point_of(p, s, sizeof s);
    add(p, "point", "%s", s);
    progress_fmt_fitness(p->eval->r.fitness, p->v.prob->work_unit, fit,
                         sizeof fit);
    hash_hex(p->eval->hash, hex);
    add(p, "fitness", "%s, median %.4g ns (kernel %s)", fit,
        p->eval->r.median_ns, hex);
    add(p, "ratio", "%.3fx %s", p->eval->r.ratio,
        base ? base : "the baseline");
    add(p, "verify", "%s: drift %+.2f%%, noise %.2f%%, re-measured %.3fx "
        "%s, same GPU and software (%d rounds)", vf->date,
        p->ventry->drift * 100, p->ventry->noise * 100,
        p->ventry->measured_ratio, base ? base : "the baseline", vf->reps);
}

/* The file: the provenance lines, then the template text without any
 * provenance lines of its own (an answer that copied a promoted
 * template's). New string; caller frees. */
static char *compose(const struct promote *p)
{
    char *body = prov_strip(p->t->text);
    size_t n = body ? strlen(body) + 1 : 0;
    for (int i = 0; i < p->n_prov; i++)
        n += strlen(p->prov[i][0]) + strlen(p->prov[i][1]) + 24;
    char *out = body ? malloc(n) : NULL;
    size_t k = 0;
    for (int i = 0; out && i < p->n_prov; i++)
        k += (size_t)snprintf(out + k, n - k, "// kevo: provenance %s %s\n",
                              p->prov[i][0], p->prov[i][1]);
    if (out)
        snprintf(out + k, n - k, "%s", body);
    free(body);
    return out;
}

/* ---------------------------------------------------------- library */

static int check_name(struct promote *p)
{
    if (!p->name_opt)
        snprintf(p->name, sizeof p->name, "%.31s_%.31s", p->v.spec.problem,
                 p->t->name);
    const char *n = p->name_opt ? p->name_opt : p->name;
    size_t len = strlen(n);
    if (!len || len >= TPL_NAME_MAX ||
        strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                  "0123456789_-") != len || n[0] == '-' || n[0] == '_') {
        snprintf(p->err, sizeof p->err, "--name '%s': a template name is 1 "
                 "to %d letters, digits, '_' or '-', starting with a letter "
                 "or digit (it is the file name)", n, TPL_NAME_MAX - 1);
        return KEVO_EINVAL;
    }
    if (!strncmp(n, "llm_", 4)) {
        snprintf(p->err, sizeof p->err, "--name '%s': names starting with "
                 "'llm_' are those a run gives the templates its LLM answers "
                 "make; a library template named so would clash with them",
                 n);
        return KEVO_EINVAL;
    }
    if (p->name_opt)
        snprintf(p->name, sizeof p->name, "%s", n);
    return KEVO_OK;
}

/* The library directory and lib/<problem>/<name>.cu. */
static int find_library(struct promote *p)
{
    /* a user problem's templates sit next to its file: the problems
     * directory (README "User-defined problems"), not templates/ */
    int user = p->v.prob && p->v.prob->file_text;
    int rc = user && !p->to ? cli_problems_dir(NULL, p->lib, sizeof p->lib)
                            : cli_templates_dir(p->to, p->lib, sizeof p->lib);
    if (rc == KEVO_ENOENT && p->to) {
        snprintf(p->lib, sizeof p->lib, "%s", p->to);
        rc = KEVO_OK; /* made below */
    }
    if (rc) {
        snprintf(p->err, sizeof p->err, "template directory '%s': %s (name "
                 "one with --to)", p->to ? p->to : "templates",
                 kevo_strerror(rc));
        return rc;
    }
    snprintf(p->dest, sizeof p->dest, "%s/%s/%s.cu", p->lib,
             p->v.spec.problem, p->name);
    return KEVO_OK;
}

/* " (promoted from run R)" for a message, if text holds provenance. */
static void promoted_from(const char *text, char *out, size_t cap)
{
    cJSON *o = prov_read(text);
    const char *run = record_str(o, "run");
    out[0] = '\0';
    if (o && o->child)
        snprintf(out, cap, " (promoted from run '%s')", run ? run : "?");
    cJSON_Delete(o);
}

/* Refuses a template the library holds already (the same text once
 * provenance lines are set aside), in any problem folder. */
static int check_duplicate(struct promote *p)
{
    char pattern[4200];
    glob_t g;
    uint64_t want = prov_body_hash(p->t->text);
    snprintf(pattern, sizeof pattern, "%s/*/*.cu", p->lib);
    int grc = glob(pattern, 0, NULL, &g), rc = KEVO_OK;
    if (grc == GLOB_NOMATCH)
        return KEVO_OK;
    if (grc) {
        snprintf(p->err, sizeof p->err, "cannot list '%s'", pattern);
        return KEVO_EIO;
    }
    for (size_t i = 0; !rc && i < g.gl_pathc; i++) {
        char *text, from[600];
        if (fs_read_file(g.gl_pathv[i], &text, NULL))
            continue; /* unreadable: kevo list / run say so */
        if (prov_body_hash(text) == want &&
            !(p->force && !strcmp(g.gl_pathv[i], p->dest))) {
            promoted_from(text, from, sizeof from);
            snprintf(p->err, sizeof p->err, "template '%s' is already in the "
                     "library: '%s'%s", p->t->name, g.gl_pathv[i], from);
            rc = KEVO_EEXIST;
        }
        free(text);
    }
    globfree(&g);
    return rc;
}

/* Refuses to overwrite a file of that name, unless --force and it is an
 * earlier promotion. */
static int check_clash(struct promote *p)
{
    char *text, from[600];
    if (!fs_exists(p->dest))
        return KEVO_OK;
    int rc = fs_read_file(p->dest, &text, NULL);
    if (rc) {
        snprintf(p->err, sizeof p->err, "cannot read '%s': %s", p->dest,
                 kevo_strerror(rc));
        return rc;
    }
    promoted_from(text, from, sizeof from);
    free(text);
    if (!from[0]) {
        snprintf(p->err, sizeof p->err, "'%s' exists and is not a promoted "
                 "template: choose another name with --name", p->dest);
        return KEVO_EEXIST;
    }
    if (!p->force) {
        snprintf(p->err, sizeof p->err, "'%s' exists%s: choose another name "
                 "with --name, or replace it with --force", p->dest, from);
        return KEVO_EEXIST;
    }
    return KEVO_OK;
}

/* The new file parses under its name and folder, then is written. */
static int write_template(struct promote *p, const char *text)
{
    struct tpl *t = NULL;
    char dir[sizeof p->dest], e[1024];
    int rc = tpl_parse(p->name, p->dest, text, &t, e, sizeof e);
    if (!rc && strcmp(t->problem, p->v.spec.problem)) {
        snprintf(e, sizeof e, "its problem '%s' is not the run's '%s'",
                 t->problem, p->v.spec.problem);
        rc = KEVO_EPARSE;
    }
    tpl_free(t);
    if (rc) {
        snprintf(p->err, sizeof p->err, "the promoted template would not "
                 "load: %s", e);
        return rc;
    }
    snprintf(dir, sizeof dir, "%s/%s", p->lib, p->v.spec.problem);
    if ((rc = fs_mkdirs(dir))) {
        snprintf(p->err, sizeof p->err, "cannot make '%s': %s", dir,
                 kevo_strerror(rc));
        return rc;
    }
    rc = p->force ? fs_write_atomic(p->dest, text, strlen(text))
                  : fs_write_new(p->dest, text, strlen(text), 1);
    if (rc)
        snprintf(p->err, sizeof p->err, "cannot write '%s': %s", p->dest,
                 kevo_strerror(rc));
    return rc;
}

/* ------------------------------------------------------------- main */

static int parse_args(int argc, char **argv, struct promote *p)
{
    static const struct option opts[] = {
        {"to", 1, 0, 't'}, {"name", 1, 0, 'n'}, {"force", 0, 0, 'f'},
        {"no-sanitize", 0, 0, 'S'}, {"sanitizer-path", 1, 0, 'P'},
        {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(usage, stdout); return -1;
        case 't': p->to = optarg; break;
        case 'n': p->name_opt = optarg; break;
        case 'f': p->force = 1; break;
        case 'S': p->sanitize = -1; break;
        case 'P': p->sanitizer = optarg; break;
        default:
            fprintf(stderr, "kevo promote: %s '%s' (see kevo promote "
                    "--help)\n", optopt ? "option needs a value:"
                    : "unknown option", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (optind == argc || argc - optind > 2) {
        fprintf(stderr, "kevo promote: expected a run directory and at most "
                "one template name (see kevo promote --help)\n");
        return EXIT_USAGE;
    }
    p->run = argv[optind];
    p->want = optind + 1 < argc ? argv[optind + 1] : NULL;
    return 0;
}

static int promote(struct promote *p)
{
    int rc = run_view_load(p->run, &p->v, p->err, sizeof p->err);
    struct sanitize_opts so = {.sanitizer = p->sanitizer};
    if (rc || (rc = pick_template(p)) || (rc = check_verified(p)) ||
        (p->t == p->v.best_tpl &&
         (rc = sanitize_gate(&p->v, p->sanitize, &so, p->err,
                             sizeof p->err))) ||
        (rc = check_name(p)) || (rc = find_library(p)) ||
        (rc = check_duplicate(p)) || (rc = check_clash(p)))
        return rc;
    read_transcript(p);
    fill_provenance(p);
    char *text = compose(p);
    if (!text)
        return KEVO_ENOMEM;
    rc = write_template(p, text);
    free(text);
    if (rc)
        return rc;
    printf("promoted template '%s' of run '%s' as '%s': %s\n", p->t->name,
           p->run, p->name, p->dest);
    for (int i = 0; i < p->n_prov; i++)
        printf("  %-9s %s\n", p->prov[i][0], p->prov[i][1]);
    printf("kevo list%s%s shows it; kevo run uses it on any %s shape it "
           "supports\n", p->to ? " --templates-dir " : "",
           p->to ? p->lib : "", p->v.spec.problem);
    return KEVO_OK;
}

int cmd_promote_main(int argc, char **argv)
{
    static struct promote p; /* large; one per process */
    memset(&p, 0, sizeof p);
    int x = parse_args(argc, argv, &p);
    if (x)
        return x < 0 ? EXIT_DONE : x;
    int rc = promote(&p);
    if (rc)
        fprintf(stderr, "kevo promote: %s\n", p.err[0] ? p.err
                                                      : kevo_strerror(rc));
    cJSON_Delete(p.transcript);
    run_view_release(&p.v);
    return rc ? EXIT_ERROR : EXIT_DONE;
}
