/*
 * cmd_verify.c - `kevo verify <run-dir>`: re-measures the best K distinct
 * ok kernels of a run in a fresh GPU worker, with a fresh harness seed (new
 * random inputs, so correctness is re-checked too), and reports each
 * kernel's drift against its recorded median with the measured noise. The
 * kernels are measured round-robin N times (the order rotated each round,
 * so no kernel always runs first); the worker re-measures the problem's
 * baselines at its start, and they are compared with the run's as a check
 * of the machine itself. It times the first baseline again after every
 * round, and reports each kernel against the baseline times just before
 * and after its own (the median over rounds): a ratio that does not
 * depend on how the GPU or the worker drifted since the start (measured
 * on the H100: about 1 % within 60 evaluations,
 * bench/results/2026-11-24-h100-s7/c6). Compares the environment fingerprint with the
 * run's and says so when the GPU or the software stack differ. Writes
 * <run>/verify.json (read by `kevo leaderboard`); nothing else.
 */
#include "cmd_repro.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd_outputs.h"
#include "cmd_run.h"
#include "cmd_sanitize.h"
#include "eval.h"
#include "fingerprint.h"
#include "fsutil.h"
#include "genome.h"
#include "gpu.h"
#include "gpueval.h"
#include "hash.h"
#include "record.h"
#include "rundir.h"
#include "vdoc.h"
#include "version.h"

#define MAX_TOP 32
#define MAX_REPS 50
#define PAIRS 40     /* kernel / baseline pairs, launch by launch */
#define NOISE_FLOOR 0.01 /* a kernel against itself: ratio 1.0056, noise
                            0.005 on the H200 (gpueval.c confirm) */

static const char usage[] =
    "usage: kevo verify <run-dir> [--top K] [--reps N] [--profile] [--json]\n"
    "       kevo verify --sanitize <run-dir> [...]  (kevo verify --sanitize "
    "--help)\n"
    "\n"
    "Re-measures the run's best K distinct correct kernels in a fresh GPU\n"
    "worker with new random inputs (a fresh harness seed; every check runs\n"
    "again), N rounds each, interleaved. For each kernel: the recorded and\n"
    "the measured median, the drift between them and the measured noise;\n"
    "drift beyond the noise is flagged. The worker's fresh baselines are\n"
    "compared with the run's; the first one is timed again after every\n"
    "round, and each kernel is also given against it, interleaved (the\n"
    "median over rounds), and then launch by launch (40 pairs, an L2\n"
    "flush before each launch, the order alternating: both timed in the\n"
    "same state of the GPU). Says clearly when the GPU (name, UUID) or the\n"
    "software stack (driver, CUDA, NVRTC, CUPTI, cuBLAS) differ from the\n"
    "run's. Writes <run-dir>/verify.json.\n"
    "\n"
    "  --top K     kernels to re-measure (default 3, at most 32); the run's\n"
    "              accepted best is always one of them\n"
    "  --reps N    rounds (default 3, at most 50)\n"
    "  --profile   then the hardware profile of each correct kernel (CUPTI\n"
    "              range profiler) and its diagnosis, in verify.json too\n"
    "  --json      print verify.json on stdout instead of the table\n"
    "\n"
    "noise = the largest of 1 %, the recorded spread, each round's spread\n"
    "and the range of the round medians, all relative to the median.\n"
    "\n"
    "exit status: 0 every kernel correct and within noise, 1 a drift, a\n"
    "failure or an error, 2 usage, 3 no GPU\n";

struct entry {
    const struct rec_eval *rec;      /* the journal record, borrowed */
    char hex[17];                    /* its genome hash */
    const struct tpl *tpl;           /* borrowed */
    int64_t vals[TPL_MAX_PARAMS];
    char *source;                    /* owned */
    struct candidate cand;
    int best;                        /* the run's accepted best */
    double ns[MAX_REPS];             /* per round: median, ns */
    double spread[MAX_REPS];
    double ratio, fitness;           /* of the last ok round */
    int n_ok;
    enum eval_outcome bad;           /* a failing round's outcome */
    char detail[512];                /* its reason */
    /* results */
    double measured_ns, drift, noise;
    int within;
    double paired, paired_noise;     /* gpueval_vs_baseline: launch by
                                        launch against the baseline (0 =
                                        not measured) */
    double vs_baseline;              /* median over rounds of baseline /
                                        kernel time, baseline timed next to
                                        it; 0 = not measured */
    struct kprof prof;               /* --profile */
    int has_prof;
};

struct verify {
    const char *dir;
    int top, reps, json, profile;
    struct run_view rv;              /* the run (manifest, journal,
                                        templates), owned */
    struct entry e[MAX_TOP];
    int n;
    uint64_t seed;
    struct evaluator ev;
    int have_ev;
    cJSON *fp_now, *fp_run;          /* owned */
    cJSON *env_now;                  /* the fresh worker's environment */
    cJSON *nvml_end;
    /* the first baseline's median: bl_ns[0] at the worker's start,
     * bl_ns[r + 1] timed again after round r (0 = none) */
    double bl_ns[MAX_REPS + 1];
    char bl_name[64];
    int same_gpu, same_sw;
    char diff[1024];
    char err[1024];
};

/* ------------------------------------------------------------ choice */

static int cmp_fitness(const void *a, const void *b)
{
    const struct rec_eval *x = *(const struct rec_eval *const *)a,
                          *y = *(const struct rec_eval *const *)b;
    if (x->r.fitness != y->r.fitness)
        return x->r.fitness > y->r.fitness ? -1 : 1;
    return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/* Rebuilds the candidate of record rec, checking that it is the genome
 * and the source the run evaluated. */
static int rebuild(struct verify *v, struct entry *x)
{
    const char *name = x->rec->tpl, *h = x->hex;
    if (!(x->tpl = run_view_tpl(&v->rv, name))) {
        char why[sizeof v->err - 32];
        run_view_tpl_missing(&v->rv, name, why, sizeof why);
        snprintf(v->err, sizeof v->err, "kernel %s: %s", h, why);
        return KEVO_ENOENT;
    }
    run_view_point(x->tpl, x->rec, x->vals);
    char hex[17];
    hash_hex(genome_hash(x->tpl, x->vals), hex);
    x->source = tpl_instantiate_hdr(x->tpl, x->vals, v->rv.spec.dtype,
                                    &v->rv.spec.shape,
                                    v->rv.spec.source_header);
    if (!x->source)
        return KEVO_ENOMEM;
    uint64_t src_hash = hash_final(hash_str(HASH_SEED, x->source));
    if (strcmp(hex, h) || (x->rec->source && src_hash != x->rec->source)) {
        snprintf(v->err, sizeof v->err, "kernel %s (%s): the run's template "
                 "no longer gives the recorded %s", h, name,
                 strcmp(hex, h) ? "genome" : "source");
        return KEVO_EPARSE;
    }
    x->cand = (struct candidate){x->tpl, x->vals, genome_hash(x->tpl,
                                 x->vals), x->source, src_hash, 0};
    return KEVO_OK;
}

/* The hash of the run's accepted best (best.json); 0 if none. */
static int accepted_best(const struct verify *v, uint64_t *h)
{
    char path[4096], *text = NULL, why[128];
    struct rec_best b;
    if (rundir_path(path, sizeof path, v->dir, "best.json") ||
        fs_read_file(path, &text, NULL))
        return 0;
    cJSON *o = cJSON_Parse(text);
    int ok = o && !rec_best_parse(o, &b, why, sizeof why);
    cJSON_Delete(o);
    free(text);
    if (ok)
        *h = b.hash;
    return ok;
}

static int choose(struct verify *v)
{
    long n = v->rv.n_records, k = 0;
    const struct rec_eval **ok = calloc((size_t)(n ? n : 1), sizeof *ok), *r;
    if (!ok)
        return KEVO_ENOMEM;
    for (int i = 0; i < v->rv.n_records; i++)
        if ((r = run_view_eval(&v->rv, i)) && r->r.outcome == EVAL_OK &&
            r->r.median_ns > 0)
            ok[k++] = r;
    qsort(ok, (size_t)k, sizeof *ok, cmp_fitness);
    uint64_t best = 0;
    int has = accepted_best(v, &best);
    int have_best = 0;
    for (long i = 0; i < k && v->n < v->top; i++) {
        int dup = 0;
        for (int j = 0; j < v->n; j++)
            dup |= v->e[j].rec->hash == ok[i]->hash;
        if (dup)
            continue;
        v->e[v->n].rec = ok[i];
        have_best |= v->e[v->n].best = has && ok[i]->hash == best;
        v->n++;
    }
    /* the accepted best (it may have lost a confirm-free race on fitness
     * alone) replaces the last one when it is not among them */
    for (long i = 0; !have_best && has && v->n && i < k; i++)
        if (ok[i]->hash == best) {
            v->e[v->n - 1].rec = ok[i];
            v->e[v->n - 1].best = have_best = 1;
        }
    for (int j = 0; j < v->n; j++)
        hash_hex(v->e[j].rec->hash, v->e[j].hex);
    free(ok);
    if (!v->n) {
        snprintf(v->err, sizeof v->err, "run '%s' has no correct kernel to "
                 "verify", v->dir);
        return KEVO_ENOENT;
    }
    for (int i = 0; i < v->n; i++) {
        int rc = rebuild(v, &v->e[i]);
        if (rc)
            return rc;
    }
    return KEVO_OK;
}

static int open_run(struct verify *v)
{
    rundir_run_problem_code(1); /* it evaluates: a PyTorch module runs */
    int rc = run_view_open(v->dir, &v->rv, v->err, sizeof v->err);
    return rc ? rc : choose(v);
}

/* -------------------------------------------------------- measuring */

struct round {
    struct verify *v;
    const int *order;   /* batch index -> entry */
    int rep;
};

static int on_result(void *ud, int index, const struct eval_result *r)
{
    struct round *rd = ud;
    struct entry *x = &rd->v->e[rd->order[index]];
    if (r->outcome == EVAL_OK && r->median_ns > 0) {
        x->ns[x->n_ok] = r->median_ns;
        x->spread[x->n_ok] = r->spread;
        x->n_ok++;
        x->ratio = r->ratio;
        x->fitness = r->fitness;
    } else if (!x->detail[0]) {
        x->bad = r->outcome;
        snprintf(x->detail, sizeof x->detail, "%s", r->detail);
    }
    if (!rd->v->json && isatty(2)) {
        fprintf(stderr, "\rround %d/%d: %d/%d measured", rd->rep + 1,
                rd->v->reps, index + 1, rd->v->n);
        fflush(stderr);
    } else if (!rd->v->json && index + 1 == rd->v->n) {
        /* a log (kevo bench's, say): a line a round */
        fprintf(stderr, "round %d/%d: %d kernel%s measured\n", rd->rep + 1,
                rd->v->reps, rd->v->n, rd->v->n == 1 ? "" : "s");
    }
    return 0;
}

static int start_gpu(struct verify *v)
{
    const struct spec *s = &v->rv.spec;
    struct gpueval_opts o = {
        .problem = v->rv.prob, .dtype = s->dtype, .shape = s->shape,
        .arch = s->arch[0] ? s->arch : NULL,
        .n_compilers = v->n < 8 ? v->n : 8,
        .compile_timeout_ms = s->compile_timeout_ms,
        .kernel_timeout_ms = s->kernel_timeout_ms,
        .harness_seed = v->seed = cli_fresh_seed(),
        .no_race = 1 /* full measurements: rounds must not race */};
    int rc = gpueval_new(&o, &v->ev, NULL, v->err, sizeof v->err);
    if (rc)
        return rc;
    v->have_ev = 1;
    char *env = v->ev.ops->environment(v->ev.self);
    v->env_now = env ? cJSON_Parse(env) : NULL;
    free(env);
    struct record_baseline b;
    record_get_baseline(cJSON_GetArrayItem(record_at(v->env_now, "baselines",
                                                     NULL), 0), &b);
    v->bl_ns[0] = b.median_ns;
    snprintf(v->bl_name, sizeof v->bl_name, "%s", b.name);
    v->fp_now = fingerprint_new(v->env_now, 1);
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(v->rv.manifest,
                                                       "fingerprint");
    v->fp_run = fr ? cJSON_Duplicate(fr, 1)
                   : fingerprint_new(cJSON_GetObjectItemCaseSensitive(
                                         v->rv.manifest, "environment"), 0);
    fingerprint_compare(v->fp_run, v->fp_now, &v->same_gpu, &v->same_sw,
                        v->diff, sizeof v->diff);
    return v->fp_now && v->fp_run ? KEVO_OK : KEVO_ENOMEM;
}

/* --profile: each kernel correct in every round, profiled once. */
static int profile_all(struct verify *v)
{
    for (int i = 0; i < v->n; i++) {
        struct entry *x = &v->e[i];
        if (x->n_ok != v->reps || !v->ev.ops->profile)
            continue;
        int rc = v->ev.ops->profile(v->ev.self, &x->cand, &x->prof);
        if (rc) {
            snprintf(v->err, sizeof v->err, "profile stopped: %s",
                     kevo_strerror(rc));
            return rc;
        }
        x->has_prof = 1;
    }
    return KEVO_OK;
}

static int measure(struct verify *v)
{
    const struct candidate *cp[MAX_TOP];
    int order[MAX_TOP];
    for (int rep = 0; rep < v->reps; rep++) {
        for (int i = 0; i < v->n; i++) {
            order[i] = (i + rep) % v->n;
            cp[i] = &v->e[order[i]].cand;
        }
        struct round rd = {v, order, rep};
        int rc = v->ev.ops->eval_batch(v->ev.self, cp, v->n, on_result, &rd);
        if (rc) {
            snprintf(v->err, sizeof v->err, "measurement stopped: %s",
                     kevo_strerror(rc));
            return rc;
        }
        /* the baseline again, next to this round's kernels: their ratio
         * to it does not depend on how the GPU or the worker drifted
         * since its start */
        if (v->bl_ns[0] > 0 &&
            gpueval_remeasure_baseline(&v->ev, &v->bl_ns[rep + 1]))
            v->bl_ns[rep + 1] = 0;
    }
    if (!v->json && isatty(2))
        fprintf(stderr, "\r%40s\r", "");
    /* then each correct kernel against the first baseline launch by
     * launch (ABBA pairs, an L2 flush before each launch): the fairest
     * ratio, both timed in the same state of the GPU */
    for (int i = 0; v->bl_ns[0] > 0 && i < v->n; i++) {
        struct entry *x = &v->e[i];
        double kns, bns;
        char why[256];
        if (x->n_ok != v->reps)
            continue;
        if (!v->json)
            fprintf(stderr, "kernel %d: %d pairs against %s\n", i + 1,
                    PAIRS, v->bl_name);
        int rc = gpueval_vs_baseline(&v->ev, &x->cand, PAIRS, &x->paired,
                                     &x->paired_noise, &kns, &bns, why,
                                     sizeof why);
        if (rc && rc != KEVO_ENOENT) {
            snprintf(v->err, sizeof v->err, "measurement stopped: %s",
                     kevo_strerror(rc));
            return rc;
        }
        if (rc && !v->json)
            fprintf(stderr, "kernel %d: not paired with %s: %s\n", i + 1,
                    v->bl_name, why);
    }
    return KEVO_OK;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const double *x, int n)
{
    double s[MAX_REPS];
    memcpy(s, x, sizeof *x * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_dbl);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void judge(struct verify *v, struct entry *x)
{
    double rec = x->rec->r.median_ns;
    x->within = 0;
    x->noise = NOISE_FLOOR;
    if (x->n_ok < v->reps || x->n_ok == 0)
        return; /* failed a round: not verified */
    x->measured_ns = median(x->ns, x->n_ok);
    x->drift = x->measured_ns / rec - 1;
    double lo = x->ns[0], hi = x->ns[0];
    for (int i = 0; i < x->n_ok; i++) {
        lo = fmin(lo, x->ns[i]);
        hi = fmax(hi, x->ns[i]);
        x->noise = fmax(x->noise, x->spread[i]);
    }
    x->noise = fmax(x->noise, (hi - lo) / x->measured_ns);
    x->noise = fmax(x->noise, x->rec->r.spread);
    x->within = fabs(x->drift) <= x->noise;
    /* round r's kernel time against the mean of the baseline times just
     * before and just after it */
    double q[MAX_REPS];
    int nq = 0;
    for (int r = 0; r < v->reps; r++)
        if (v->bl_ns[r] > 0 && v->bl_ns[r + 1] > 0)
            q[nq++] = (v->bl_ns[r] + v->bl_ns[r + 1]) / 2 / x->ns[r];
    x->vs_baseline = nq ? median(q, nq) : 0;
}

/* ------------------------------------------------------------ output */

/* The GPU (software 0) or software stack of fingerprint fp. */
static void gpu_of(const cJSON *fp, struct vdoc_gpu *g)
{
    const char *n = record_str(record_at(fp, "gpu", NULL), "name"),
               *u = record_str(record_at(fp, "gpu", NULL), "uuid");
    snprintf(g->name, sizeof g->name, "%s", n ? n : "");
    snprintf(g->uuid, sizeof g->uuid, "%s", u ? u : "");
}

static void sw_of(const cJSON *fp, struct vdoc_sw *s)
{
    const cJSON *sw = record_at(fp, "software", NULL);
    const char *k[4] = {"driver", "cuda_driver", "cuda", "nvrtc"};
    char *dst[4] = {s->driver, s->cuda_driver, s->cuda, s->nvrtc};
    size_t cap[4] = {sizeof s->driver, sizeof s->cuda_driver, sizeof s->cuda,
                     sizeof s->nvrtc};
    for (int i = 0; i < 4; i++)
        snprintf(dst[i], cap[i], "%s",
                 record_str(sw, k[i]) ? record_str(sw, k[i]) : "");
    s->cupti = record_num(sw, "cupti", -1);
    s->cublas = record_num(sw, "cublas", -1);
}

/* Each baseline the fresh worker measured, against the run's. */
static void baselines_of(const struct verify *v, struct vdoc *d)
{
    const cJSON *was = run_view_env(&v->rv, "baselines");
    const cJSON *now = record_at(v->env_now, "baselines", NULL), *b, *a;
    cJSON_ArrayForEach(b, now)
    {
        if (d->n_baselines == PROB_MAX_BASELINES)
            break;
        struct vdoc_baseline *x = &d->baselines[d->n_baselines++];
        const char *name = record_str(b, "name");
        x->measured_ns = record_num(b, "median_ns", 0);
        cJSON_ArrayForEach(a, was)
            if (name && record_str(a, "name") &&
                !strcmp(record_str(a, "name"), name))
                x->recorded_ns = record_num(a, "median_ns", 0);
        snprintf(x->name, sizeof x->name, "%s", name ? name : "?");
        x->has_drift = x->recorded_ns > 0 && x->measured_ns > 0;
        x->drift = x->has_drift ? x->measured_ns / x->recorded_ns - 1 : 0;
    }
}

static void entry_of(const struct verify *v, const struct entry *x,
                     struct vdoc_entry *o)
{
    snprintf(o->hash, sizeof o->hash, "%s", x->hex);
    snprintf(o->tpl, sizeof o->tpl, "%s", x->tpl->name);
    o->n_params = x->rec->n_params;
    for (int i = 0; i < o->n_params; i++) {
        snprintf(o->param_names[i], sizeof o->param_names[i], "%s",
                 x->rec->names[i]);
        o->params[i] = x->rec->vals[i];
    }
    o->best = x->best;
    o->recorded_ns = x->rec->r.median_ns;
    o->measured_ns = x->measured_ns;
    o->drift = x->drift;
    o->noise = x->noise;
    o->within_noise = x->within;
    snprintf(o->outcome, sizeof o->outcome, "%s",
             x->n_ok == v->reps ? "ok" : eval_outcome_name(x->bad));
    snprintf(o->detail, sizeof o->detail, "%s", x->detail);
    o->recorded_ratio = x->rec->r.ratio;
    o->measured_ratio = x->ratio;
    o->measured_fitness = x->fitness;
    o->vs_baseline_interleaved = x->vs_baseline;
    o->vs_baseline_paired = x->paired;
    o->vs_baseline_paired_noise = x->paired_noise;
    o->vs_baseline_pairs = x->paired > 0 ? PAIRS : 0;
    snprintf(o->unit, sizeof o->unit, "%s", v->rv.prob->work_unit);
    o->n_rounds = x->n_ok;
    memcpy(o->rounds_ns, x->ns, (size_t)x->n_ok * sizeof *x->ns);
}

static int all_within(const struct verify *v)
{
    for (int i = 0; i < v->n; i++)
        if (!v->e[i].within)
            return 0;
    return 1;
}

/* What verify.json records (run/vdoc.h); NULL without memory. */
static struct vdoc *doc_of(const struct verify *v)
{
    struct vdoc *d = vdoc_new();
    time_t now = time(NULL);
    struct tm tm;
    if (!d)
        return NULL;
    localtime_r(&now, &tm);
    strftime(d->date, sizeof d->date, "%Y-%m-%dT%H:%M:%S%z", &tm);
    snprintf(d->run, sizeof d->run, "%s", v->dir);
    gpu_of(v->fp_now, &d->gpu);
    sw_of(v->fp_now, &d->software);
    d->same_gpu = v->same_gpu;
    d->same_software = v->same_sw;
    d->verified = all_within(v) && v->same_gpu && v->same_sw;
    snprintf(d->differences, sizeof d->differences, "%s", v->diff);
    /* the run's accepted best (else the fastest) in short, for summaries
     * such as kevo leaderboard */
    const struct entry *b = &v->e[0];
    for (int i = 0; i < v->n; i++)
        if (v->e[i].best)
            b = &v->e[i];
    snprintf(d->best_hash, sizeof d->best_hash, "%s", b->hex);
    d->drift = b->drift;
    d->noise = b->noise;
    gpu_of(v->fp_run, &d->recorded_gpu);
    sw_of(v->fp_run, &d->recorded_software);
    hash_hex(v->seed, d->harness_seed);
    d->reps = v->reps;
    snprintf(d->kevo_version, sizeof d->kevo_version, "%s", KEVO_VERSION);
    snprintf(d->kevo_commit, sizeof d->kevo_commit, "%s", kevo_git_commit());
    baselines_of(v, d);
    d->n_baseline_rounds = v->reps + 1;
    memcpy(d->baseline_rounds_ns, v->bl_ns,
           (size_t)(v->reps + 1) * sizeof *v->bl_ns);
    for (int i = 0; i < v->n; i++) {
        struct vdoc_entry *de = &d->entries[d->n_entries++];
        entry_of(v, &v->e[i], de);
        if (v->e[i].has_prof) { /* --profile */
            const struct problem *p = v->rv.prob;
            struct prof_ctx pc =
                prof_ctx_of(p, &v->rv.spec.shape, v->rv.spec.dtype);
            prof_diagnose(&v->e[i].prof, &pc, de->diagnosis,
                          sizeof de->diagnosis);
            de->profile = prof_json(&v->e[i].prof);
        }
    }
    d->fingerprint = v->fp_now ? cJSON_Duplicate(v->fp_now, 1) : NULL;
    d->nvml_end = v->nvml_end ? cJSON_Duplicate(v->nvml_end, 1) : NULL;
    return d;
}

static void fmt_ns(double ns, char *out, size_t cap)
{
    if (ns >= 1e6)
        snprintf(out, cap, "%.4f ms", ns / 1e6);
    else
        snprintf(out, cap, "%.2f us", ns / 1e3);
}

/* s, or "?" when unknown */
static const char *or_q(const char *s)
{
    return *s ? s : "?";
}

static void print_table(const struct verify *v, const struct vdoc *d)
{
    printf("kevo verify %s: %d kernel%s x %d round%s in a fresh worker "
           "(harness seed %s)\n", v->dir, v->n, v->n == 1 ? "" : "s",
           v->reps, v->reps == 1 ? "" : "s", d->harness_seed);
    printf("GPU %s (%s); driver %s, CUDA %s, NVRTC %s\n", or_q(d->gpu.name),
           or_q(d->gpu.uuid), or_q(d->software.driver),
           or_q(d->software.cuda), or_q(d->software.nvrtc));
    if (v->same_gpu && v->same_sw)
        printf("same GPU and software stack as the run\n");
    else
        printf("verified on different hardware or software: %s\n", v->diff);
    printf("\n  %-3s %-16s %-22s %12s %12s %8s %7s\n", "#", "kernel",
           "template", "recorded", "measured", "drift", "noise");
    for (int i = 0; i < v->n; i++) {
        const struct entry *x = &v->e[i];
        char a[32], b[32];
        fmt_ns(x->rec->r.median_ns, a, sizeof a);
        fmt_ns(x->measured_ns, b, sizeof b);
        if (x->n_ok < v->reps)
            printf("  %-3d %-16s %-22s %12s %12s   now %s: %s\n", i + 1,
                   x->hex, x->tpl->name, a, "-",
                   eval_outcome_name(x->bad), x->detail);
        else
            printf("  %-3d %-16s %-22s %12s %12s %+7.2f%% %6.2f%%  %s%s\n",
                   i + 1, x->hex, x->tpl->name, a, b,
                   x->drift * 100, x->noise * 100, x->within ? "ok"
                   : "DRIFT", x->best ? "  (run's best)" : "");
    }
    for (int i = 0; i < v->n; i++) {
        if (v->e[i].vs_baseline > 0)
            printf("  %-3d vs %s timed after every round: %.3fx "
                   "(median of %d rounds)\n", i + 1, v->bl_name,
                   v->e[i].vs_baseline, v->reps);
        if (v->e[i].paired > 0)
            printf("  %-3d vs %s launch by launch: %.3fx (noise %.3f, %d "
                   "pairs)\n", i + 1, v->bl_name, v->e[i].paired,
                   v->e[i].paired_noise, PAIRS);
    }
    for (int i = 0; i < d->n_baselines; i++) {
        const struct vdoc_baseline *b = &d->baselines[i];
        char a[32], m[32];
        fmt_ns(b->recorded_ns, a, sizeof a);
        fmt_ns(b->measured_ns, m, sizeof m);
        printf("baseline %s: recorded %s, now %s (%+.2f%%)\n", b->name, a, m,
               b->drift * 100);
    }
    int within = 0;
    for (int i = 0; i < v->n; i++)
        within += v->e[i].within;
    if (d->verified)
        printf("verified: %d of %d kernels within noise on the same GPU and "
               "software\n", within, v->n);
    else
        printf("NOT verified: %d of %d kernels within noise%s\n", within,
               v->n, v->same_gpu && v->same_sw ? ""
               : " (and measured on different hardware or software)");
}

/* ------------------------------------------------------------- main */

static int parse_count(const char *opt, const char *s, int max, int *out)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (*end || end == s || x < 1 || x > max) {
        fprintf(stderr, "kevo verify: --%s: '%s' is not an integer in "
                "[1, %d]\n", opt, s, max);
        return EXIT_USAGE;
    }
    *out = (int)x;
    return 0;
}

static int parse_args(int argc, char **argv, struct verify *v)
{
    static const struct option opts[] = {
        {"top", 1, 0, 'k'}, {"reps", 1, 0, 'r'}, {"json", 0, 0, 'j'},
        {"help", 0, 0, 'h'}, {"profile", 0, 0, 'P'}, {0, 0, 0, 0}};
    int c, x;
    optind = 1;
    opterr = 0;
    v->top = 3;
    v->reps = 3;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(usage, stdout); return -1;
        case 'j': v->json = 1; break;
        case 'P': v->profile = 1; break;
        case 'k':
            if ((x = parse_count("top", optarg, MAX_TOP, &v->top)))
                return x;
            break;
        case 'r':
            if ((x = parse_count("reps", optarg, MAX_REPS, &v->reps)))
                return x;
            break;
        default:
            fprintf(stderr, "kevo verify: unknown option '%s' (see kevo "
                    "verify --help)\n", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "kevo verify: expected one run directory (see kevo "
                "verify --help)\n");
        return EXIT_USAGE;
    }
    v->dir = argv[optind];
    return 0;
}

static int write_result(struct verify *v, cJSON *j)
{
    char path[4096], *text = cJSON_Print(j);
    int rc = text ? rundir_path(path, sizeof path, v->dir, "verify.json")
                  : KEVO_ENOMEM;
    if (!rc)
        rc = fs_write_atomic(path, text, strlen(text));
    if (rc)
        snprintf(v->err, sizeof v->err, "cannot write '%s/verify.json': %s",
                 v->dir, kevo_strerror(rc));
    if (!rc && v->json)
        puts(text);
    free(text);
    return rc;
}

static int run_verify(struct verify *v)
{
    int rc = open_run(v);
    if (rc)
        return rc;
    if (!gpu_driver_present()) {
        snprintf(v->err, sizeof v->err, "no NVIDIA driver (libcuda.so.1 not "
                 "found)");
        return KEVO_ENODEV;
    }
    /* a run in progress would share the GPU and spoil both measurements */
    if ((rc = rundir_lock(v->dir, v->err, sizeof v->err)) ||
        (rc = start_gpu(v)) || (rc = measure(v)) ||
        (v->profile && (rc = profile_all(v))))
        return rc;
    const char *uuid = record_str(record_at(v->fp_now, "gpu", NULL), "uuid");
    v->nvml_end = fingerprint_sample(uuid);
    for (int i = 0; i < v->n; i++)
        judge(v, &v->e[i]);
    struct vdoc *d = doc_of(v);
    cJSON *j = d ? vdoc_json(d) : NULL;
    rc = j ? write_result(v, j) : KEVO_ENOMEM;
    if (!rc && !v->json)
        print_table(v, d);
    for (int i = 0; d && i < d->n_entries; i++)
        if (!rc && !v->json && d->entries[i].diagnosis[0])
            printf("profile of %s: %s\n", d->entries[i].hash,
                   d->entries[i].diagnosis);
    cJSON_Delete(j);
    vdoc_free(d);
    return rc;
}

static void release(struct verify *v)
{
    if (v->have_ev)
        v->ev.ops->destroy(v->ev.self);
    for (int i = 0; i < v->n; i++)
        free(v->e[i].source);
    run_view_release(&v->rv);
    cJSON_Delete(v->fp_now);
    cJSON_Delete(v->fp_run);
    cJSON_Delete(v->env_now);
    cJSON_Delete(v->nvml_end);
}

int cmd_verify_main(int argc, char **argv)
{
    static struct verify v; /* large; one per process */
    memset(&v, 0, sizeof v);
    for (int i = 1; i < argc; i++) /* the sanitizer pass: its own command */
        if (!strcmp(argv[i], "--sanitize"))
            return cmd_sanitize_main(argc, argv);
    int x = parse_args(argc, argv, &v);
    if (x)
        return x < 0 ? EXIT_DONE : x;
    int rc = run_verify(&v);
    if (rc == KEVO_ENODEV)
        fprintf(stderr, "kevo verify needs a GPU: %s\n", v.err);
    else if (rc)
        fprintf(stderr, "kevo verify: %s\n", v.err[0] ? v.err
                                                     : kevo_strerror(rc));
    int within = all_within(&v);
    release(&v);
    if (rc)
        return rc == KEVO_ENODEV ? EXIT_NOGPU : EXIT_ERROR;
    return within ? EXIT_DONE : EXIT_ERROR;
}
