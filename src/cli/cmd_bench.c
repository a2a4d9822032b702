/*
 * cmd_bench.c - `kevo bench`: the fixed, seeded benchmark suite
 * (bench/suite.json). Each case is one `kevo run` (a child process, so a
 * case that fails cannot take the suite down) with a fixed budget, under
 * runs/bench-<date>/<case>/; then one table of the best kernel per case
 * (template, throughput, fraction of roofline) against the problem's
 * baseline, written to bench/results/<gpu>-<date>.{json,md}. The table is
 * made from the run directories alone (--from-runs tabulates existing
 * ones). Cases whose dtype no template supports are reported, not run.
 */
#include "cmd_repro.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "cmd_run.h"
#include "fsutil.h"
#include "gpu.h"
#include "hash.h"
#include "jnl.h"
#include "options.h"
#include "progress.h"
#include "record.h"
#include "records.h"
#include "spec.h"
#include "tpl.h"
#include "vdoc.h"
#include "version.h"

#define MAX_CASES 128
#define MAX_FILTERS 16

static const char usage[] =
    "usage: kevo bench [--quick] [--suite FILE] [--out DIR] [--json]\n"
    "                  [--case TEXT] [--time T] [--runs-dir DIR]\n"
    "                  [--templates-dir DIR] [--from-runs DIR]\n"
    "                  [--verify-reps N]\n"
    "\n"
    "Runs the fixed benchmark suite: one seeded 'kevo run' per case with a\n"
    "fixed budget, under runs/bench-<date>/<case>/, then 'kevo verify' of\n"
    "the case's best kernel, then prints one table (best kernel, its\n"
    "throughput and fraction of roofline, the baseline's throughput, the\n"
    "run's ratio, the ratio against the baseline timed next to it) and\n"
    "writes bench/results/<gpu>-<date>.json and .md with the commit, the\n"
    "GPU and the date.\n"
    "\n"
    "  --quick           a few small generations per case instead of the\n"
    "                    suite's time budget (results named ...-quick)\n"
    "  --suite FILE      the suite (default bench/suite.json)\n"
    "  --out DIR         where the results go (default bench/results)\n"
    "  --case TEXT       only cases whose name contains TEXT (repeatable),\n"
    "                    e.g. gemm-fp32 or 4096x4096\n"
    "  --time T          budget per case instead of the suite's (90s, 5m)\n"
    "  --runs-dir DIR    where the runs go (default runs/bench-<date>)\n"
    "  --templates-dir D template library (default ./templates)\n"
    "  --from-runs DIR   run nothing: tabulate the runs DIR/<case>/ already\n"
    "                    there (no GPU needed; an error if no case has one)\n"
    "  --verify-reps N   rounds of 'kevo verify --top 1' after each case\n"
    "                    (default 10, 3 with --quick; 0: no verify)\n"
    "  --json            print the results object on stdout\n"
    "\n"
    "kevo bench --torch-problem F.py [--set N=V] [--dtype D] (or\n"
    "--problem-file F, --problem P): no suite and no candidate: the checks\n"
    "before candidates and every baseline of that problem, printed (kevo\n"
    "bench --torch-problem F --help).\n"
    "\n"
    "ratio: the best kernel against the baseline its run timed once, at its\n"
    "GPU worker's start. interleaved: verify's, in a fresh worker (kevo\n"
    "verify --help): the kernel against the baseline launch by launch\n"
    "(pairs, both in the same state of the GPU); for a verify.json without\n"
    "that, the median over its rounds against the baseline timed just\n"
    "before and after. '-' when the case was not verified.\n"
    "\n"
    "A case is named <problem>-<dtype>-<shape>. Ctrl-C stops the case that\n"
    "runs (it stays resumable) and the suite; the table shows what is done.\n"
    "\n"
    "exit status: 0 every case ran (or was reported unsupported), 1 a case\n"
    "failed or an error, 2 usage, 3 no GPU, 130 stopped\n";

struct bcase {
    char name[160];              /* problem-dtype-shape */
    const struct problem *p;
    char problem_file[1024];     /* a user problem's file, or "" */
    enum dtype dt;
    char shape[64];              /* as given */
    char time[32];               /* budget text */
    uint64_t seed;               /* the spec's seed rule (options.h) */
    int supported;               /* some template supports the dtype */
    char status[64];             /* "" = from the run directory */
    char vstatus[64];            /* verify's outcome when it did not
                                    exit 0 ("" = none or ok) */
};

struct bench {
    const char *suite_path, *out_dir, *runs_dir, *from_runs, *tdir;
    const char *time_over;
    const char *filters[MAX_FILTERS];
    int n_filters, quick, json;
    int verify_reps;             /* -1 = the default */
    char suite_name[128];
    cJSON *quick_opts;           /* owned: the suite's "quick" object */
    struct bcase c[MAX_CASES];
    int n;
    char runs[4096];             /* the runs directory in use */
    char err[1024];
};

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* ------------------------------------------------------------ suite */

static int case_error(struct bench *b, int i, const char *fmt, const char *x)
{
    int n = snprintf(b->err, sizeof b->err, "%s: case %d: ", b->suite_path,
                     i + 1);
    snprintf(b->err + n, sizeof b->err - (size_t)n, fmt, x);
    return KEVO_EPARSE;
}

/* Member "seed" of o as a run's spec reads it (options.c json_integer):
 * any 64-bit unsigned value, a string of digits past 2^53; *v kept when
 * absent; -1 (why filled) when it is not one. */
static int suite_seed(const cJSON *o, uint64_t *v, char *why, size_t cap)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, "seed");
    struct spec s;
    if (!it)
        return 0;
    if (opt_parse_json(opt_by_key("seed"), it, &s, why, cap))
        return -1;
    *v = s.seed;
    return 0;
}

static int parse_case(struct bench *b, const cJSON *o, int i,
                      const char *dflt_time, uint64_t dflt_seed)
{
    struct bcase *c = &b->c[b->n];
    const char *p = record_str(o, "problem"), *d = record_str(o, "dtype"),
               *s = record_str(o, "shape"), *t = record_str(o, "time");
    const char *pf = record_str(o, "problem_file");
    char err[1024];
    struct shape sh;
    if (!cJSON_IsObject(o))
        return case_error(b, i, "%s", "not an object");
    c->problem_file[0] = '\0';
    if (pf) { /* a user-defined problem, path from the current directory */
        if (problem_load_file(pf, &c->p, err, sizeof err))
            return case_error(b, i, "%s", err);
        snprintf(c->problem_file, sizeof c->problem_file, "%s", pf);
        p = c->p->name;
    }
    if (!p || !(c->p = problem_find(p)))
        return case_error(b, i, "unknown problem '%s'", p ? p : "");
    if (!d || dtype_parse(d, &c->dt))
        return case_error(b, i, "dtype '%s' is not fp32, fp16 or bf16",
                          d ? d : "");
    if (!s || problem_parse_shape(c->p, s, &sh, err, sizeof err))
        return case_error(b, i, "bad shape: %s", s ? err : "missing");
    if (t && spec_parse_duration(t) <= 0)
        return case_error(b, i, "time '%s' is not a duration", t);
    snprintf(c->shape, sizeof c->shape, "%s", s);
    snprintf(c->time, sizeof c->time, "%s", t ? t : dflt_time);
    c->seed = dflt_seed;
    if (suite_seed(o, &c->seed, err, sizeof err))
        return case_error(b, i, "%s", err);
    snprintf(c->name, sizeof c->name, "%s-%s-%s", p, d, s);
    for (int k = 0; k < b->n_filters; k++)
        if (strstr(c->name, b->filters[k]))
            return b->n++, KEVO_OK;
    if (!b->n_filters)
        b->n++;
    return KEVO_OK;
}

static int load_suite(struct bench *b)
{
    char *text;
    int rc = fs_read_file(b->suite_path, &text, NULL);
    if (rc) {
        snprintf(b->err, sizeof b->err, "cannot read suite '%s': %s",
                 b->suite_path, kevo_strerror(rc));
        return rc;
    }
    cJSON *j = cJSON_Parse(text);
    free(text);
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(j, "cases"), *o;
    const char *t = record_str(j, "time"), *nm = record_str(j, "suite");
    if (!j || !cJSON_IsArray(cases)) {
        snprintf(b->err, sizeof b->err, "%s: %s", b->suite_path, j ?
                 "no \"cases\" array" : "not valid JSON");
        cJSON_Delete(j);
        return KEVO_EPARSE;
    }
    snprintf(b->suite_name, sizeof b->suite_name, "%s", nm ? nm : "suite");
    if (!t || spec_parse_duration(t) <= 0)
        t = "3m";
    uint64_t seed = 1;
    char why[512];
    if (suite_seed(j, &seed, why, sizeof why)) {
        snprintf(b->err, sizeof b->err, "%s: %s", b->suite_path, why);
        cJSON_Delete(j);
        return KEVO_EPARSE;
    }
    int i = 0;
    rc = KEVO_OK;
    cJSON_ArrayForEach(o, cases)
    {
        if (b->n == MAX_CASES) {
            rc = case_error(b, i, "%s", "too many cases");
            break;
        }
        if ((rc = parse_case(b, o, i++, t, seed)))
            break;
    }
    b->quick_opts = cJSON_DetachItemFromObjectCaseSensitive(j, "quick");
    cJSON_Delete(j);
    if (!rc && !b->n) {
        snprintf(b->err, sizeof b->err, "%s: no case matches", b->suite_path);
        rc = KEVO_ENOENT;
    }
    return rc;
}

/* Marks the cases whose dtype no template of their problem supports. */
static int check_support(struct bench *b)
{
    char dir[4096];
    struct tpl **t = NULL;
    int n = 0;
    if (cli_templates_dir(b->tdir, dir, sizeof dir)) {
        snprintf(b->err, sizeof b->err, "template directory '%s' not found",
                 b->tdir ? b->tdir : "templates");
        return KEVO_ENOENT;
    }
    int rc = tpl_load_dir(dir, &t, &n, b->err, sizeof b->err);
    for (int i = 0; !rc && i < b->n; i++) {
        struct bcase *c = &b->c[i];
        c->supported = 0;
        if (c->problem_file[0]) { /* its templates are next to its file */
            c->supported = (c->p->dtype_mask & 1u << c->dt) != 0;
            continue;
        }
        for (int k = 0; k < n; k++)
            c->supported |= !strcmp(t[k]->problem, c->p->name) &&
                            (t[k]->dtype_mask & 1u << c->dt);
        c->supported &= (c->p->dtype_mask & 1u << c->dt) != 0;
        if (!c->supported)
            snprintf(c->status, sizeof c->status, "unsupported dtype");
    }
    for (int k = 0; k < n; k++)
        tpl_free(t[k]);
    free(t);
    return rc;
}

/* ------------------------------------------------------- running */

static int add_quick(const struct bench *b, const char **argv, int k,
                     char store[][32])
{
    static const char *const keys[] = {"generations", "islands",
                                       "population", "offspring"};
    static const int dflt[] = {2, 2, 4, 6};
    for (int i = 0; i < 4; i++) {
        snprintf(store[i], 32, "%.0f", record_num(b->quick_opts, keys[i],
                                                  dflt[i]));
        argv[k++] = i == 0 ? "--generations" : i == 1 ? "--islands"
                    : i == 2 ? "--population" : "--offspring";
        argv[k++] = store[i];
    }
    return k;
}

static int self_exe(char *exe, size_t cap)
{
    ssize_t len = readlink("/proc/self/exe", exe, cap - 1);
    if (len <= 0)
        return -1;
    exe[len] = '\0';
    return 0;
}

/* Runs kevo with argv as a child and waits for it; returns its exit
 * status. to_stderr: its stdout goes to stderr. */
static int spawn(const char *exe, const char **argv, int to_stderr)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return EXIT_ERROR;
    if (pid == 0) {
        if (to_stderr)
            dup2(2, 1);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_STOPPED;
}

/* Runs one case as a child `kevo run`; returns its exit status. */
static int run_case(const struct bench *b, const struct bcase *c)
{
    char exe[PATH_MAX], seed[32], store[4][32];
    int k = 0;
    if (self_exe(exe, sizeof exe))
        return EXIT_ERROR;
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)c->seed);
    const char *argv[40];
    char spec[4200];
    snprintf(spec, sizeof spec, "%s/quick-spec.json", b->runs);
    argv[k++] = exe;
    argv[k++] = "run";
    if (b->quick) { /* first: the flags after it override the file */
        argv[k++] = "--spec";
        argv[k++] = spec;
    }
    const char *fixed[] = {c->problem_file[0] ? "--problem-file" : "--problem",
                           c->problem_file[0] ? c->problem_file : c->p->name,
                           "--dtype",
                           dtype_name(c->dt), "--shape", c->shape, "--seed",
                           seed, "--name", c->name, "--runs-dir", b->runs};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        argv[k++] = fixed[i];
    if (b->quick) {
        k = add_quick(b, argv, k, store);
    } else {
        argv[k++] = "--time";
        argv[k++] = b->time_over ? b->time_over : c->time;
    }
    if (b->tdir && !c->problem_file[0]) {
        argv[k++] = "--templates-dir";
        argv[k++] = b->tdir;
    }
    if (b->json || !isatty(2))
        argv[k++] = "--quiet";
    argv[k] = NULL;
    return spawn(exe, argv, b->json);
}

/* Verifies the case's best kernel in a fresh worker (`kevo verify --top 1
 * --reps N`, which writes <run>/verify.json); returns its exit status.
 * Its table goes to stderr: stdout is the suite's table. */
static int verify_case(const struct bench *b, const struct bcase *c)
{
    char exe[PATH_MAX], run[4300], reps[32];
    if (self_exe(exe, sizeof exe))
        return EXIT_ERROR;
    snprintf(run, sizeof run, "%s/%s", b->runs, c->name);
    snprintf(reps, sizeof reps, "%d", b->verify_reps);
    const char *argv[] = {exe, "verify", run, "--top", "1", "--reps", reps,
                          NULL};
    return spawn(exe, argv, 1);
}

/* -------------------------------------------------------- tabulating */

struct row {
    const struct bcase *c;
    char status[64];
    char run[4300];
    cJSON *manifest;              /* owned, may be NULL */
    int has_best;                 /* best.json read */
    struct rec_best best;
    double roofline;              /* -1 = unknown */
    long evals;
    double elapsed_s;
    /* verify.json of the run, when it verified this best */
    int has_verify, v_within, v_reps, v_same_gpu;
    double v_interleaved;         /* 0 = not measured */
    double v_paired, v_paired_noise; /* launch by launch (0 = none) */
    double v_ratio, v_drift, v_noise;
    char v_outcome[32];
};

static cJSON *read_json(const char *dir, const char *name)
{
    char path[4400], *text;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (fs_read_file(path, &text, NULL))
        return NULL;
    cJSON *j = cJSON_Parse(text);
    free(text);
    return j;
}

/* best.json of the run, through its typed reader. */
static void read_best(struct row *r)
{
    char why[256];
    cJSON *b = read_json(r->run, "best.json");
    r->has_best = b && !rec_best_parse(b, &r->best, why, sizeof why);
    cJSON_Delete(b);
}

/* Evaluations, run time and the best's roofline, from the journal's
 * records (typed by the records codec; one it refuses is left out). */
static void read_journal(struct row *r)
{
    char path[4400], err[256];
    cJSON *json = NULL;
    struct record *recs = NULL;
    int n = 0, bad;
    snprintf(path, sizeof path, "%s/journal.jsonl", r->run);
    if (jnl_read_all(path, &json, err, sizeof err))
        return;
    if (!rec_parse_all(json, 0, &recs, &n, &bad, err, sizeof err))
        for (int i = 0; i < n; i++) {
            const struct rec_eval *e = &recs[i].u.eval;
            r->elapsed_s = rec_time(&recs[i]);
            if (recs[i].type != REC_EVAL)
                continue;
            r->evals++;
            if (r->has_best && e->hash == r->best.hash)
                r->roofline = e->r.outcome == EVAL_OK ? e->r.roofline : -1;
        }
    rec_release_all(recs, n);
    cJSON_Delete(json);
}

/* The run's verify.json, if it re-measured the run's best (a verify.json
 * of an earlier best, e.g. before a resume, is left out). */
static void read_verify(struct row *r)
{
    char hex[17], why[256];
    cJSON *j = read_json(r->run, "verify.json");
    struct vdoc *v = NULL;
    hash_hex(r->best.hash, hex);
    const struct vdoc_entry *e =
        j && !vdoc_parse(j, "verify.json", &v, why, sizeof why) &&
                !strcmp(v->best_hash, hex)
            ? vdoc_find(v, hex) : NULL;
    if (e) {
        r->has_verify = 1;
        r->v_interleaved = e->vs_baseline_interleaved;
        r->v_paired = e->vs_baseline_paired;
        r->v_paired_noise = e->vs_baseline_paired_noise;
        r->v_ratio = e->measured_ratio;
        r->v_drift = e->drift;
        r->v_noise = e->noise;
        r->v_within = e->within_noise;
        r->v_reps = v->reps;
        r->v_same_gpu = v->same_gpu;
        snprintf(r->v_outcome, sizeof r->v_outcome, "%s",
                 *e->outcome ? e->outcome : "?");
    }
    vdoc_free(v);
    cJSON_Delete(j);
}

static void make_row(const char *runs, const struct bcase *c, struct row *r)
{
    memset(r, 0, sizeof *r);
    r->c = c;
    r->roofline = -1;
    snprintf(r->run, sizeof r->run, "%s/%s", runs, c->name);
    snprintf(r->status, sizeof r->status, "%s", c->status);
    if (!c->supported)
        return;
    r->manifest = read_json(r->run, "manifest.json");
    read_best(r);
    if (!r->manifest) {
        if (!r->status[0])
            snprintf(r->status, sizeof r->status, "not run");
        return;
    }
    read_journal(r);
    if (r->has_best)
        read_verify(r);
    if (!r->status[0])
        snprintf(r->status, sizeof r->status, "%s", r->has_best ? "ok"
                 : "no correct kernel");
}

/* The run's GPU name/UUID: from the fingerprint, else the environment. */
static const char *gpu_of(const cJSON *manifest, const char *what)
{
    const char *s = record_str(record_at(manifest, "fingerprint", "gpu"),
                               what);
    return s ? s : record_str(record_at(manifest, "environment", "device"),
                              what);
}

static const cJSON *baseline_of(const cJSON *manifest)
{
    return cJSON_GetArrayItem(record_at(manifest, "environment", "baselines"),
                              0);
}

static cJSON *row_json(const struct row *r)
{
    const struct bcase *c = r->c;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "case", c->name);
    cJSON_AddStringToObject(o, "problem", c->p->name);
    cJSON_AddStringToObject(o, "dtype", dtype_name(c->dt));
    cJSON_AddStringToObject(o, "shape", c->shape);
    cJSON_AddStringToObject(o, "status", r->status);
    cJSON_AddStringToObject(o, "run", r->run);
    if (r->has_best) {
        /* best.json as its codec writes it, template first, without the
         * generation */
        cJSON *b = rec_best_json(&r->best), *x;
        static const char *const first[] = {"template", "hash"};
        for (size_t i = 0; i < 2; i++)
            cJSON_AddItemToObject(o, first[i], cJSON_DetachItemFromObject(
                                                   b, first[i]));
        cJSON_DeleteItemFromObject(b, "generation");
        while (b && (x = b->child))
            cJSON_AddItemToObject(o, x->string,
                                  cJSON_DetachItemViaPointer(b, x));
        cJSON_Delete(b);
        if (r->roofline >= 0)
            cJSON_AddNumberToObject(o, "roofline", r->roofline);
    }
    const cJSON *bl = baseline_of(r->manifest);
    if (bl) /* the first, and all of them (torch: eager, compile) */
        cJSON_AddItemToObject(o, "baseline", cJSON_Duplicate(bl, 1));
    const cJSON *all = record_at(r->manifest, "environment", "baselines");
    if (cJSON_GetArraySize(all) > 1)
        cJSON_AddItemToObject(o, "baselines", cJSON_Duplicate(all, 1));
    if (r->manifest) {
        cJSON_AddNumberToObject(o, "evals", (double)r->evals);
        cJSON_AddNumberToObject(o, "elapsed_s", r->elapsed_s);
        const char *cm = record_str(r->manifest, "git_commit");
        cJSON_AddStringToObject(o, "commit", cm ? cm : "");
    }
    if (r->has_verify) {
        cJSON *v = cJSON_AddObjectToObject(o, "verify");
        cJSON_AddStringToObject(v, "outcome", r->v_outcome);
        cJSON_AddNumberToObject(v, "reps", r->v_reps);
        cJSON_AddBoolToObject(v, "same_gpu", r->v_same_gpu);
        if (r->v_interleaved > 0)
            cJSON_AddNumberToObject(v, "interleaved_ratio", r->v_interleaved);
        if (r->v_paired > 0) {
            cJSON_AddNumberToObject(v, "paired_ratio", r->v_paired);
            cJSON_AddNumberToObject(v, "paired_noise", r->v_paired_noise);
        }
        cJSON_AddNumberToObject(v, "measured_ratio", r->v_ratio);
        cJSON_AddNumberToObject(v, "drift", r->v_drift);
        cJSON_AddNumberToObject(v, "noise", r->v_noise);
        cJSON_AddBoolToObject(v, "within_noise", r->v_within);
    } else if (r->c->vstatus[0]) {
        cJSON *v = cJSON_AddObjectToObject(o, "verify");
        cJSON_AddStringToObject(v, "outcome", r->c->vstatus);
    }
    return o;
}

/* One Markdown table line of row r. */
static void row_md(const struct row *r, char *out, size_t cap)
{
    char fit[64] = "-", roof[32] = "-", bfit[256] = "-", ratio[32] = "-",
         what[256] = "-", evals[32] = "-", inter[64] = "-";
    const char *unit = r->has_best && r->best.unit[0] ? r->best.unit : NULL;
    if (r->has_best) {
        progress_fmt_fitness(r->best.fitness, unit ? unit : "", fit,
                             sizeof fit);
        snprintf(what, sizeof what, "%s", r->best.tpl);
        if (r->best.ratio > 0)
            snprintf(ratio, sizeof ratio, "%.3fx", r->best.ratio);
    }
    if (r->roofline >= 0)
        snprintf(roof, sizeof roof, "%.1f %%", r->roofline * 100);
    const cJSON *x;
    size_t nb = 0;
    cJSON_ArrayForEach(x, record_at(r->manifest, "environment", "baselines")) {
        char f[64];
        struct record_baseline b;
        record_get_baseline(x, &b);
        progress_fmt_fitness(b.fitness, unit ? unit : r->c->p->work_unit, f,
                             sizeof f);
        if (nb < sizeof bfit)
            nb += (size_t)snprintf(bfit + nb, sizeof bfit - nb, "%s%s %s",
                                   nb ? ", " : "", b.name[0] ? b.name : "?",
                                   f);
    }
    if (r->manifest)
        snprintf(evals, sizeof evals, "%ld", r->evals);
    if (r->has_verify && strcmp(r->v_outcome, "ok"))
        snprintf(inter, sizeof inter, "verify: %s", r->v_outcome);
    else if (r->has_verify && (r->v_paired > 0 || r->v_interleaved > 0))
        snprintf(inter, sizeof inter, "%.3fx%s%s", r->v_paired > 0
                 ? r->v_paired : r->v_interleaved,
                 r->v_within ? "" : " (drift)",
                 r->v_same_gpu ? "" : " (other GPU)");
    else if (r->c->vstatus[0])
        snprintf(inter, sizeof inter, "%s", r->c->vstatus);
    snprintf(out, cap, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |",
             r->c->name, r->status, what, fit, roof, bfit, ratio, inter,
             evals);
}

static const char md_head[] =
    "| case | status | best kernel | throughput | roofline | baseline | "
    "ratio | interleaved | evals |\n|---|---|---|---|---|---|---|---|---|\n";

static void slug(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 1 < cap; s++) {
        char ch = (char)tolower((unsigned char)*s);
        if (isalnum((unsigned char)ch))
            out[n++] = ch;
        else if (n && out[n - 1] != '-')
            out[n++] = '-';
    }
    while (n && out[n - 1] == '-')
        n--;
    out[n] = '\0';
    if (!n)
        snprintf(out, cap, "unknown-gpu");
}

static int write_results(struct bench *b, const char *md, const cJSON *j,
                         const char *gpu, const char *date)
{
    char s[128], path[4400];
    slug(gpu, s, sizeof s);
    int rc = fs_mkdirs(b->out_dir);
    for (int k = 0; !rc && k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s-%s%s.%s", b->out_dir, s, date,
                 b->quick ? "-quick" : "", k ? "md" : "json");
        char *text = k ? NULL : cJSON_Print(j);
        const char *data = k ? md : text;
        rc = data ? fs_write_atomic(path, data, strlen(data)) : KEVO_ENOMEM;
        free(text);
        if (!rc)
            fprintf(stderr, "wrote %s\n", path);
    }
    if (rc)
        snprintf(b->err, sizeof b->err, "cannot write '%s': %s", path,
                 kevo_strerror(rc));
    return rc;
}

static void free_rows(struct row *rows, int n)
{
    for (int i = 0; i < n; i++) {
        cJSON_Delete(rows[i].manifest);
    }
}

/* Tabulates the cases' runs in b->runs into the results files and
 * stdout. With --from-runs, KEVO_ENOENT (b->err says so) when no case has
 * a run there: the wrong directory or suite, not an empty table. */
static int tabulate(struct bench *b, int *n_failed)
{
    static struct row rows[MAX_CASES];
    char date[16], stamp[32], line[1024], *md = NULL;
    const char *gpu = NULL, *uuid = NULL;
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%d", &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S%z", &tm);
    size_t cap = 4096 + (size_t)b->n * 1100, len = 0;
    if (!(md = malloc(cap)))
        return KEVO_ENOMEM;
    int n_found = 0;
    *n_failed = 0;
    for (int i = 0; i < b->n; i++) {
        make_row(b->runs, &b->c[i], &rows[i]);
        if (!gpu && rows[i].manifest && gpu_of(rows[i].manifest, "name")) {
            gpu = gpu_of(rows[i].manifest, "name");
            uuid = gpu_of(rows[i].manifest, "uuid");
        }
        n_found += rows[i].manifest != NULL;
        *n_failed += strcmp(rows[i].status, "ok") &&
                     strcmp(rows[i].status, "unsupported dtype");
    }
    if (b->from_runs && !n_found) {
        snprintf(b->err, sizeof b->err, "--from-runs: no run in '%s' "
                 "matches a case of '%s' (%d case%s; a case's run is "
                 "<dir>/<case>/, e.g. '%s/%s/')", b->runs, b->suite_path,
                 b->n, b->n == 1 ? "" : "s", b->runs, b->c[0].name);
        free_rows(rows, b->n);
        free(md);
        return KEVO_ENOENT;
    }
    cJSON *j = cJSON_CreateObject(), *cases;
    cJSON_AddStringToObject(j, "suite", b->suite_name);
    cJSON_AddStringToObject(j, "suite_file", b->suite_path);
    cJSON_AddStringToObject(j, "date", stamp);
    cJSON_AddStringToObject(j, "commit", kevo_git_commit());
    cJSON_AddStringToObject(j, "kevo_version", KEVO_VERSION);
    cJSON *g = cJSON_AddObjectToObject(j, "gpu");
    cJSON_AddStringToObject(g, "name", gpu ? gpu : "unknown");
    cJSON_AddStringToObject(g, "uuid", uuid ? uuid : "");
    cJSON_AddBoolToObject(j, "quick", b->quick);
    cJSON_AddStringToObject(j, "runs_dir", b->runs);
    cases = cJSON_AddArrayToObject(j, "cases");
    len += (size_t)snprintf(md + len, cap - len, "# kevo bench %s: %s%s%s\n\n"
                            "Commit %s, suite %s (%s)%s, runs in %s.\n\n%s",
                            date, gpu ? gpu : "unknown GPU",
                            uuid && *uuid ? " " : "", uuid ? uuid : "",
                            kevo_git_commit(), b->suite_name, b->suite_path,
                            b->quick ? ", quick budget" : "", b->runs,
                            md_head);
    for (int i = 0; i < b->n; i++) {
        cJSON_AddItemToArray(cases, row_json(&rows[i]));
        row_md(&rows[i], line, sizeof line);
        len += (size_t)snprintf(md + len, cap - len, "%s\n", line);
    }
    int rc = write_results(b, md, j, gpu ? gpu : "unknown", date);
    if (!rc && b->json) {
        char *t = cJSON_Print(j);
        if (t)
            puts(t);
        free(t);
    } else if (!rc) {
        fputs(md, stdout);
    }
    free_rows(rows, b->n);
    cJSON_Delete(j);
    free(md);
    return rc;
}

/* ------------------------------------------------------------- main */

static int find_suite(struct bench *b, char *buf, size_t cap)
{
    if (b->suite_path)
        return KEVO_OK;
    char exe[PATH_MAX];
    b->suite_path = "bench/suite.json";
    if (fs_exists(b->suite_path))
        return KEVO_OK;
    if (!self_exe(exe, sizeof exe)) {
        char *s = strrchr(exe, '/');
        if (s)
            *s = '\0';
        static const char *const rel[] = {"../bench/suite.json",
                                          "../../bench/suite.json"};
        for (size_t i = 0; i < 2; i++) {
            snprintf(buf, cap, "%s/%s", exe, rel[i]);
            if (fs_exists(buf)) {
                b->suite_path = buf;
                return KEVO_OK;
            }
        }
    }
    return KEVO_OK; /* load_suite names the missing file */
}

static int parse_args(int argc, char **argv, struct bench *b)
{
    static const struct option opts[] = {
        {"quick", 0, 0, 'q'}, {"suite", 1, 0, 's'}, {"out", 1, 0, 'o'},
        {"json", 0, 0, 'j'}, {"case", 1, 0, 'c'}, {"time", 1, 0, 't'},
        {"runs-dir", 1, 0, 'r'}, {"templates-dir", 1, 0, 'T'},
        {"from-runs", 1, 0, 'f'}, {"verify-reps", 1, 0, 'V'},
        {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(usage, stdout); return -1;
        case 'q': b->quick = 1; break;
        case 's': b->suite_path = optarg; break;
        case 'o': b->out_dir = optarg; break;
        case 'j': b->json = 1; break;
        case 'r': b->runs_dir = optarg; break;
        case 'T': b->tdir = optarg; break;
        case 'f': b->from_runs = optarg; break;
        case 'V': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v < 0 || v > 50) {
                fprintf(stderr, "kevo bench: --verify-reps: '%s' is not an "
                        "integer from 0 to 50\n", optarg);
                return EXIT_USAGE;
            }
            b->verify_reps = (int)v;
            break;
        }
        case 't':
            if (spec_parse_duration(optarg) <= 0) {
                fprintf(stderr, "kevo bench: --time: '%s' is not a duration "
                        "(90s, 5m)\n", optarg);
                return EXIT_USAGE;
            }
            b->time_over = optarg;
            break;
        case 'c':
            if (b->n_filters == MAX_FILTERS) {
                fprintf(stderr, "kevo bench: --case: too many\n");
                return EXIT_USAGE;
            }
            b->filters[b->n_filters++] = optarg;
            break;
        default:
            fprintf(stderr, "kevo bench: unknown option '%s' (see kevo bench "
                    "--help)\n", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "kevo bench: unexpected argument '%s'\n",
                argv[optind]);
        return EXIT_USAGE;
    }
    if (!b->out_dir)
        b->out_dir = "bench/results";
    if (b->verify_reps < 0)
        b->verify_reps = b->quick ? 3 : 10;
    return 0;
}

static void log_case(const struct bench *b, int i, const char *what)
{
    fprintf(stderr, "[%d/%d] %s: %s\n", i + 1, b->n, b->c[i].name, what);
}

/* kevo verify of case i's best, if its run found one; a verify that does
 * not exit 0 is noted in the case's row (its verify.json, if written,
 * says why). */
static void verify_one(struct bench *b, int i)
{
    struct bcase *c = &b->c[i];
    char best[4400], what[64];
    snprintf(best, sizeof best, "%s/%s/best.json", b->runs, c->name);
    if (!fs_exists(best))
        return;
    snprintf(what, sizeof what, "verifying its best (%d rounds)",
             b->verify_reps);
    log_case(b, i, what);
    int v = verify_case(b, c);
    if (v == EXIT_STOPPED || interrupted) {
        snprintf(c->vstatus, sizeof c->vstatus, "verify stopped");
        interrupted = 1;
    } else if (v == 1) {
        snprintf(c->vstatus, sizeof c->vstatus, "verify: drift or failure");
    } else if (v) {
        snprintf(c->vstatus, sizeof c->vstatus, "verify failed (exit %d)",
                 v);
    }
    log_case(b, i, c->vstatus[0] ? c->vstatus : "verified");
}

/* Runs every supported case; returns an exit code for the suite. */
static int run_suite(struct bench *b)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "bench-%Y%m%d-%H%M%S", &tm);
    snprintf(b->runs, sizeof b->runs, "%s", b->runs_dir ? b->runs_dir : "runs");
    if (!b->runs_dir)
        snprintf(b->runs + strlen(b->runs), sizeof b->runs - strlen(b->runs),
                 "/%s", stamp);
    if (fs_mkdirs(b->runs)) {
        snprintf(b->err, sizeof b->err, "cannot create '%s'", b->runs);
        return EXIT_ERROR;
    }
    if (b->quick) {
        /* fewer random initial points than a full run: a quick case is
         * seconds of GPU time */
        char path[4200], text[64];
        snprintf(path, sizeof path, "%s/quick-spec.json", b->runs);
        snprintf(text, sizeof text, "{\"init_random\": %.0f}\n",
                 record_num(b->quick_opts, "init_random", 2));
        if (fs_write_atomic(path, text, strlen(text))) {
            snprintf(b->err, sizeof b->err, "cannot write '%s'", path);
            return EXIT_ERROR;
        }
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    for (int i = 0; i < b->n && !interrupted; i++) {
        struct bcase *c = &b->c[i];
        char what[128];
        if (!c->supported) {
            log_case(b, i, "skipped: no template supports this dtype");
            continue;
        }
        snprintf(what, sizeof what, "running (%s)", b->quick ? "quick"
                 : b->time_over ? b->time_over : c->time);
        log_case(b, i, what);
        int x = run_case(b, c);
        if (x == EXIT_NOGPU) {
            snprintf(b->err, sizeof b->err, "the run of %s found no usable "
                     "GPU (see above)", c->name);
            return EXIT_NOGPU;
        }
        if (x == EXIT_STOPPED || interrupted) {
            snprintf(c->status, sizeof c->status, "stopped");
            interrupted = 1;
        } else if (x) {
            snprintf(c->status, sizeof c->status, "failed (exit %d)", x);
        }
        log_case(b, i, x ? c->status : "done");
        if (!x && !interrupted && b->verify_reps > 0)
            verify_one(b, i);
    }
    return interrupted ? EXIT_STOPPED : EXIT_DONE;
}

int cmd_bench_main(int argc, char **argv)
{
    static struct bench b;
    char suite_buf[PATH_MAX + 32];
    memset(&b, 0, sizeof b);
    b.verify_reps = -1;
    interrupted = 0;
    if (cmd_bench_wants_problem(argc, argv)) /* no candidate: baselines */
        return cmd_bench_problem_main(argc, argv);
    int x = parse_args(argc, argv, &b);
    if (x)
        return x < 0 ? EXIT_DONE : x;
    int rc = find_suite(&b, suite_buf, sizeof suite_buf);
    if (!rc)
        rc = load_suite(&b);
    if (!rc)
        rc = check_support(&b);
    if (rc) {
        fprintf(stderr, "kevo bench: %s\n", b.err);
        cJSON_Delete(b.quick_opts);
        return EXIT_ERROR;
    }
    if (b.from_runs) {
        snprintf(b.runs, sizeof b.runs, "%s", b.from_runs);
        if (!fs_exists(b.runs)) {
            fprintf(stderr, "kevo bench: --from-runs: '%s' does not exist\n",
                    b.runs);
            cJSON_Delete(b.quick_opts);
            return EXIT_ERROR;
        }
    } else if (!gpu_driver_present()) {
        fprintf(stderr, "kevo bench needs a GPU: no NVIDIA driver "
                "(libcuda.so.1 not found)\n");
        cJSON_Delete(b.quick_opts);
        return EXIT_NOGPU;
    } else {
        x = run_suite(&b);
        if (x == EXIT_NOGPU || x == EXIT_ERROR) {
            fprintf(stderr, "kevo bench%s%s\n", x == EXIT_NOGPU
                    ? " needs a GPU: " : ": ", b.err);
            cJSON_Delete(b.quick_opts);
            return x;
        }
    }
    int n_failed = 0;
    rc = tabulate(&b, &n_failed);
    if (rc)
        fprintf(stderr, "kevo bench: %s\n", b.err);
    cJSON_Delete(b.quick_opts);
    if (rc)
        return EXIT_ERROR;
    if (x)
        return x;
    return n_failed && !b.from_runs ? EXIT_ERROR : EXIT_DONE;
}
