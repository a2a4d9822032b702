/*
 * cmd_gpu.c - `kevo eval` and `kevo doctor` (see cmd_gpu.h). eval goes
 * through gpueval exactly like `kevo run` does (one evaluator per
 * problem; all files of a problem in one batch, so one worker survives
 * their crashes and timeouts); doctor checks each layer in-process and
 * then starts a real worker.
 */
#include "cmd_gpu.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "cli.h"
#include "eval.h"
#include "fsutil.h"
#include "genome.h"
#include "gpu.h"
#include "gpueval.h"
#include "hash.h"
#include "hx.h"
#include "jit.h"
#include "profile_print.h"
#include "progress.h"
#include "record.h"
#include "records.h"
#include "tolerance.h"
#include "tpl.h"
#include "version.h"

#define MAX_FILES 256
#define MAX_OPT_LIST 32

enum { XC_OK = 0, XC_BAD = 1, XC_USAGE = 2, XC_NOGPU = 3 };

static const char eval_usage[] =
    "usage: kevo eval FILE.cu [FILE.cu ...] [options]\n"
    "\n"
    "Compiles each template at its default point (plus --param overrides),\n"
    "checks it against the fp64 reference on fresh inputs and times it,\n"
    "in an isolated GPU worker; prints one verdict per file.\n"
    "\n"
    "  --problem P       expect this problem (default: the template's)\n"
    "  --problem-file F  load a user-defined problem first (README \"User-\n"
    "                    defined problems\") for the templates to use\n"
    "  --dtype D         fp32 | fp16 | bf16 (default: fp32 if supported)\n"
    "  --shape S         e.g. 4096x4096x4096; or PROBLEM=S per problem\n"
    "                    (repeatable). Required.\n"
    "  --param K=V       override a parameter (repeatable)\n"
    "  --set NAME=VALUE  one size by name (repeatable); a PyTorch module's\n"
    "                    shape defaults to its own sizes\n"
    "  --arch A          NVRTC arch (default: the device's, e.g. sm_90a)\n"
    "  --seed N          harness seed (default: random)\n"
    "  --timeout-ms N    watchdog per check phase (default 10000)\n"
    "  --json            one JSON object per file on stdout\n"
    "  --ab              with two files: after evaluating them, re-measure\n"
    "                    the first (challenger) against the second\n"
    "                    (incumbent) interleaved (ABAB) and print the\n"
    "                    noise-aware confirm verdict: accept = the first\n"
    "                    is faster beyond the noise\n"
    "  --pairs N         after evaluating, time each correct file against\n"
    "                    the problem's first baseline launch by launch (N\n"
    "                    pairs, 3-64, an L2 flush before each launch, the\n"
    "                    order alternating) and print that ratio\n"
    "  --profile         after evaluating, the hardware profile of each\n"
    "                    correct file (CUPTI range profiler, every launch\n"
    "                    replayed once per pass) and its diagnosis\n"
    "  -v, --verbose     log worker restarts\n"
    "\n"
    "exit status: 0 all ok, 1 a non-ok verdict, 2 usage, 3 no GPU\n";

struct eval_args {
    const char *files[MAX_FILES];
    int n_files;
    const char *problem, *dtype, *arch;
    const char *shapes[MAX_OPT_LIST];
    int n_shapes;
    const char *params[MAX_OPT_LIST];
    int n_params;
    const char *sets[MAX_OPT_LIST]; /* --set NAME=VALUE (every problem) */
    int n_sets;
    uint64_t seed;
    int have_seed, json, verbose, timeout_ms;
    int ab;                    /* --ab: confirm file 1 against file 2 */
    int pairs;                 /* --pairs N: each vs the baseline (0: no) */
    int profile;               /* --profile: hardware profile of each */
};

static int parse_eval_args(int argc, char **argv, struct eval_args *a)
{
    static const struct option opts[] = {
        {"problem", 1, 0, 'p'}, {"dtype", 1, 0, 'd'}, {"shape", 1, 0, 's'},
        {"param", 1, 0, 'P'},   {"arch", 1, 0, 'a'},  {"seed", 1, 0, 'S'},
        {"json", 0, 0, 'j'},    {"timeout-ms", 1, 0, 't'},
        {"verbose", 0, 0, 'v'}, {"help", 0, 0, 'h'},  {"ab", 0, 0, 'b'},
        {"problem-file", 1, 0, 'F'},
        {"torch-problem", 1, 0, 'F'}, {"pairs", 1, 0, 'R'},
        {"set", 1, 0, 'X'}, {"profile", 0, 0, 'O'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
        switch (c) {
        case 'p': { /* a user problem's name: from the problems directory */
            char err[1024];
            int rc = KEVO_OK;
            a->problem = optarg;
            if (!problem_find(optarg))
                rc = cli_user_problem(optarg, err, sizeof err);
            if (rc && rc != KEVO_ENOENT) {
                fprintf(stderr, "kevo eval: %s\n", err);
                return XC_USAGE;
            }
            break;
        }
        case 'F': { /* a user problem: registered for problem_find */
            const struct problem *up;
            char err[1024];
            if (problem_load_file(optarg, &up, err, sizeof err)) {
                fprintf(stderr, "kevo eval: %s\n", err);
                return XC_USAGE;
            }
            break;
        }
        case 'd': a->dtype = optarg; break;
        case 'a': a->arch = optarg; break;
        case 'j': a->json = 1; break;
        case 'b': a->ab = 1; break;
        case 'O': a->profile = 1; break;
        case 'R': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 3 || v > 64) {
                fprintf(stderr, "kevo eval: --pairs: '%s' is not an integer "
                        "in [3, 64]\n", optarg);
                return XC_USAGE;
            }
            a->pairs = (int)v;
            break;
        }
        case 'v': a->verbose = 1; break;
        case 't': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 1 || v > 3600000) {
                fprintf(stderr, "kevo eval: --timeout-ms: '%s' is not an "
                        "integer in [1, 3600000]\n", optarg);
                return XC_USAGE;
            }
            a->timeout_ms = (int)v;
            break;
        }
        case 'S':
            a->seed = strtoull(optarg, NULL, 0);
            a->have_seed = 1;
            break;
        case 's':
            if (a->n_shapes == MAX_OPT_LIST)
                return XC_USAGE;
            a->shapes[a->n_shapes++] = optarg;
            break;
        case 'X':
            if (a->n_sets == MAX_OPT_LIST)
                return XC_USAGE;
            a->sets[a->n_sets++] = optarg;
            break;
        case 'P':
            if (a->n_params == MAX_OPT_LIST || !strchr(optarg, '='))
                return XC_USAGE;
            a->params[a->n_params++] = optarg;
            break;
        case 'h': fputs(eval_usage, stdout); return -1;
        default: return XC_USAGE;
        }
    }
    for (int i = optind; i < argc; i++) {
        if (a->n_files == MAX_FILES)
            return XC_USAGE;
        a->files[a->n_files++] = argv[i];
    }
    return a->n_files ? XC_OK : XC_USAGE;
}

/* The --shape text for problem p: "p=S" first, else a plain "S". */
static const char *shape_for(const struct eval_args *a, const char *p)
{
    const char *plain = NULL;
    size_t n = strlen(p);
    for (int i = 0; i < a->n_shapes; i++) {
        const char *eq = strchr(a->shapes[i], '=');
        if (!eq)
            plain = a->shapes[i];
        else if ((size_t)(eq - a->shapes[i]) == n &&
                 !strncmp(a->shapes[i], p, n))
            return eq + 1;
    }
    return plain;
}

/* The shape of problem p: --shape (or a PyTorch module's own sizes), then
 * each --set; prints the error and returns XC_USAGE. */
static int group_shape(const struct eval_args *a, const struct problem *p,
                       struct shape *out)
{
    char err[512];
    const char *sh = shape_for(a, p->name);
    if (!sh)
        sh = problem_default_shape(p);
    if (!sh) {
        fprintf(stderr, "kevo eval: --shape is required for %s\n", p->name);
        return XC_USAGE;
    }
    int rc = problem_parse_shape(p, sh, out, err, sizeof err);
    for (int i = 0; i < a->n_sets && !rc; i++)
        rc = problem_shape_set(p, out, a->sets[i], err, sizeof err);
    if (rc) {
        fprintf(stderr, "kevo eval: %s\n", err);
        return XC_USAGE;
    }
    return XC_OK;
}

/* Default point plus the --param overrides that name t's params. */
static int point_for(const struct eval_args *a, const struct tpl *t,
                     int64_t *vals, int strict)
{
    tpl_default_point(t, vals);
    for (int i = 0; i < a->n_params; i++)
        if (tpl_set_param(t, vals, a->params[i]) < 0 && strict) {
            fprintf(stderr, "kevo eval: %s has no parameter '%.*s'\n",
                    t->name, (int)strcspn(a->params[i], "="), a->params[i]);
            return XC_USAGE;
        }
    if (!tpl_point_valid(t, vals, NULL)) {
        fprintf(stderr, "kevo eval: %s: the point violates a constraint or "
                "uses a value outside a parameter's list\n", t->name);
        return XC_USAGE;
    }
    return XC_OK;
}

/* ---- printing */

struct printer {
    const char *const *files;  /* by batch index */
    const struct problem *p;
    int json;
    int n_bad;
    char base_name[32];        /* main baseline */
    int n_more;                /* baselines after the main one */
    char more_name[PROB_MAX_BASELINES][32]; /* their names */
    double more_fit[PROB_MAX_BASELINES];    /* their fitness */
    char timer[16];            /* "cupti" or "events" */
    int ok[MAX_FILES];         /* by batch index: verdict ok */
};

static void print_human(struct printer *pr, const char *file,
                        const struct eval_result *r)
{
    printf("%s: %s", file, eval_outcome_name(r->outcome));
    if (r->outcome != EVAL_OK) {
        printf("  %s\n", r->detail);
        return;
    }
    int flops = !strcmp(pr->p->work_unit, "FLOP/s");
    printf("  %.4f ms (min %.4f), %.2f %s", r->median_ns / 1e6,
           r->min_ns / 1e6, r->fitness / (flops ? 1e12 : 1e9),
           flops ? "TFLOP/s" : "GB/s");
    if (r->ratio > 0)
        printf(", %.3fx %s", r->ratio, pr->base_name);
    for (int i = 0; i < pr->n_more; i++) /* torch: "x eager, x compile" */
        if (pr->more_fit[i] > 0)
            printf(", %.3fx %s", r->fitness / pr->more_fit[i],
                   pr->more_name[i]);
    printf(", roofline %.2f\n", r->roofline);
    printf("  regs %d, smem %d B static, local %d B, spills %d B, "
           "occupancy %d blocks/SM; %d reps, spread %.1f%%%s\n",
           r->res.regs, r->res.smem_static, r->res.local_bytes,
           r->res.spill_bytes, r->res.occupancy, r->reps, r->spread * 100,
           r->cascaded ? ", cascaded" : "");
    printf("  compile %.0f ms, checks %.1f ms, timing %.1f ms\n",
           r->compile_ms, r->check_ms, r->time_ms);
    printf("  evidence: %s\n", r->detail);
}

static void print_json(const struct printer *pr, const char *file,
                       const struct eval_result *r)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "file", file);
    cJSON_AddStringToObject(j, "timer", pr->timer);
    cJSON_AddStringToObject(j, "outcome", eval_outcome_name(r->outcome));
    cJSON_AddStringToObject(j, "detail", r->detail);
    cJSON_AddNumberToObject(j, "fitness", r->fitness);
    cJSON_AddNumberToObject(j, "median_ns", r->median_ns);
    cJSON_AddNumberToObject(j, "min_ns", r->min_ns);
    cJSON_AddNumberToObject(j, "spread", r->spread);
    cJSON_AddNumberToObject(j, "reps", r->reps);
    cJSON_AddNumberToObject(j, "cascaded", r->cascaded);
    cJSON_AddNumberToObject(j, "ratio", r->ratio);
    cJSON_AddNumberToObject(j, "roofline", r->roofline);
    cJSON_AddNumberToObject(j, "regs", r->res.regs);
    cJSON_AddNumberToObject(j, "smem_static", r->res.smem_static);
    cJSON_AddNumberToObject(j, "local_bytes", r->res.local_bytes);
    cJSON_AddNumberToObject(j, "spill_bytes", r->res.spill_bytes);
    cJSON_AddNumberToObject(j, "occupancy", r->res.occupancy);
    cJSON_AddNumberToObject(j, "compile_ms", r->compile_ms);
    cJSON_AddNumberToObject(j, "check_ms", r->check_ms);
    cJSON_AddNumberToObject(j, "time_ms", r->time_ms);
    cJSON *e = r->evidence_json ? cJSON_Parse(r->evidence_json) : NULL;
    if (e)
        cJSON_AddItemToObject(j, "evidence", e);
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    if (s)
        puts(s);
    free(s);
}

static int on_result(void *ud, int index, const struct eval_result *r)
{
    struct printer *pr = ud;
    if (r->outcome != EVAL_OK)
        pr->n_bad++;
    if (index >= 0 && index < MAX_FILES)
        pr->ok[index] = r->outcome == EVAL_OK;
    if (pr->json)
        print_json(pr, pr->files[index], r);
    else
        print_human(pr, pr->files[index], r);
    fflush(stdout);
    return 0;
}

/* "# tolerance: ..." when the worker calibrated it or it was given. */
static void print_tolerance(const struct problem *p, const cJSON *env)
{
    const char *src = record_str(cJSON_GetObjectItem(env, "tolerance"),
                                 "source");
    const char *dts = record_str(env, "dtype");
    enum dtype dt = DTYPE_FP32;
    char tol[2048]; /* one pair per output */
    if (!src || !strcmp(src, "dtype") || (dts && dtype_parse(dts, &dt)))
        return;
    cli_tolerance_line(p, NULL, dt, env, tol, sizeof tol);
    if (tol[0])
        printf("# %s\n", tol);
}

/* Prints the device/baseline header; remembers the main baseline name. */
static void print_env(struct evaluator *ev, struct printer *pr)
{
    char *env = ev->ops->environment ? ev->ops->environment(ev->self) : NULL;
    cJSON *j = env ? cJSON_Parse(env) : NULL;
    const cJSON *d = cJSON_GetObjectItem(j, "device"),
                *b = cJSON_GetObjectItem(j, "baselines"),
                *t = cJSON_GetObjectItem(j, "timer");
    const cJSON *b0 = cJSON_GetArrayItem(b, 0);
    const cJSON *bn = cJSON_GetObjectItem(b0, "name");
    snprintf(pr->base_name, sizeof pr->base_name, "%s",
             cJSON_IsString(bn) ? bn->valuestring : "baseline");
    snprintf(pr->timer, sizeof pr->timer, "%s",
             cJSON_IsString(t) ? t->valuestring : "?");
    pr->n_more = 0;
    for (int i = 1; i < cJSON_GetArraySize(b) && i <= PROB_MAX_BASELINES;
         i++) {
        struct record_baseline bl;
        record_get_baseline(cJSON_GetArrayItem(b, i), &bl);
        snprintf(pr->more_name[pr->n_more], 32, "%s", bl.name);
        pr->more_fit[pr->n_more++] = bl.fitness;
    }
    if (!pr->json) {
        const cJSON *n = cJSON_GetObjectItem(d, "name");
        printf("# %s, %s %s %s, timer %s\n",
               cJSON_IsString(n) ? n->valuestring : "GPU", pr->p->name,
               cJSON_GetStringValue(cJSON_GetObjectItem(j, "dtype")),
               cJSON_GetStringValue(cJSON_GetObjectItem(j, "shape")),
               cJSON_IsString(t) ? t->valuestring : "?");
        const cJSON *x;
        int flops = !strcmp(pr->p->work_unit, "FLOP/s");
        cJSON_ArrayForEach(x, b)
        {
            struct record_baseline bl;
            record_get_baseline(x, &bl);
            printf("# baseline %s: %.4f ms, %.2f %s", bl.name[0] ? bl.name
                   : "?", bl.median_ns / 1e6, bl.fitness / (flops ? 1e12
                   : 1e9), flops ? "TFLOP/s" : "GB/s");
            if (bl.wall_ns > 0) /* torch: CUDA events around the call */
                printf(" (wall %.4f ms)", bl.wall_ns / 1e6);
            printf("\n");
        }
        const char *note = record_str(j, "baseline_note");
        if (note && *note)
            printf("# %s\n", note);
        print_tolerance(pr->p, j);
    }
    cJSON_Delete(j);
    free(env);
}

/* ABAB re-measurement of file 0 (challenger) against file 1. */
static int print_confirm(struct evaluator *ev, const struct candidate **cp,
                         const char *const *file)
{
    int accept = 0;
    double ratio = 0, noise = 0;
    int rc = ev->ops->confirm(ev->self, cp[0], cp[1], &accept, &ratio,
                              &noise);
    if (!rc)
        printf("confirm: %s vs %s: time ratio %.4f (the second's time over "
               "the first's: > 1 = the first faster), noise %.4f: %s\n",
               file[0], file[1], ratio, noise,
               accept ? "accept" : "reject");
    return rc;
}

/* --pairs: each correct file against the first baseline, launch by
 * launch. */
static int print_pairs(struct evaluator *ev, const struct candidate **cp,
                       const char *const *file, int n, int pairs,
                       const int *ok)
{
    for (int i = 0; i < n; i++) {
        double ratio, noise, kns, bns;
        char why[256];
        if (!ok[i])
            continue;
        int rc = gpueval_vs_baseline(ev, cp[i], pairs, &ratio, &noise, &kns,
                                     &bns, why, sizeof why);
        if (rc == KEVO_ENOENT) {
            printf("pairs: %s: not paired with the baseline: %s\n", file[i],
                   why);
            continue;
        }
        if (rc)
            return rc;
        printf("pairs: %s vs baseline, launch by launch: %.4fx (noise "
               "%.4f, %d pairs; kernel %.2f us, baseline %.2f us)\n",
               file[i], ratio, noise, pairs, kns / 1e3, bns / 1e3);
    }
    return KEVO_OK;
}

/* ---- one problem's files in one evaluator */

struct group {
    const struct problem *p;
    struct tpl *t[MAX_FILES];
    const char *file[MAX_FILES];
    int n;
};

static int run_group(const struct eval_args *a, struct group *g,
                     uint64_t seed, int *n_bad)
{
    struct gpueval_opts o = {.problem = g->p, .arch = a->arch,
                             .kernel_timeout_ms = a->timeout_ms,
                             .harness_seed = seed, .verbose = a->verbose,
                             .no_race = 1, /* files are not raced */
                             /* a few files need few compiler processes */
                             .n_compilers = g->n < 8 ? g->n : 0};
    char err[512];
    if (group_shape(a, g->p, &o.shape))
        return XC_USAGE;
    o.dtype = DTYPE_FP32;
    if (a->dtype && dtype_parse(a->dtype, &o.dtype)) {
        fprintf(stderr, "kevo eval: unknown dtype '%s'\n", a->dtype);
        return XC_USAGE;
    }
    struct evaluator ev;
    struct tpl_device dev;
    int rc = gpueval_new(&o, &ev, &dev, err, sizeof err);
    if (rc) {
        fprintf(stderr, "kevo eval: %s\n", err);
        return rc == KEVO_ENODEV ? XC_NOGPU : rc == KEVO_EINVAL ? XC_USAGE
                                                               : XC_BAD;
    }
    struct candidate cand[MAX_FILES];
    const struct candidate *cp[MAX_FILES];
    int64_t vals[MAX_FILES][TPL_MAX_PARAMS];
    char *src[MAX_FILES] = {0};
    int x = XC_OK;
    for (int i = 0; i < g->n && !x; i++) {
        x = point_for(a, g->t[i], vals[i], a->n_files == 1);
        int64_t facts[TPL_MAX_FACTS];
        if (!x && tpl_facts(g->t[i], vals[i], &o.shape, facts, err,
                            sizeof err)) {
            fprintf(stderr, "kevo eval: %s: %s\n", g->file[i], err);
            x = XC_BAD;
        }
        src[i] = x ? NULL : tpl_instantiate(g->t[i], vals[i], o.dtype,
                                            &o.shape);
        if (!x && !src[i])
            x = XC_BAD;
        if (x)
            break;
        cand[i] = (struct candidate){
            .tpl = g->t[i], .vals = vals[i],
            .genome_hash = genome_hash(g->t[i], vals[i]),
            .source = src[i],
            .source_hash = hash_final(hash_str(HASH_SEED, src[i]))};
        cp[i] = &cand[i];
    }
    struct printer pr = {.files = g->file, .p = g->p, .json = a->json};
    if (!x) {
        print_env(&ev, &pr);
        rc = ev.ops->eval_batch(ev.self, cp, g->n, on_result, &pr);
        if (!rc && a->ab && g->n == 2 && ev.ops->confirm)
            rc = print_confirm(&ev, cp, g->file);
        if (!rc && a->pairs)
            rc = print_pairs(&ev, cp, g->file, g->n, a->pairs, pr.ok);
        for (int i = 0; !rc && a->profile && i < g->n; i++)
            if (pr.ok[i])
                rc = cli_print_profile(&ev, cp[i], g->p, &o.shape, o.dtype,
                                       g->file[i], a->json);
        if (rc) {
            fprintf(stderr, "kevo eval: evaluation stopped: %s\n",
                    kevo_strerror(rc));
            x = rc == KEVO_ENODEV ? XC_NOGPU : XC_BAD;
        }
    }
    *n_bad += pr.n_bad;
    for (int i = 0; i < g->n; i++)
        free(src[i]);
    ev.ops->destroy(ev.self);
    return x;
}

/* Every usage error of a group (--arch, --shape, --dtype, --param) before
 * the GPU is looked for. */
static int check_group(const struct eval_args *a, const struct group *g)
{
    const char *opts[16];
    enum dtype dt;
    int64_t vals[TPL_MAX_PARAMS];
    if (a->arch && jit_default_options(a->arch, opts, 16) < 0) {
        fprintf(stderr, "kevo eval: --arch: '%s' is not a real arch "
                "(sm_<digits>[a|f], e.g. sm_90a)\n", a->arch);
        return XC_USAGE;
    }
    struct shape shape;
    if (group_shape(a, g->p, &shape))
        return XC_USAGE;
    if (a->dtype && dtype_parse(a->dtype, &dt)) {
        fprintf(stderr, "kevo eval: unknown dtype '%s'\n", a->dtype);
        return XC_USAGE;
    }
    for (int i = 0; i < g->n; i++)
        if (point_for(a, g->t[i], vals, a->n_files == 1))
            return XC_USAGE;
    return XC_OK;
}

int cmd_eval_main(int argc, char **argv)
{
    static struct eval_args a;
    static struct group groups[8];
    memset(&a, 0, sizeof a);
    int x = parse_eval_args(argc, argv, &a);
    if (x < 0)
        return XC_OK;
    if (x) {
        fputs(eval_usage, stderr);
        return XC_USAGE;
    }
    int n_groups = 0;
    char err[1024];
    for (int i = 0; i < a.n_files && !x; i++) {
        struct tpl *t;
        if (tpl_load(a.files[i], &t, err, sizeof err)) {
            fprintf(stderr, "kevo eval: %s\n", err);
            x = XC_USAGE;
            break;
        }
        if (a.problem && strcmp(a.problem, t->problem)) {
            fprintf(stderr, "kevo eval: %s solves %s, not %s\n", a.files[i],
                    t->problem, a.problem);
            tpl_free(t);
            x = XC_USAGE;
            break;
        }
        int g = 0;
        while (g < n_groups && strcmp(groups[g].p->name, t->problem))
            g++;
        if (g == n_groups) {
            if (n_groups == 8) {
                tpl_free(t);
                x = XC_USAGE;
                break;
            }
            memset(&groups[g], 0, sizeof groups[g]);
            groups[g].p = problem_find(t->problem);
            n_groups++;
        }
        groups[g].t[groups[g].n] = t;
        groups[g].file[groups[g].n++] = a.files[i];
    }
    for (int g = 0; g < n_groups && !x; g++)
        x = check_group(&a, &groups[g]);
    if (!x && !gpu_driver_present()) {
        fprintf(stderr, "kevo eval: no NVIDIA driver (libcuda.so.1 not "
                "found): this command needs a GPU\n");
        x = XC_NOGPU;
    }
    int n_bad = 0;
    uint64_t seed = a.have_seed ? a.seed : cli_fresh_seed();
    for (int g = 0; g < n_groups && !x; g++)
        x = run_group(&a, &groups[g], seed, &n_bad);
    for (int g = 0; g < n_groups; g++)
        for (int i = 0; i < groups[g].n; i++)
            tpl_free(groups[g].t[i]);
    return x ? x : n_bad ? XC_BAD : XC_OK;
}

/* ================================================================ doctor */

static const char doctor_usage[] =
    "usage: kevo doctor [--json] [--help]\n"
    "\n"
    "Checks what kevo needs, layer by layer, and prints PASS/FAIL lines:\n"
    "driver load, context, NVRTC compile, module load + launch, CUPTI\n"
    "timing, cuBLAS, and a GPU worker process. Without a GPU it checks the\n"
    "compiler and exits 3. --json prints one JSON object on stdout\n"
    "(checks[] with check, pass, detail; failed; gpu) and the human lines\n"
    "on stderr.\n";

static int n_fail;
static FILE *dout;      /* human lines: stdout, or stderr with --json */
static cJSON *jchecks;  /* --json: the checks, else NULL */

static void line(int pass, const char *what, const char *fmt, ...)
    KEVO_PRINTF(3, 4);
static void line(int pass, const char *what, const char *fmt, ...)
{
    char detail[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    fprintf(dout, "%s %-16s %s\n", pass ? "PASS" : "FAIL", what, detail);
    n_fail += !pass;
    fflush(dout);
    if (jchecks) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "check", what);
        cJSON_AddBoolToObject(c, "pass", pass);
        cJSON_AddStringToObject(c, "detail", detail);
        cJSON_AddItemToArray(jchecks, c);
    }
}

/* --json: the one object on stdout; returns code. */
static int doctor_done(int code, int gpu)
{
    if (jchecks) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kevo", KEVO_VERSION);
        cJSON_AddStringToObject(o, "commit", kevo_git_commit());
        cJSON_AddStringToObject(o, "nvrtc", jit_nvrtc_version());
        cJSON_AddBoolToObject(o, "gpu", gpu);
        cJSON_AddNumberToObject(o, "failed", n_fail);
        cJSON_AddItemToObject(o, "checks", jchecks);
        char *t = cJSON_PrintUnformatted(o);
        if (t)
            puts(t);
        free(t);
        cJSON_Delete(o);
        jchecks = NULL;
    }
    return code;
}

static char *doctor_compile(const char *arch)
{
    struct jit_output o;
    long long t0 = fs_now_ns();
    int rc = jit_compile(hx_core_source(), "kevo_core", arch, &o);
    char *cubin = NULL;
    if (!rc && o.ok) {
        line(1, "compile", "NVRTC %s compiled the harness kernels for %s "
             "(%.0f ms, %zu B cubin)", jit_nvrtc_version(), arch,
             (fs_now_ns() - t0) / 1e6, o.cubin_len);
        cubin = o.cubin;
        o.cubin = NULL;
    } else {
        char first[200];
        snprintf(first, sizeof first, "%s", o.log ? o.log : "");
        first[strcspn(first, "\n")] = '\0';
        line(0, "compile", "NVRTC failed for %s: %s", arch, first);
    }
    jit_output_release(&o);
    return cubin;
}

static void doctor_device(const struct gpu *g)
{
    const struct gpu_info *i = &g->info;
    fprintf(dout, "     device           %s (%s), CC %d.%d -> %s, %d SMs\n",
           i->name, i->uuid, i->cc_major, i->cc_minor, i->arch, i->sms);
    fprintf(dout, "     memory           %.1f GiB, L2 %.1f MiB, bus %d bit, "
           "peak %.0f GB/s\n", i->total_mem / 1073741824.0,
           i->l2_bytes / 1048576.0, i->bus_width_bits, i->peak_bw / 1e9);
    fprintf(dout, "     clocks           SM max %d MHz, memory %d MHz; driver "
           "CUDA %d.%d\n", i->clock_khz / 1000, i->mem_clock_khz / 1000,
           i->driver_version / 1000, i->driver_version % 1000 / 10);
    struct gpu_nvml nv;
    if (gpu_nvml_sample(i->uuid, &nv) == 0)
        fprintf(dout, "     nvml             %d C, %.0f W of %.0f W limit, SM %d "
               "MHz (app %d), mem %d MHz, clock events 0x%llx\n", nv.temp_c,
               nv.power_mw / 1000.0, nv.power_limit_mw / 1000.0,
               nv.sm_clock_mhz, nv.app_sm_clock_mhz, nv.mem_clock_mhz,
               (unsigned long long)nv.throttle);
    else
        fprintf(dout, "     nvml             not available (optional)\n");
}

/* Module load + a tiny launch, verified on the host. */
static void doctor_launch(struct gpu *g, const char *cubin)
{
    const struct gpu_api *cu = g->cu;
    CUmodule m = NULL;
    CUfunction f;
    CUdeviceptr d = 0;
    float h[1024];
    int n = 1024;
    for (int i = 0; i < n; i++)
        h[i] = (float)i;
    const char *step = "cuCtxSetCurrent";
    /* NVRTC ran in between: make sure our context is current */
    CUresult rc = cu->cuCtxSetCurrent(g->ctx);
    if (!rc && (step = "cuModuleLoadData"))
        rc = cu->cuModuleLoadData(&m, cubin);
    if (!rc && (step = "cuModuleGetFunction"))
        rc = cu->cuModuleGetFunction(&f, m, "kevo_doctor");
    if (!rc && (step = "cuMemAlloc"))
        rc = cu->cuMemAlloc(&d, sizeof h);
    if (!rc && (step = "cuMemcpyHtoD"))
        rc = cu->cuMemcpyHtoD(d, h, sizeof h);
    void *args[] = {&d, &n};
    if (!rc && (step = "cuLaunchKernel"))
        rc = cu->cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
    if (!rc && (step = "cuCtxSynchronize"))
        rc = cu->cuCtxSynchronize();
    if (!rc && (step = "cuMemcpyDtoH"))
        rc = cu->cuMemcpyDtoH(h, d, sizeof h);
    int ok = !rc;
    for (int i = 0; ok && i < n; i++)
        ok = h[i] == 2.0f * i + 1.0f;
    if (rc)
        line(0, "module+launch", "%s: %s", step, gpu_errname(rc));
    else
        line(ok, "module+launch", ok ? "loaded a cubin, launched 1024 "
             "threads, results verified" : "kernel ran but results are "
             "wrong");
    if (d)
        cu->cuMemFree(d);
    if (m)
        cu->cuModuleUnload(m);
}

/* The baselines a worker measured (its ready message), one line each;
 * 1 if each is plausible (copies within the memory's peak, BLAS > 0) and
 * the worker timed with CUPTI. */
static int doctor_baselines(const struct problem *p, const char *shape,
                            const char *env, double peak_bw)
{
    cJSON *j = cJSON_Parse(env ? env : "");
    const cJSON *bl = cJSON_GetObjectItemCaseSensitive(j, "baselines"), *b;
    const cJSON *tm = cJSON_GetObjectItemCaseSensitive(j, "timer");
    int cupti = cJSON_IsString(tm) && !strcmp(tm->valuestring, "cupti");
    int good = cupti && cJSON_GetArraySize(bl) > 0;
    char what[80];
    snprintf(what, sizeof what, "%s %s", p->name, shape);
    cJSON_ArrayForEach(b, bl)
    {
        struct record_baseline x;
        record_get_baseline(b, &x);
        const char *name = x.name[0] ? x.name : NULL;
        double ns = x.median_ns, fit = x.fitness;
        int copy = name && !strcmp(name, "copy");
        int ok = cupti && ns > 0 && fit > 0 &&
                 (!copy || (fit > 50e9 && fit < peak_bw * 1.05));
        char val[64];
        progress_fmt_fitness(fit, p->work_unit, val, sizeof val);
        line(ok, what, "baseline %s: %.1f us = %s (timer %s)",
             name ? name : "?", ns / 1e3, val,
             cJSON_IsString(tm) ? tm->valuestring : "?");
        good &= ok;
    }
    if (!cJSON_GetArraySize(bl))
        line(0, what, "the worker measured no baseline");
    cJSON_Delete(j);
    return good;
}

/* Every built-in problem through a real worker (fork + exec of this
 * executable, the bring-up every run uses: context, CUPTI, cuBLAS, the
 * harness and the problem's kernels), at its doctor shape. */
static void doctor_problems(double peak_bw)
{
    for (int i = 0; problem_builtin(i); i++) {
        const struct problem *p = problem_builtin(i);
        struct gpueval_opts o = {.problem = p, .dtype = DTYPE_FP32,
                                 .n_compilers = 1, .harness_seed = 42};
        char err[512];
        if (!p->doctor_shape ||
            problem_parse_shape(p, p->doctor_shape, &o.shape, err,
                                sizeof err))
            continue;
        struct evaluator ev;
        long long t0 = fs_now_ns();
        int rc = gpueval_new(&o, &ev, NULL, err, sizeof err);
        if (rc) {
            line(0, p->name, "worker: %s", err);
            continue;
        }
        line(1, p->name, "GPU worker started, compiled the harness and "
             "measured the baselines in %.0f ms", (fs_now_ns() - t0) / 1e6);
        char *env = ev.ops->environment ? ev.ops->environment(ev.self) : NULL;
        doctor_baselines(p, p->doctor_shape, env, peak_bw);
        free(env);
        ev.ops->destroy(ev.self);
    }
}

int cmd_doctor_main(int argc, char **argv)
{
    dout = stdout;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            dout = stderr;
            if (!jchecks)
                jchecks = cJSON_CreateArray();
            continue;
        }
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(doctor_usage, stdout);
            return XC_OK;
        }
        fprintf(stderr, "kevo doctor: unknown option '%s'\n%s", argv[i],
                doctor_usage);
        return XC_USAGE;
    }
    n_fail = 0;
    fprintf(dout, "kevo %s (%s), NVRTC %s, CUDA headers %d.%d\n", KEVO_VERSION,
           kevo_git_commit(), jit_nvrtc_version(), CUDA_VERSION / 1000,
           CUDA_VERSION % 1000 / 10);
    struct gpu g;
    char err[512];
    int rc = gpu_open(&g, 0, err, sizeof err);
    if (rc == KEVO_ENODEV && !gpu_driver_present()) {
        free(doctor_compile("sm_90a"));
        line(0, "driver", "%s", err);
        fprintf(dout, "no GPU: %s\n", err);
        return doctor_done(XC_NOGPU, 0);
    }
    line(1, "driver", "libcuda.so.1 loaded (CUDA %d.%d driver API)",
         g.info.driver_version / 1000, g.info.driver_version % 1000 / 10);
    if (rc) {
        line(0, "context", "%s", err);
        fprintf(dout, "no GPU: %s\n", err);
        return doctor_done(XC_NOGPU, 0);
    }
    line(1, "context", "primary context on device 0");
    doctor_device(&g);
    char *core = doctor_compile(g.info.arch);
    if (core)
        doctor_launch(&g, core);
    free(core);
    double peak_bw = g.info.peak_bw;
    gpu_close(&g);
    doctor_problems(peak_bw);
    fprintf(dout, "%s: %d check%s failed\n", n_fail ? "FAIL" : "PASS", n_fail,
           n_fail == 1 ? "" : "s");
    return doctor_done(n_fail ? XC_BAD : XC_OK, 1);
}
