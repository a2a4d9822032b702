/*
 * cmd_board.c - `kevo leaderboard <dir>...`: the best kernel of each run,
 * one table per (problem, dtype, shape, GPU), with throughput, ratio to
 * each baseline and whether a later `kevo verify` (<run>/verify.json)
 * confirmed it on the same GPU. Markdown on stdout (or JSON); with --out
 * PREFIX also PREFIX.md, PREFIX.csv, PREFIX.json and, per run, its
 * evaluations in the auto-tuning community's T4 results format
 * (PREFIX-t4/<run>.json: schema_version, results[] with configuration,
 * times, invalidity, correctness, measurements, objectives). A run that
 * cannot be ranked (unreadable, no winner, half made) is left out with a
 * warning naming it and why; the rest are ranked.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd_outputs.h"
#include "cmd_run.h"
#include "cmd_sanitize.h"
#include "eval.h"
#include "fsutil.h"
#include "hash.h"
#include "progress.h"
#include "quote.h"
#include "record.h"
#include "vdoc.h"

#define T4_SCHEMA_VERSION "1.0.0"
#define MAX_DEPTH 3

struct entry {
    char run[4096];       /* run directory */
    char name[128];       /* run name */
    char group[512];      /* "problem dtype shape on GPU" */
    char problem[32], dtype[8], shape[64], gpu[128], uuid[128];
    char tpl[64], hash[24], params[512], unit[16];
    double fitness, median_ns;
    long evals;
    cJSON *ratios;        /* {baseline: ratio}, owned */
    char verified[32];    /* "yes", "no", "failed", "other hardware" */
    char verify_note[256];
};

struct board {
    struct entry *e;
    int n, cap;
    int n_skipped;        /* bad runs left out, each with a warning */
    cJSON *t4;            /* {run dir: T4 document}, owned */
    int quiet;
};

/* --------------------------------------------------------- scanning */

static int has(const char *dir, const char *name)
{
    char path[4096];
    return !fs_join(path, sizeof path, dir, name) && fs_exists(path);
}

static int is_run(const char *dir)
{
    return has(dir, "manifest.json");
}

/* A run directory without its manifest (made and abandoned before the
 * run started, or damaged). */
static int is_half_run(const char *dir)
{
    return has(dir, "journal.jsonl") || has(dir, "sources") ||
           has(dir, "best.json");
}

static void skip(struct board *bd, const char *dir, const char *why)
{
    bd->n_skipped++;
    fprintf(stderr, "kevo leaderboard: warning: skipping '%s': %s\n", dir,
            why);
}

static const char *verify_state(const struct run_view *v, char *note,
                                size_t cap)
{
    const struct vdoc *vf = v->verify; /* verify.json (run/vdoc.h) */
    note[0] = '\0';
    if (!vf)
        return "no";
    const char *uuid = vf->gpu.uuid, *name = vf->gpu.name;
    const char *ru = record_str(run_view_env(v, "device"), "uuid");
    snprintf(note, cap, "drift %+.1f %%", vf->drift * 100);
    if (!vf->verified)
        return "failed";
    if (*uuid && (!ru || strcmp(uuid, ru))) {
        snprintf(note + strlen(note), cap - strlen(note), "%son %s",
                 note[0] ? ", " : "", *name ? name : uuid);
        return "other hardware";
    }
    return "yes";
}

static const char *t4_invalidity(const char *outcome)
{
    static const char *const map[][2] = {
        {"ok", "correct"},         {"compile_error", "compile"},
        {"crashed", "runtime"},    {"wrong", "correctness"},
        {"cheat", "correctness"},  {"timeout", "timeout"},
        {"unsupported", "constraints"}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(outcome, map[i][0]))
            return map[i][1];
    return "runtime";
}

static void add_measure(cJSON *arr, const char *name, double v,
                        const char *unit)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "name", name);
    cJSON_AddNumberToObject(m, "value", v);
    cJSON_AddStringToObject(m, "unit", unit);
    cJSON_AddItemToArray(arr, m);
}

/* One evaluation as a T4 result (times in ms, as Kernel Tuner writes). */
static cJSON *t4_result(const struct run_view *v, const struct rec_eval *e)
{
    cJSON *o = cJSON_CreateObject();
    char ts[64], hex[17];
    time_t t = (time_t)(record_num(v->manifest, "created", 0) + e->t);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON_AddStringToObject(o, "timestamp", ts);
    cJSON *c = cJSON_CreateObject();
    for (int i = 0; c && i < e->n_params; i++)
        cJSON_AddNumberToObject(c, e->names[i], (double)e->vals[i]);
    cJSON_AddStringToObject(c, "template", e->tpl);
    cJSON_AddItemToObject(o, "configuration", c);
    const char *oc = eval_outcome_name(e->r.outcome);
    int ok = e->r.outcome == EVAL_OK;
    cJSON *tm4 = cJSON_AddObjectToObject(o, "times");
    cJSON_AddNumberToObject(tm4, "compilation", e->r.compile_ms);
    cJSON_AddNumberToObject(tm4, "validation", e->r.check_ms);
    cJSON_AddNumberToObject(tm4, "benchmark", e->r.time_ms);
    cJSON *rt = cJSON_AddArrayToObject(tm4, "runtimes");
    if (ok)
        cJSON_AddItemToArray(rt, cJSON_CreateNumber(e->r.median_ns / 1e6));
    cJSON_AddStringToObject(o, "invalidity", t4_invalidity(oc));
    cJSON_AddNumberToObject(o, "correctness", ok ? 1 : 0);
    cJSON *m = cJSON_AddArrayToObject(o, "measurements");
    if (ok) {
        add_measure(m, "time", e->r.median_ns / 1e6, "ms");
        add_measure(m, "min_time", e->r.min_ns / 1e6, "ms");
        add_measure(m, "spread", e->r.spread, "");
        add_measure(m, "throughput", e->r.fitness, v->prob->work_unit);
    }
    cJSON *obj = cJSON_AddArrayToObject(o, "objectives");
    cJSON_AddItemToArray(obj, cJSON_CreateString("time"));
    cJSON_AddStringToObject(o, "kevo_outcome", oc);
    hash_hex(e->hash, hex);
    cJSON_AddStringToObject(o, "kevo_hash", hex);
    return o;
}

static cJSON *t4_doc(const struct run_view *v)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "schema_version", T4_SCHEMA_VERSION);
    cJSON *rs = cJSON_AddArrayToObject(d, "results");
    for (int i = 0; i < v->n_records; i++)
        if (run_view_eval(v, i))
            cJSON_AddItemToArray(rs, t4_result(v, run_view_eval(v, i)));
    return d;
}

/* The entry of run v, which has a winner. */
static void fill_entry(struct entry *e, const struct run_view *v)
{
    const struct rec_best *b = &v->best;
    const cJSON *dev = run_view_env(v, "device");
    snprintf(e->run, sizeof e->run, "%s", v->dir);
    snprintf(e->name, sizeof e->name, "%s", v->spec.name);
    snprintf(e->problem, sizeof e->problem, "%s", v->prob->name);
    snprintf(e->dtype, sizeof e->dtype, "%s", dtype_name(v->spec.dtype));
    problem_format_shape(&v->spec.shape, e->shape, sizeof e->shape);
    snprintf(e->gpu, sizeof e->gpu, "%s", run_view_gpu(v)[0]
                                              ? run_view_gpu(v)
                                              : "no GPU recorded");
    const char *u = record_str(dev, "uuid");
    snprintf(e->uuid, sizeof e->uuid, "%s", u ? u : "");
    snprintf(e->group, sizeof e->group, "%s %s %s on %s", e->problem,
             e->dtype, e->shape, e->gpu);
    snprintf(e->unit, sizeof e->unit, "%s", v->prob->work_unit);
    e->ratios = cJSON_CreateObject();
    e->evals = run_view_outcomes(v, NULL);
    snprintf(e->verified, sizeof e->verified, "%s",
             verify_state(v, e->verify_note, sizeof e->verify_note));
    sanitize_note(v->dir, v->best_hex, e->verify_note, sizeof e->verify_note);
    snprintf(e->tpl, sizeof e->tpl, "%s", v->best_tpl->name);
    hash_hex(b->hash, e->hash);
    size_t n = 0;
    for (int i = 0; i < v->best_tpl->n_params && n < sizeof e->params; i++)
        n += (size_t)snprintf(e->params + n, sizeof e->params - n, "%s%s=%lld",
                              i ? " " : "", v->best_tpl->params[i].name,
                              (long long)v->best_vals[i]);
    e->fitness = b->fitness;
    e->median_ns = b->median_ns;
    for (int i = 0; i < run_view_n_baselines(v); i++) {
        struct record_baseline bl;
        run_view_baseline(v, i, &bl);
        if (bl.fitness > 0 && bl.name[0])
            cJSON_AddNumberToObject(e->ratios, bl.name,
                                    e->fitness / bl.fitness);
    }
}

/* Adds run dir, or skips it with a warning when it cannot be ranked
 * (only running out of memory is an error). */
static int add_run(struct board *bd, const char *dir)
{
    struct run_view v;
    char why[1024] = "";
    int rc = run_view_load(dir, &v, why, sizeof why);
    if (rc == KEVO_ENOMEM)
        return rc;
    if (rc) {
        skip(bd, dir, why[0] ? why : kevo_strerror(rc));
        return KEVO_OK;
    }
    if (!v.has_best) {
        skip(bd, dir, "no winner: no evaluation passed the checks");
        run_view_release(&v);
        return KEVO_OK;
    }
    if (bd->n == bd->cap) {
        int cap = bd->cap ? 2 * bd->cap : 16;
        struct entry *ne = realloc(bd->e, (size_t)cap * sizeof *ne);
        if (!ne) {
            run_view_release(&v);
            return KEVO_ENOMEM;
        }
        bd->e = ne;
        bd->cap = cap;
    }
    struct entry *e = &bd->e[bd->n++];
    memset(e, 0, sizeof *e);
    fill_entry(e, &v);
    if (bd->t4)
        cJSON_AddItemToObject(bd->t4, dir, t4_doc(&v));
    if (!bd->quiet)
        fprintf(stderr, "kevo leaderboard: %s: %s\n", dir, e->tpl);
    run_view_release(&v);
    return KEVO_OK;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* dir is a run, or holds runs (searched MAX_DEPTH levels down). */
static int scan(struct board *bd, const char *dir, int depth, char *err,
                size_t errcap)
{
    if (is_run(dir))
        return add_run(bd, dir);
    if (depth && is_half_run(dir)) {
        skip(bd, dir, "not a complete run (no manifest.json)");
        return KEVO_OK;
    }
    DIR *d = opendir(dir);
    if (!d) {
        if (depth)
            return KEVO_OK;
        snprintf(err, errcap, "cannot open '%s': not a run directory nor a "
                 "directory of runs", dir);
        return KEVO_ENOENT;
    }
    char **names = NULL;
    int n = 0, rc = KEVO_OK;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char **nn = realloc(names, (size_t)(n + 1) * sizeof *nn);
        if (!nn || !(nn[n] = strdup(de->d_name))) {
            names = nn ? nn : names;
            rc = KEVO_ENOMEM;
            break;
        }
        names = nn;
        n++;
    }
    closedir(d);
    if (names)
        qsort(names, (size_t)n, sizeof *names, name_cmp);
    for (int i = 0; i < n; i++) {
        char path[4096];
        if (!rc && depth < MAX_DEPTH &&
            !fs_join(path, sizeof path, dir, names[i]) && fs_is_dir(path))
            rc = scan(bd, path, depth + 1, err, errcap);
        free(names[i]);
    }
    free(names);
    return rc;
}

/* ---------------------------------------------------------- tables */

static int entry_cmp(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    int c = strcmp(x->group, y->group);
    if (c)
        return c;
    return x->fitness > y->fitness ? -1 : x->fitness < y->fitness;
}

/* Baseline names of group g (entries [from, to)) into a JSON array. */
static cJSON *group_baselines(const struct board *bd, int from, int to)
{
    cJSON *names = cJSON_CreateArray();
    for (int i = from; i < to; i++) {
        const cJSON *r;
        cJSON_ArrayForEach(r, bd->e[i].ratios)
        {
            int seen = 0;
            const cJSON *s;
            cJSON_ArrayForEach(s, names) seen |= !strcmp(s->valuestring,
                                                         r->string);
            if (!seen)
                cJSON_AddItemToArray(names, cJSON_CreateString(r->string));
        }
    }
    return names;
}

static void verified_text(const struct entry *e, char *out, size_t cap)
{
    snprintf(out, cap, "%s%s%s%s", !strcmp(e->verified, "no")
                                       ? "never verified"
                                       : e->verified,
             e->verify_note[0] ? " (" : "", e->verify_note,
             e->verify_note[0] ? ")" : "");
}

/* s as one Markdown table cell (or heading), printable on a terminal:
 * names from run directories may hold '|', newlines or escape sequences
 * (quote.h). */
static void md_text(FILE *f, const char *s)
{
    char *q = quote_term_dup(s ? s : "");
    for (const char *p = q ? q : ""; *p; p++) {
        if (*p == '|')
            fputc('\\', f);
        fputc(*p == '\n' ? ' ' : *p, f);
    }
    free(q);
}

static void md_group(const struct board *bd, FILE *f, int from, int to,
                     const cJSON *bls)
{
    const cJSON *s;
    fprintf(f, "\n## ");
    md_text(f, bd->e[from].group);
    fprintf(f, "\n\n| rank | run | template | parameters | throughput | "
               "median |");
    cJSON_ArrayForEach(s, bls)
    {
        fprintf(f, " vs ");
        md_text(f, s->valuestring);
        fprintf(f, " |");
    }
    fprintf(f, " verified |\n|---|---|---|---|---|---|");
    cJSON_ArrayForEach(s, bls) fprintf(f, "---|");
    fprintf(f, "---|\n");
    for (int i = from; i < to; i++) {
        const struct entry *e = &bd->e[i];
        char fit[64], ver[320];
        progress_fmt_fitness(e->fitness, e->unit, fit, sizeof fit);
        verified_text(e, ver, sizeof ver);
        fprintf(f, "| %d | ", i - from + 1);
        md_text(f, e->name);
        fprintf(f, " | ");
        md_text(f, e->tpl);
        fprintf(f, " | ");
        md_text(f, e->params);
        fprintf(f, " | %s | %.1f ns |", e->fitness > 0 ? fit : "-",
                e->median_ns);
        cJSON_ArrayForEach(s, bls)
        {
            const cJSON *r = cJSON_GetObjectItem(e->ratios, s->valuestring);
            if (cJSON_IsNumber(r))
                fprintf(f, " %.3fx |", r->valuedouble);
            else
                fprintf(f, " - |");
        }
        fputc(' ', f);
        md_text(f, ver);
        fprintf(f, " |\n");
    }
}

static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_all(const struct board *bd, FILE *f)
{
    fprintf(f, "problem,dtype,shape,gpu,rank,run,run_dir,template,params,"
               "hash,fitness,unit,median_ns,ratios,verified,verify_note,"
               "evaluations\n");
    for (int i = 0, rank = 0; i < bd->n; i++) {
        const struct entry *e = &bd->e[i];
        rank = i && !strcmp(e->group, bd->e[i - 1].group) ? rank + 1 : 1;
        const char *cells[] = {e->problem, e->dtype, e->shape, e->gpu};
        for (int k = 0; k < 4; k++) {
            csv_field(f, cells[k]);
            fputc(',', f);
        }
        fprintf(f, "%d,", rank);
        csv_field(f, e->name);
        fputc(',', f);
        csv_field(f, e->run);
        fputc(',', f);
        csv_field(f, e->tpl);
        fputc(',', f);
        csv_field(f, e->params);
        fprintf(f, ",%s,%.9g,%s,%.3f,", e->hash, e->fitness, e->unit,
                e->median_ns);
        char rat[512] = "";
        const cJSON *r;
        cJSON_ArrayForEach(r, e->ratios)
            snprintf(rat + strlen(rat), sizeof rat - strlen(rat), "%s%s=%.4f",
                     rat[0] ? ";" : "", r->string, r->valuedouble);
        csv_field(f, rat);
        fputc(',', f);
        csv_field(f, e->verified);
        fputc(',', f);
        csv_field(f, e->verify_note);
        fprintf(f, ",%ld\n", e->evals);
    }
}

static cJSON *json_all(const struct board *bd)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *gs = cJSON_AddArrayToObject(o, "boards");
    cJSON *entries = NULL;
    for (int i = 0, rank = 0; i < bd->n; i++) {
        const struct entry *e = &bd->e[i];
        if (!i || strcmp(e->group, bd->e[i - 1].group)) {
            cJSON *g = cJSON_CreateObject();
            cJSON_AddStringToObject(g, "problem", e->problem);
            cJSON_AddStringToObject(g, "dtype", e->dtype);
            cJSON_AddStringToObject(g, "shape", e->shape);
            cJSON_AddStringToObject(g, "gpu", e->gpu);
            cJSON_AddStringToObject(g, "unit", e->unit);
            entries = cJSON_AddArrayToObject(g, "entries");
            cJSON_AddItemToArray(gs, g);
            rank = 0;
        }
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "rank", ++rank);
        cJSON_AddStringToObject(j, "run", e->name);
        cJSON_AddStringToObject(j, "run_dir", e->run);
        cJSON_AddStringToObject(j, "template", e->tpl);
        cJSON_AddStringToObject(j, "params", e->params);
        cJSON_AddStringToObject(j, "hash", e->hash);
        cJSON_AddNumberToObject(j, "fitness", e->fitness);
        cJSON_AddNumberToObject(j, "median_ns", e->median_ns);
        cJSON_AddItemToObject(j, "ratios", cJSON_Duplicate(e->ratios, 1));
        cJSON_AddStringToObject(j, "gpu_uuid", e->uuid);
        cJSON_AddStringToObject(j, "verified", e->verified);
        cJSON_AddStringToObject(j, "verify_note", e->verify_note);
        cJSON_AddNumberToObject(j, "evaluations", (double)e->evals);
        cJSON_AddItemToArray(entries, j);
    }
    return o;
}

static void md_all(const struct board *bd, FILE *f)
{
    fprintf(f, "# kevo leaderboard\n\n%d run%s. Throughput is the run's "
               "accepted best; \"verified\" says whether `kevo verify` "
               "re-checked it on the same GPU.\n",
            bd->n, bd->n == 1 ? "" : "s");
    for (int i = 0; i < bd->n;) {
        int j = i;
        while (j < bd->n && !strcmp(bd->e[j].group, bd->e[i].group))
            j++;
        cJSON *bls = group_baselines(bd, i, j);
        md_group(bd, f, i, j, bls);
        cJSON_Delete(bls);
        i = j;
    }
}

/* ------------------------------------------------------------ output */

static int write_via(const char *path, void (*put)(const struct board *,
                                                   FILE *),
                     const struct board *bd)
{
    int rc;
    FILE *f = fs_fopen_write(path, &rc);
    if (!f)
        return rc;
    put(bd, f);
    return fs_close_written(f);
}

static int write_json(const char *path, const cJSON *o)
{
    char *t = cJSON_Print(o);
    int rc = t ? outputs_write_file(path, t) : KEVO_ENOMEM;
    free(t);
    return rc;
}

/* A file name for run dir's T4 document: its last path part, and "-2",
 * "-3"... after it when an earlier run of this board (names[0..n)) has
 * the same last part (runs a/x and b/x), so no run's file replaces
 * another's. */
static void t4_name(const char *dir, char names[][256], int n_names,
                    char *out, size_t cap)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    size_t s = n;
    while (s && dir[s - 1] != '/')
        s--;
    snprintf(out, cap, "%.*s.json", (int)(n - s), dir + s);
    for (int k = 2, i = 0; i < n_names;) {
        if (strcmp(names[i], out)) {
            i++;
            continue;
        }
        snprintf(out, cap, "%.*s-%d.json", (int)(n - s), dir + s, k++);
        i = 0; /* the new name must be free too */
    }
}

static int write_files(const struct board *bd, const char *prefix,
                       cJSON *summary, char *err, size_t errcap)
{
    char path[4096];
    cJSON *j = json_all(bd);
    int rc = KEVO_OK;
    snprintf(path, sizeof path, "%s.md", prefix);
    if (!rc && !(rc = write_via(path, md_all, bd)))
        cJSON_AddStringToObject(summary, "markdown", path);
    snprintf(path, sizeof path, "%s.csv", prefix);
    if (!rc && !(rc = write_via(path, csv_all, bd)))
        cJSON_AddStringToObject(summary, "csv", path);
    snprintf(path, sizeof path, "%s.json", prefix);
    if (!rc && !(rc = write_json(path, j)))
        cJSON_AddStringToObject(summary, "json", path);
    cJSON_Delete(j);
    snprintf(path, sizeof path, "%s-t4", prefix);
    if (!rc)
        rc = fs_mkdirs(path);
    cJSON *t4 = cJSON_AddArrayToObject(summary, "t4");
    const cJSON *d, *all = rc ? NULL : bd->t4;
    int n = 0;
    char (*names)[256] = calloc((size_t)cJSON_GetArraySize(all) + 1,
                                sizeof *names);
    if (!names)
        rc = KEVO_ENOMEM;
    if (rc)
        all = NULL;
    cJSON_ArrayForEach(d, all)
    {
        t4_name(d->string, names, n, names[n], sizeof names[n]);
        snprintf(path, sizeof path, "%s-t4/%s", prefix, names[n++]);
        if ((rc = write_json(path, d)))
            break;
        cJSON_AddItemToArray(t4, cJSON_CreateString(path));
    }
    free(names);
    if (rc)
        snprintf(err, errcap, "cannot write '%s': %s", path,
                 kevo_strerror(rc));
    return rc;
}

static const char board_usage[] =
    "usage: kevo leaderboard <dir>... [--out PREFIX] [--json] [--quiet]\n"
    "\n"
    "Scans run directories (each <dir> is a run, or holds runs up to 3\n"
    "levels down) and tabulates the best kernel of each run, one table per\n"
    "problem, dtype, shape and GPU, fastest first: throughput, median time,\n"
    "ratio to each baseline the run measured, and whether `kevo verify`\n"
    "confirmed it (<run>/verify.json: never verified, yes, failed, or\n"
    "verified on other hardware).\n"
    "\n"
    "  --out PREFIX  also write PREFIX.md, PREFIX.csv, PREFIX.json and\n"
    "                PREFIX-t4/<run>.json (every evaluation of the run in\n"
    "                the T4 auto-tuning results format; <run> is the run\n"
    "                directory's name, then <run>-2.json, ... for further\n"
    "                runs of the same name)\n"
    "  --json        print the tables as JSON instead of Markdown\n"
    "  --quiet       no progress lines on stderr\n";

static void board_free(struct board *bd)
{
    for (int i = 0; i < bd->n; i++)
        cJSON_Delete(bd->e[i].ratios);
    free(bd->e);
    cJSON_Delete(bd->t4);
}

int cmd_board_main(int argc, char **argv)
{
    const char *prefix = NULL;
    int json = 0, n_dirs = 0, rc = KEVO_OK;
    struct board bd = {0};
    char err[1024] = "";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(board_usage, stdout);
            return EXIT_DONE;
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            prefix = argv[++i];
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--quiet")) {
            bd.quiet = 1;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "kevo leaderboard: unknown option '%s' (see "
                    "--help)\n", argv[i]);
            return EXIT_USAGE;
        } else {
            n_dirs++;
        }
    }
    if (!n_dirs) {
        fprintf(stderr, "kevo leaderboard: expected run directories (see "
                "--help)\n");
        return EXIT_USAGE;
    }
    bd.t4 = prefix ? cJSON_CreateObject() : NULL;
    for (int i = 1; !rc && i < argc; i++) {
        if (!strcmp(argv[i], "--out"))
            i++;
        else if (argv[i][0] != '-')
            rc = scan(&bd, argv[i], 0, err, sizeof err);
    }
    if (!rc && !bd.n) {
        if (bd.n_skipped)
            snprintf(err, sizeof err, "no run could be ranked (%d skipped, "
                     "see the warnings above)", bd.n_skipped);
        else
            snprintf(err, sizeof err, "no run directories found");
        rc = KEVO_ENOENT;
    }
    cJSON *summary = cJSON_CreateObject();
    if (!rc) {
        qsort(bd.e, (size_t)bd.n, sizeof *bd.e, entry_cmp);
        if (prefix)
            rc = write_files(&bd, prefix, summary, err, sizeof err);
    }
    if (!rc && json) {
        cJSON *j = json_all(&bd);
        if (prefix)
            cJSON_AddItemToObject(j, "files", cJSON_Duplicate(summary, 1));
        outputs_print_json(j);
        cJSON_Delete(j);
    } else if (!rc) {
        md_all(&bd, stdout);
    }
    if (rc)
        fprintf(stderr, "kevo leaderboard: %s\n",
                err[0] ? err : kevo_strerror(rc));
    cJSON_Delete(summary);
    board_free(&bd);
    return rc ? EXIT_ERROR : EXIT_DONE;
}
