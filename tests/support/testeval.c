/*
 * testeval.c - deterministic evaluator for tests (see testeval.h).
 */
#include "testeval.h"

#include <errno.h>
#include <math.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "fanout.h"
#include "fsutil.h"
#include "hash.h"
#include "prof.h"
#include "seen.h"

struct testeval {
    struct testeval_stats *stats;
    long delay_us;
    double phase_ms[3]; /* compile, check, time phases each result says
                           (KEVO_TEST_PHASE_MS="C,K,T"; default 0) */
    long fail_from;  /* evaluations from this one on fail (0: never) */
    long calls;      /* evaluations attempted */
    int evidence;    /* KEVO_TEST_EVIDENCE: GPU-like evidence JSON */
    double idle_ms;  /* KEVO_TEST_IDLE_MS: the worker idle each result
                        records (evidence phase_ms.worker_idle; 0: none) */
    double compilers; /* KEVO_TEST_COMPILERS=N: each result records N
                         compile processes (evidence "compilers"), and
                         only a source's first result the compile phase
                         (later ones are cache hits, as on a GPU) */
    struct seen sources; /* with compilers: the source hashes compiled */
    double trip_ms[2]; /* KEVO_TEST_TRIP_MS=J,T: the worker's job and its
                          round trip each result records (0: none) */
    long profiles;   /* profiles taken */
    long defer_mod;  /* KEVO_TEST_DEFER=M: about one candidate in M of a
                        batch that may defer (set_defer) is deferred
                        (pick_deferred) */
    int defer_max;   /* from set_defer */
    int drop;        /* from set_drop: optional candidates whose genome
                        hash is odd come back dropped (3) */
    long long deadline_ns; /* from set_deadline (0: none): from then on
                              about half of a batch's candidates come
                              back deferred (2), the rest measured */
    FILE *compiles;  /* KEVO_TEST_COMPILE_LOG: one line per compile event
                        ("prefetch H", "batch H": H the source hash),
                        profile ("profile H") and profile_soon
                        ("profile-soon"), appended; NULL = none */
};

double testeval_fitness(const struct tpl *t, const int64_t *vals,
                        uint64_t genome_hash, enum eval_outcome *outcome)
{
    *outcome = EVAL_OK;
    if (strstr(t->text, "kevo-test: compile_error"))
        *outcome = EVAL_COMPILE_ERROR; /* (an LLM answer to be repaired) */
    else if (genome_hash % 17 == 0)
        *outcome = EVAL_WRONG;
    else if (genome_hash % 23 == 0)
        *outcome = EVAL_COMPILE_ERROR;
    else if (genome_hash % 29 == 0)
        *outcome = EVAL_CRASHED;
    if (*outcome != EVAL_OK)
        return 0;
    double score = 0;
    for (int i = 0; i < t->n_params; i++) {
        const struct tpl_param *p = &t->params[i];
        int at = tpl_value_index(t, i, vals[i]);
        int target = (int)(hash_final(hash_str(HASH_SEED, p->name)) %
                           (uint64_t)p->n_values);
        score -= (double)(at - target) * (at - target);
    }
    /* a template can say how much faster its family is (tests of LLM
     * proposals that must win when they are better) */
    double speedup = 1.0;
    const char *m = strstr(t->text, "kevo-test: speedup ");
    if (m)
        speedup = atof(m + strlen("kevo-test: speedup "));
    if (speedup <= 0)
        speedup = 1.0;
    return 1e12 * speedup * exp(0.15 * score) *
           (1.0 + (double)(t->hash % 7) * 0.05);
}

/* Sleeps the whole time even when a signal interrupts (like a kernel
 * that keeps running while the user presses Ctrl-C). */
static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

/* What the GPU evaluator's evidence holds, made up: a compile log for
 * a compile error; the copy baseline and two launches' resources for an
 * ok one (a 32-thread counter reset, then the main kernel). */
static char *gpu_like_evidence(const struct candidate *c,
                               const struct eval_result *r)
{
    char buf[1024];
    if (r->outcome == EVAL_COMPILE_ERROR)
        snprintf(buf, sizeof buf, "{\"log\":\"%s(41): error: identifier "
                 "\\\"kevo_test_undefined\\\" is undefined\\n1 error "
                 "detected in the compilation of \\\"%s.cu\\\".\"}",
                 c->tpl->name, c->tpl->name);
    else if (r->outcome == EVAL_OK)
        snprintf(buf, sizeof buf, "{\"baseline\":\"copy\",\"baseline_ns\":"
                 "%.0f,\"floor_ns\":1000,\"launch_resources\":["
                 "{\"kernel\":\"reset_counter\",\"regs\":8,"
                 "\"smem_bytes\":0,\"threads\":32,\"blocks_per_sm\":32,"
                 "\"occupancy_limiter\":\"blocks\"},"
                 "{\"kernel\":\"%s\",\"regs\":%d,\"smem_bytes\":49152,"
                 "\"threads\":256,\"blocks_per_sm\":1,"
                 "\"occupancy_limiter\":\"registers\"}]}",
                 r->median_ns / 20, c->tpl->name, r->res.regs);
    else
        snprintf(buf, sizeof buf, "{}");
    return strdup(buf);
}

/* Records idle ms of worker wait in r's evidence, as the GPU evaluator
 * does (phase_ms.worker_idle). */
static void add_idle(struct eval_result *r, double idle_ms,
                     const double *trip, double compilers)
{
    cJSON *e = r->evidence_json ? cJSON_Parse(r->evidence_json)
                                : cJSON_CreateObject();
    cJSON *ph = e ? cJSON_AddObjectToObject(e, "phase_ms") : NULL;
    if (ph && compilers > 0)
        cJSON_AddNumberToObject(e, "compilers", compilers);
    if (ph && trip[0] > 0) { /* the worker's job and its round trip */
        cJSON_AddNumberToObject(ph, "job", trip[0]);
        cJSON_AddNumberToObject(ph, "round_trip", trip[1]);
    }
    char *txt = ph && (idle_ms <= 0 ||
                       cJSON_AddNumberToObject(ph, "worker_idle", idle_ms))
                    ? cJSON_PrintUnformatted(e)
                    : NULL;
    cJSON_Delete(e);
    if (txt) {
        free(r->evidence_json);
        r->evidence_json = txt;
    }
}

static void log_compile(struct testeval *te, const char *what,
                        const struct candidate *c);

/* KEVO_TEST_PROFILE=1: a synthetic profile from the genome hash (two
 * launches); =restricted: counters restricted to admins, as prof.c says
 * it; =noworker: no process for the profiler, as gpueval.c says it (a
 * GPU in exclusive-process mode refuses a second context). */
static int te_profile(void *self, const struct candidate *c,
                      struct kprof *out)
{
    struct testeval *te = self;
    const char *mode = getenv("KEVO_TEST_PROFILE");
    prof_init(out);
    te->profiles++;
    log_compile(te, "profile", c);
    if (mode && !strcmp(mode, "restricted")) {
        char why[PROF_NOTE_MAX - 32];
        prof_error_note(35, "cuptiProfilerGetCounterAvailability", why,
                        sizeof why);
        prof_set_unavailable(out, PROF_NO_COUNTERS ": %s", why);
        return KEVO_OK;
    }
    if (mode && !strcmp(mode, "noworker")) {
        prof_set_unavailable(out, PROF_NO_WORKER ": GPU worker failed to "
                             "start: cannot create a context on device 0: "
                             "CUDA_ERROR_DEVICE_UNAVAILABLE");
        return KEVO_OK;
    }
    uint64_t h = c->genome_hash;
    out->available = 1;
    out->passes = 38;
    out->cost_ms = 0; /* no wall-time budget decisions in tests */
    out->n = 2;
    snprintf(out->note, sizeof out->note, "2 launches, 38 passes each");
    for (int i = 0; i < 2; i++) {
        struct prof_launch *l = &out->l[i];
        snprintf(l->kernel, sizeof l->kernel, "%s", i ? c->tpl->name
                                                      : "reset_counter");
        l->threads = i ? 256 : 32;
        l->regs = i ? 128 : 8;
        l->blocks_per_sm = i ? 1 : 32;
        l->theo_occ_pct = i ? 12.5 : 50;
        snprintf(l->limiter, sizeof l->limiter, "%s",
                 i ? "registers" : "blocks");
        for (int m = 0; m < PM_COUNT; m++)
            l->m[m] = 0;
        l->m[PM_DURATION_NS] = i ? 4e6 + (double)(h % 1000) : 2000;
        l->m[PM_DRAM_READ] = i ? 1.0e8 : 0;
        l->m[PM_DRAM_WRITE] = i ? 6.7e7 : 128;
        l->m[PM_DRAM_PCT] = i ? 91 : 1;
        l->m[PM_SM_PCT] = i ? 35 : 2;
        l->m[PM_OCC_PCT] = i ? 11.8 : 3;
        l->m[PM_L2_HIT_PCT] = 40;
        l->m[PM_STALL_LONG_SB] = i ? 480 : 1;
        l->m[PM_STALL_BARRIER] = i ? 210 : 0;
        l->m[PM_STALL_WAIT] = i ? 310 : 0;
    }
    return KEVO_OK;
}

/* One line "<what> <source hash> <genome hash>" of the compile log. */
static void log_compile(struct testeval *te, const char *what,
                        const struct candidate *c)
{
    if (!te->compiles)
        return;
    char s[17], g[17];
    hash_hex(c->source_hash, s);
    hash_hex(c->genome_hash, g);
    fprintf(te->compiles, "%s %s %s\n", what, s, g);
    fflush(te->compiles);
}

/* profile_soon (eval.h): nothing to start; says when it was asked. */
static void te_profile_soon(void *self)
{
    struct testeval *te = self;
    if (te->compiles) {
        fprintf(te->compiles, "profile-soon\n");
        fflush(te->compiles);
    }
}

/* The pipeline's prefetch (eval.h): compiles nothing (the synthetic
 * landscape needs no binary), but says what it was asked, so that tests
 * see which candidates were handed over ahead and when. */
static void te_prefetch(void *self, const struct candidate *const *c, int n)
{
    struct testeval *te = self;
    for (int i = 0; i < n; i++)
        log_compile(te, "prefetch", c[i]);
}

/* Marks which of c[0..n) this batch defers (defer[i] = 1): those whose
 * source hash, mixed with the batch's last genome hash, is a multiple of
 * defer_mod, up to defer_max, first ones first. The last candidate is the
 * same in a batch a resumed run hands over from inside (its rest, with
 * the allowance less what it deferred before), so the resumed run defers
 * what the interrupted one did; a deferred candidate comes again in
 * another batch (another mix). */
static void pick_deferred(const struct testeval *te,
                          const struct candidate *const *c, int n,
                          char *defer)
{
    uint64_t mix = n > 0 ? c[n - 1]->genome_hash : 0;
    int left = te->defer_max;
    for (int i = 0; i < n; i++) {
        defer[i] = te->defer_mod > 0 && left > 0 &&
                   hash_final(c[i]->source_hash ^ mix) %
                           (uint64_t)te->defer_mod == 0;
        left -= defer[i];
    }
}

static void te_set_defer(void *self, int max_n)
{
    ((struct testeval *)self)->defer_max = max_n;
}

static void te_set_deadline(void *self, long long at_ns)
{
    ((struct testeval *)self)->deadline_ns = at_ns;
}

static void te_set_drop(void *self, int on)
{
    ((struct testeval *)self)->drop = on;
}

static int te_batch(void *self, const struct candidate *const *c, int n,
                    eval_cb cb, void *ud)
{
    struct testeval *te = self;
    for (int i = 0; i < n; i++)
        log_compile(te, "batch", c[i]);
    char *defer = calloc((size_t)n + 1, 1);
    if (!defer)
        return KEVO_ENOMEM;
    pick_deferred(te, c, n, defer);
    for (int i = 0; i < n; i++) {
        if (te->fail_from && ++te->calls >= te->fail_from) {
            free(defer);
            return KEVO_ECUDA; /* a GPU that died (KEVO_TEST_GPU_FAIL) */
        }
        struct eval_result r;
        eval_result_init(&r);
        /* past the deadline: about half are "still compiling" and come
         * back deferred (2); the others count as measured before it
         * (the GPU measures ready candidates out of order), no delay */
        int late = te->deadline_ns > 0 && fs_now_ns() >= te->deadline_ns;
        if (late && !defer[i] && c[i]->genome_hash % 2)
            defer[i] = 2;
        if (te->drop && c[i]->optional)
            defer[i] = defer[i] || c[i]->genome_hash % 2 ? 3 : 0;
        if (defer[i]) {
            r.deferred = defer[i];
            if (te->stats)
                te->stats->deferred++;
            if (cb(ud, i, &r)) {
                free(defer);
                return KEVO_ESTOPPED;
            }
            continue;
        }
        r.fitness = testeval_fitness(c[i]->tpl, c[i]->vals, c[i]->genome_hash,
                                     &r.outcome);
        if (r.outcome == EVAL_OK) {
            r.median_ns = 1e12 / r.fitness * 1e3;
            r.min_ns = r.median_ns * 0.99;
            r.reps = 10;
            r.ratio = r.fitness / 1e12;
            r.res.regs = 32 + (int)(c[i]->genome_hash % 4) * 32;
        } else {
            snprintf(r.detail, sizeof r.detail, "synthetic %s",
                     eval_outcome_name(r.outcome));
        }
        r.compile_ms = te->phase_ms[0];
        if (te->compilers > 0) { /* a source's later results: cache hits */
            if (seen_has(&te->sources, c[i]->source_hash))
                r.compile_ms = 0;
            else if (seen_add(&te->sources, c[i]->source_hash))
                return KEVO_ENOMEM;
        }
        r.check_ms = te->phase_ms[1];
        r.time_ms = te->phase_ms[2];
        if (te->evidence)
            r.evidence_json = gpu_like_evidence(c[i], &r);
        if (te->idle_ms > 0 || te->trip_ms[0] > 0 || te->compilers > 0)
            add_idle(&r, te->idle_ms, te->trip_ms, te->compilers);
        if (te->delay_us && !late)
            sleep_us(te->delay_us);
        if (te->stats)
            te->stats->evaluated++;
        int stop = cb(ud, i, &r);
        eval_result_release(&r); /* (the evidence is ours) */
        if (stop) {
            free(defer);
            return KEVO_ESTOPPED;
        }
    }
    free(defer);
    return KEVO_OK;
}

static int te_confirm(void *self, const struct candidate *ch,
                      const struct candidate *in, int *accept, double *ratio,
                      double *noise)
{
    struct testeval *te = self;
    enum eval_outcome o;
    double a = testeval_fitness(ch->tpl, ch->vals, ch->genome_hash, &o);
    double b = testeval_fitness(in->tpl, in->vals, in->genome_hash, &o);
    *ratio = b > 0 ? a / b : 0;
    *noise = 0.01;
    *accept = *ratio > 1.0 + *noise;
    if (te->stats)
        te->stats->confirms++;
    return KEVO_OK;
}

static char *te_environment(void *self)
{
    return strdup("{\"evaluator\":\"test\"}");
}

static void te_destroy(void *self)
{
    struct testeval *te = self;
    if (te->compiles)
        fclose(te->compiles);
    if (te->compilers > 0)
        seen_release(&te->sources);
    free(self);
}

static const struct evaluator_ops te_ops = {
    .name = "test",
    .eval_batch = te_batch,
    .confirm = te_confirm,
    .set_defer = te_set_defer,
    .set_deadline = te_set_deadline,
    .prefetch = te_prefetch,
    .environment = te_environment,
    .destroy = te_destroy,
};

/* KEVO_TEST_DROP: one that drops optional candidates (generation 0's
 * fill, spec fill0; without it a run records fill0 0) */
static const struct evaluator_ops te_ops_drop = {
    .name = "test",
    .eval_batch = te_batch,
    .confirm = te_confirm,
    .set_defer = te_set_defer,
    .set_deadline = te_set_deadline,
    .set_drop = te_set_drop,
    .prefetch = te_prefetch,
    .environment = te_environment,
    .destroy = te_destroy,
};

static const struct evaluator_ops te_ops_prof = {
    .name = "test",
    .eval_batch = te_batch,
    .confirm = te_confirm,
    .profile = te_profile,
    .profile_soon = te_profile_soon,
    .set_defer = te_set_defer,
    .set_deadline = te_set_deadline,
    .prefetch = te_prefetch,
    .environment = te_environment,
    .destroy = te_destroy,
};

int testeval_new(struct evaluator *out, struct testeval_stats *stats)
{
    struct testeval *te = calloc(1, sizeof *te);
    if (!te)
        return KEVO_ENOMEM;
    te->stats = stats;
    const char *d = getenv("KEVO_TEST_EVAL_US");
    te->delay_us = d ? atol(d) : 0;
    te->evidence = getenv("KEVO_TEST_EVIDENCE") != NULL;
    const char *idle = getenv("KEVO_TEST_IDLE_MS");
    te->idle_ms = idle ? atof(idle) : 0;
    const char *nc = getenv("KEVO_TEST_COMPILERS");
    te->compilers = nc ? atof(nc) : 0;
    if (te->compilers > 0 && seen_init(&te->sources)) {
        free(te);
        return KEVO_ENOMEM;
    }
    const char *trip = getenv("KEVO_TEST_TRIP_MS");
    if (trip && sscanf(trip, "%lf,%lf", &te->trip_ms[0], &te->trip_ms[1]) != 2)
        te->trip_ms[0] = te->trip_ms[1] = 0;
    const char *ph = getenv("KEVO_TEST_PHASE_MS");
    if (ph && sscanf(ph, "%lf,%lf,%lf", &te->phase_ms[0], &te->phase_ms[1],
                     &te->phase_ms[2]) != 3)
        memset(te->phase_ms, 0, sizeof te->phase_ms);
    const char *df = getenv("KEVO_TEST_DEFER");
    te->defer_mod = df ? atol(df) : 0;
    const char *cl = getenv("KEVO_TEST_COMPILE_LOG");
    if (cl && !(te->compiles = fopen(cl, "a"))) {
        if (te->compilers > 0)
            seen_release(&te->sources);
        free(te);
        return KEVO_EIO;
    }
    out->ops = getenv("KEVO_TEST_PROFILE") ? &te_ops_prof
               : getenv("KEVO_TEST_DROP") ? &te_ops_drop : &te_ops;
    out->self = te;
    return KEVO_OK;
}

/* KEVO_TEST_GPU_FAIL="G:N": the instance for GPU G fails every
 * evaluation from its N-th on, as a GPU that falls off the bus would. */
static long fail_from(int gpu)
{
    const char *e = getenv("KEVO_TEST_GPU_FAIL");
    int g;
    long n;
    if (!e || sscanf(e, "%d:%ld", &g, &n) != 2 || g != gpu || n < 1)
        return 0;
    return n;
}

int testeval_new_gpus(const char *gpus, struct evaluator *out, char *err,
                      size_t errcap)
{
    struct fanout_sub subs[SPEC_MAX_GPUS];
    int ids[SPEC_MAX_GPUS];
    const char *na = getenv("KEVO_TEST_GPUS");
    int n_avail = na && atoi(na) > 0 ? atoi(na) : 4;
    int n = spec_gpu_list(gpus, n_avail, ids, SPEC_MAX_GPUS, err, errcap);
    if (n < 0)
        return KEVO_EINVAL;
    for (int k = 0; k < n; k++) {
        int rc = testeval_new(&subs[k].ev, NULL);
        if (rc) {
            while (k-- > 0)
                subs[k].ev.ops->destroy(subs[k].ev.self);
            return rc;
        }
        ((struct testeval *)subs[k].ev.self)->fail_from = fail_from(ids[k]);
        subs[k].gpu = ids[k];
        snprintf(subs[k].label, sizeof subs[k].label, "gpu %d", ids[k]);
    }
    return fanout_new(NULL, subs, n, out, err, errcap);
}

static int te_create(const struct spec *s, const struct problem *p,
                     struct evaluator *out, struct tpl_device *dev, char *err,
                     size_t errcap)
{
    if (s->gpus[0])
        return testeval_new_gpus(s->gpus, out, err, errcap);
    return testeval_new(out, NULL);
}

const struct evaluator_factory testeval_factory = {"test", te_create};
