/*
 * gpuset.c - several GPUs of one host as one evaluator (see gpuset.h).
 *
 * The first GPU's evaluator is made first: it reads the arch and starts
 * the compile pool, and its worker says how many devices there are; the
 * others borrow that pool. The fan-out destroys its subs last to first, so
 * the pool's owner goes last. The listed GPUs' workers start at once
 * (gpueval_start; each measures its baselines on its own GPU, 1-2 s), and
 * the first one's answer decides whether the list is valid (a worker
 * started for a GPU the driver does not show is killed, and the error
 * names the list); with --gpus all the others start once the first says
 * how many there are. More workers on one GPU (KEVO_WORKERS_PER_GPU)
 * start one after the other: their baselines would share it.
 */
#include "gpuset.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "fanout.h"
#include "record.h"

/* A member's number, -1 when absent (record_num). */
static double num_of(const cJSON *o, const char *k)
{
    return record_num(o, k, -1);
}

/* 1 if a and b (both known, > 0) differ by more than tol of a. */
static int off(double a, double b, double tol)
{
    return a > 0 && b > 0 && fabs(a - b) > tol * a;
}

int gpuset_match(const char *env_a, int ga, const char *env_b, int gb,
                 char *why, size_t cap)
{
    cJSON *a = cJSON_Parse(env_a ? env_a : ""),
          *b = cJSON_Parse(env_b ? env_b : "");
    const cJSON *da = cJSON_GetObjectItem(a, "device"),
                *db = cJSON_GetObjectItem(b, "device"),
                *na = cJSON_GetObjectItem(a, "nvml"),
                *nb = cJSON_GetObjectItem(b, "nvml"),
                *ma = cJSON_GetObjectItem(da, "name"),
                *mb = cJSON_GetObjectItem(db, "name");
    int bad = 1;
    if (!cJSON_IsString(ma) || !cJSON_IsString(mb))
        snprintf(why, cap, "GPU %d or GPU %d did not say what it is", ga, gb);
    else if (strcmp(ma->valuestring, mb->valuestring))
        snprintf(why, cap, "GPU %d is '%s' and GPU %d is '%s': fitness is "
                 "only comparable on one GPU model; list GPUs of one model "
                 "with --gpus", ga, ma->valuestring, gb, mb->valuestring);
    else if (num_of(da, "sms") != num_of(db, "sms"))
        snprintf(why, cap, "GPU %d has %.0f multiprocessors and GPU %d has "
                 "%.0f (a MIG slice?): fitness is not comparable", ga,
                 num_of(da, "sms"), gb, num_of(db, "sms"));
    else if (off(num_of(da, "clock_khz"), num_of(db, "clock_khz"),
                 GPUSET_CLOCK_TOL) ||
             off(num_of(da, "mem_clock_khz"), num_of(db, "mem_clock_khz"),
                 GPUSET_CLOCK_TOL))
        snprintf(why, cap, "GPU %d and GPU %d differ in max clocks: SM %.0f "
                 "vs %.0f MHz, memory %.0f vs %.0f MHz (tolerance %.0f %%)",
                 ga, gb, num_of(da, "clock_khz") / 1e3,
                 num_of(db, "clock_khz") / 1e3,
                 num_of(da, "mem_clock_khz") / 1e3,
                 num_of(db, "mem_clock_khz") / 1e3, GPUSET_CLOCK_TOL * 100);
    else if (off(num_of(na, "power_limit_mw"), num_of(nb, "power_limit_mw"),
                 GPUSET_POWER_TOL))
        snprintf(why, cap, "GPU %d and GPU %d have different power limits: "
                 "%.0f vs %.0f W (tolerance %.0f %%; nvidia-smi -pl)", ga, gb,
                 num_of(na, "power_limit_mw") / 1e3,
                 num_of(nb, "power_limit_mw") / 1e3, GPUSET_POWER_TOL * 100);
    else if (off(num_of(na, "app_sm_clock_mhz"),
                 num_of(nb, "app_sm_clock_mhz"), GPUSET_POWER_TOL))
        snprintf(why, cap, "GPU %d and GPU %d have different application "
                 "clocks: %.0f vs %.0f MHz (tolerance %.0f %%; nvidia-smi "
                 "-ac)", ga, gb, num_of(na, "app_sm_clock_mhz"),
                 num_of(nb, "app_sm_clock_mhz"), GPUSET_POWER_TOL * 100);
    else
        bad = 0;
    cJSON_Delete(a);
    cJSON_Delete(b);
    return bad;
}

/* KEVO_WORKERS_PER_GPU (test aid, gpuset.h): 1 to 8, default 1. */
static int workers_per_gpu(void)
{
    const char *e = getenv("KEVO_WORKERS_PER_GPU");
    int n = e ? atoi(e) : 1;
    return n < 1 ? 1 : n > 8 ? 8 : n;
}

int gpuset_take_env(int *take, char *err, size_t errcap)
{
    const char *v = getenv("KEVO_FANOUT_TAKE");
    *take = 0;
    if (!v || !*v)
        return KEVO_OK;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end || end == v || n < 1 || n > FANOUT_TAKE_MAX) {
        snprintf(err, errcap, "KEVO_FANOUT_TAKE='%.32s': want a whole "
                 "number from 1 to %d (candidates a GPU's evaluator takes "
                 "in one call; unset: %d)", v, FANOUT_TAKE_MAX, FANOUT_TAKE);
        return KEVO_EINVAL;
    }
    *take = (int)n;
    return KEVO_OK;
}

static void destroy_subs(struct fanout_sub *subs, int n)
{
    while (n-- > 0)
        subs[n].ev.ops->destroy(subs[n].ev.self);
}

/* Starts the worker of GPU gpu (gpueval_start) into *pend. */
static int start_gpu(struct gpueval_opts *go, int gpu, struct gpueval **pend,
                     char *err, size_t errcap)
{
    char why[512];
    go->device = gpu;
    int rc = gpueval_start(go, pend, why, sizeof why);
    if (rc) {
        *pend = NULL;
        snprintf(err, errcap, "GPU %d: %s", gpu, why);
    }
    return rc;
}

/* Makes the evaluator of GPU gpu into subs[k] from its started worker
 * pend (NULL: starts it now), with sub 0's pool (none for sub 0: its
 * own); checks it against sub 0. */
static int add_gpu(struct gpueval_opts *go, int gpu, int copy,
                   struct gpueval *pend, struct fanout_sub *subs, int k,
                   struct tpl_device *dev, char *err, size_t errcap)
{
    char why[512];
    int rc = pend ? KEVO_OK : start_gpu(go, gpu, &pend, err, errcap);
    if (rc)
        return rc;
    rc = gpueval_finish(pend, go->pool, go->ccost, &subs[k].ev, dev, why,
                        sizeof why);
    if (rc) {
        snprintf(err, errcap, "GPU %d: %s", gpu, why);
        return rc;
    }
    subs[k].gpu = gpu;
    if (copy)
        snprintf(subs[k].label, sizeof subs[k].label, "gpu %d/%d", gpu,
                 copy);
    else
        snprintf(subs[k].label, sizeof subs[k].label, "gpu %d", gpu);
    if (k == 0)
        return KEVO_OK;
    char *a = subs[0].ev.ops->environment(subs[0].ev.self),
         *b = subs[k].ev.ops->environment(subs[k].ev.self);
    int bad = gpuset_match(a, subs[0].gpu, b, gpu, why, sizeof why);
    free(a);
    free(b);
    if (bad) {
        subs[k].ev.ops->destroy(subs[k].ev.self);
        snprintf(err, errcap, "%s", why);
        return KEVO_EINVAL;
    }
    return KEVO_OK;
}

/* Kills the workers started and not made into evaluators. */
static void abandon(struct gpueval **pend)
{
    for (int i = 0; i < FANOUT_MAX_SUBS; i++)
        if (pend[i])
            gpueval_abandon(pend[i]);
}

/* 1 if GPU list[i] is listed before i. */
static int listed_before(const int *list, int i)
{
    for (int j = 0; j < i; j++)
        if (list[j] == list[i])
            return 1;
    return 0;
}

int gpuset_new(const struct gpueval_opts *o, int all, const int *ids, int n,
               struct evaluator *out, struct tpl_device *dev, char *err,
               size_t errcap)
{
    struct fanout_sub subs[FANOUT_MAX_SUBS];
    struct gpueval *pend[FANOUT_MAX_SUBS] = {0}; /* started, by list index */
    int list[FANOUT_MAX_SUBS], per = workers_per_gpu(), k = 0;
    struct gpueval_opts go = *o;
    go.pool = NULL;
    go.ccost = NULL;
    if (!all && (n < 1 || n > FANOUT_MAX_SUBS)) {
        snprintf(err, errcap, "--gpus: 1 to %d GPUs, not %d",
                 FANOUT_MAX_SUBS, n);
        return KEVO_EINVAL;
    }
    int take; /* (before any worker starts) */
    if (gpuset_take_env(&take, err, errcap))
        return KEVO_EINVAL;
    /* the listed GPUs' first workers start at once (each measures its
     * baselines on its own GPU); more workers on one GPU start one after
     * the other, as their baselines would share it */
    int rc = start_gpu(&go, all ? 0 : ids[0], &pend[0], err, errcap);
    for (int i = 1; !all && n * per <= FANOUT_MAX_SUBS && i < n && !rc;
         i++)
        if (!listed_before(ids, i))
            rc = start_gpu(&go, ids[i], &pend[i], err, errcap);
    if (!rc) {
        struct gpueval *first = pend[0];
        pend[0] = NULL; /* (add_gpu takes it) */
        rc = add_gpu(&go, all ? 0 : ids[0], 0, first, subs, k, dev, err,
                     errcap);
    }
    if (rc) {
        abandon(pend);
        return rc;
    }
    k++;
    int count = gpueval_device_count(&subs[0].ev);
    if (all)
        n = count > 0 ? count : 1;
    for (int i = 0; i < n && i < FANOUT_MAX_SUBS; i++) {
        list[i] = all ? i : ids[i];
        if (count > 0 && list[i] >= count) {
            snprintf(err, errcap, "--gpus: there is no GPU %d (the driver "
                     "shows %d: 0 to %d)", list[i], count, count - 1);
            abandon(pend);
            destroy_subs(subs, k);
            return KEVO_EINVAL;
        }
    }
    if (n * per > FANOUT_MAX_SUBS) {
        snprintf(err, errcap, "--gpus: %d workers, at most %d", n * per,
                 FANOUT_MAX_SUBS);
        abandon(pend);
        destroy_subs(subs, k);
        return KEVO_EINVAL;
    }
    go.pool = gpueval_pool(&subs[0].ev);
    go.ccost = gpueval_ccost(&subs[0].ev);
    for (int i = all ? 1 : 0; all && i < n && !rc; i++)
        rc = start_gpu(&go, list[i], &pend[i], err, errcap);
    for (int i = 0; i < n && !rc; i++)
        for (int c = i == 0 ? 1 : 0; c < per && !rc; c++) {
            struct gpueval *p = c == 0 ? pend[i] : NULL;
            pend[i] = c == 0 ? NULL : pend[i];
            if (!(rc = add_gpu(&go, list[i], c, p, subs, k, NULL, err,
                               errcap)))
                k++;
        }
    if (rc) {
        abandon(pend);
        destroy_subs(subs, k);
        return rc;
    }
    struct fanout_opts fo = {
        .prefetch = gpueval_prefetch,
        .ready = gpueval_ready,
        .wait_ready = gpueval_wait_ready,
        .order = gpueval_order,
        .prefetch_ud = subs[0].ev.self,
        .take = take,
    };
    return fanout_new(&fo, subs, k, out, err, errcap);
}
