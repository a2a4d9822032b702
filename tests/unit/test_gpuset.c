/*
 * test_gpuset.c - gpuset_new's order of worker starts, its errors and the
 * ownership of started workers, without a GPU: this file defines the
 * gpueval_* functions gpuset.c calls (so gpueval.o is not linked) as a
 * fake that logs each start ("s2"), finish ("F0" with its own pool, "f1"
 * with sub 0's), abandon ("a7") and destroy ("d1"), and counts a handle
 * finished or abandoned twice, or never.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fanout.h"
#include "gpueval.h"
#include "gpuset.h"

enum { STARTED, FINISHED, ABANDONED, DESTROYED };

struct gpueval {
    int gpu, state;
};

#define MAX_HANDLES 2048
static struct gpueval handles[MAX_HANDLES];
static int n_handles, driver_gpus, fail_start = -1, fail_finish = -1,
                                   misuse;
static char events[8192];

static void note(const char *what, int gpu)
{
    size_t n = strlen(events);
    snprintf(events + n, sizeof events - n, "%s%s%d", n ? " " : "", what,
             gpu);
}

int gpueval_start(const struct gpueval_opts *o, struct gpueval **g, char *err,
                  size_t errcap)
{
    if (o->device == fail_start || n_handles == MAX_HANDLES) {
        snprintf(err, errcap, "cannot start");
        return KEVO_EIO;
    }
    handles[n_handles] = (struct gpueval){o->device, STARTED};
    *g = &handles[n_handles++];
    note("s", o->device);
    return KEVO_OK;
}

void gpueval_abandon(struct gpueval *g)
{
    misuse += g->state != STARTED;
    g->state = ABANDONED;
    note("a", g->gpu);
}

static void fake_destroy(void *self)
{
    struct gpueval *g = self;
    misuse += g->state != FINISHED;
    g->state = DESTROYED;
    note("d", g->gpu);
}

static char *fake_environment(void *self)
{
    (void)self;
    return strdup("{\"device\":{\"name\":\"NVIDIA H200\",\"sms\":132}}");
}

static int fake_batch(void *self, const struct candidate *const *c, int n,
                      eval_cb cb, void *ud)
{
    (void)self, (void)c, (void)n, (void)cb, (void)ud;
    return KEVO_OK;
}

static const struct evaluator_ops fake_ops = {
    .name = "fake",
    .eval_batch = fake_batch,
    .environment = fake_environment,
    .destroy = fake_destroy,
};

int gpueval_finish(struct gpueval *g, struct jit_pool *pool,
                   struct ccost *cost, struct evaluator *out,
                   struct tpl_device *dev, char *err, size_t errcap)
{
    (void)cost, (void)dev;
    misuse += g->state != STARTED;
    note(pool ? "f" : "F", g->gpu);
    if (g->gpu == fail_finish) { /* (consumed on a failure too) */
        g->state = ABANDONED;
        snprintf(err, errcap, "did not start");
        return KEVO_ECUDA;
    }
    g->state = FINISHED;
    out->ops = &fake_ops;
    out->self = g;
    return KEVO_OK;
}

struct jit_pool *gpueval_pool(const struct evaluator *e)
{
    (void)e;
    return (struct jit_pool *)&handles[0]; /* (never used: a token) */
}

struct ccost *gpueval_ccost(const struct evaluator *e)
{
    (void)e;
    return NULL;
}

int gpueval_device_count(const struct evaluator *e)
{
    (void)e;
    return driver_gpus;
}

void gpueval_prefetch(void *self, const struct candidate *const *c, int n)
{
    (void)self, (void)c, (void)n;
}

int gpueval_ready(void *self, const struct candidate *c)
{
    (void)self, (void)c;
    return 1;
}

int gpueval_wait_ready(void *self, int max_ms)
{
    (void)self, (void)max_ms;
    return 0;
}

int gpueval_order(void *self, const struct candidate *const *c, int n,
                  int *order)
{
    (void)self, (void)c;
    for (int i = 0; i < n; i++)
        order[i] = i;
    return 0;
}

/* gpuset_new over ids (all: --gpus all) with the driver showing gpus
 * GPUs; destroys what it made; returns its code, err filled. */
static int make(int all, const int *ids, int n, int gpus, char *err,
                size_t cap)
{
    struct gpueval_opts o = {0};
    struct evaluator ev = {0};
    n_handles = 0;
    misuse = 0;
    events[0] = '\0';
    driver_gpus = gpus;
    err[0] = '\0';
    int rc = gpuset_new(&o, all, ids, n, &ev, NULL, err, cap);
    if (!rc)
        ev.ops->destroy(ev.self);
    for (int i = 0; i < n_handles; i++)
        misuse += handles[i].state == STARTED ||
                  handles[i].state == FINISHED; /* leaked */
    return rc;
}

static void listed_gpus_start_at_once(void)
{
    int ids[] = {2, 0, 1};
    char err[256];
    CHECK(make(0, ids, 3, 4, err, sizeof err) == KEVO_OK);
    /* all three started before the first is waited for; sub 0 (GPU 2)
     * owns the pool; the others borrow it, in the list's order */
    CHECK_MSG(!strncmp(events, "s2 s0 s1 F2 f0 f1", 17), "events '%s'",
              events);
    CHECK_MSG(misuse == 0, "%d misused handles: '%s'", misuse, events);
}

static void a_gpu_the_driver_does_not_show_is_refused_as_before(void)
{
    int ids[] = {0, 7};
    char err[256];
    CHECK(make(0, ids, 2, 2, err, sizeof err) == KEVO_EINVAL);
    CHECK_MSG(!strcmp(err, "--gpus: there is no GPU 7 (the driver shows 2: "
                           "0 to 1)"), "err '%s'", err);
    /* GPU 7's worker was started with GPU 0's and is killed unfinished */
    CHECK_MSG(!strcmp(events, "s0 s7 F0 a7 d0"), "events '%s'", events);
    CHECK(misuse == 0);
}

static void copies_on_one_gpu_start_one_after_the_other(void)
{
    int ids[] = {0, 1};
    char err[256];
    setenv("KEVO_WORKERS_PER_GPU", "2", 1);
    CHECK(make(0, ids, 2, 2, err, sizeof err) == KEVO_OK);
    unsetenv("KEVO_WORKERS_PER_GPU");
    /* GPU 0's copy starts after GPU 0's first worker is ready; GPU 1's
     * first started with GPU 0's; sub order: 0, 0/1, 1, 1/1 */
    CHECK_MSG(!strncmp(events, "s0 s1 F0 s0 f0 f1 s1 f1", 23),
              "events '%s'", events);
    CHECK(misuse == 0);
}

static void all_starts_the_rest_once_the_first_counts_them(void)
{
    char err[256];
    CHECK(make(1, NULL, 0, 3, err, sizeof err) == KEVO_OK);
    CHECK_MSG(!strncmp(events, "s0 F0 s1 s2 f1 f2", 17), "events '%s'",
              events);
    CHECK(misuse == 0);
}

static void failures_leave_no_worker_behind(void)
{
    int ids[] = {0, 1, 2};
    char err[256];
    fail_start = 2;
    CHECK(make(0, ids, 3, 4, err, sizeof err) == KEVO_EIO);
    CHECK_MSG(!strcmp(err, "GPU 2: cannot start"), "err '%s'", err);
    CHECK_MSG(misuse == 0, "start fails: '%s'", events);
    CHECK(make(1, NULL, 0, 4, err, sizeof err) == KEVO_EIO);
    CHECK_MSG(misuse == 0, "start fails under all: '%s'", events);
    fail_start = -1;
    fail_finish = 1;
    CHECK(make(0, ids, 3, 4, err, sizeof err) == KEVO_ECUDA);
    CHECK_MSG(!strcmp(err, "GPU 1: did not start"), "err '%s'", err);
    CHECK_MSG(misuse == 0, "finish fails: '%s'", events);
    fail_finish = 0;
    CHECK(make(0, ids, 3, 4, err, sizeof err) == KEVO_ECUDA);
    CHECK_MSG(!strcmp(events, "s0 s1 s2 F0 a1 a2"), "events '%s'", events);
    CHECK(misuse == 0);
    fail_finish = -1;
}

static void too_many_workers_start_only_the_first(void)
{
    int ids[64];
    char err[256], want[128];
    for (int i = 0; i < 64; i++)
        ids[i] = i;
    setenv("KEVO_WORKERS_PER_GPU", "8", 1);
    CHECK(make(0, ids, 64, 64, err, sizeof err) == KEVO_EINVAL);
    unsetenv("KEVO_WORKERS_PER_GPU");
    snprintf(want, sizeof want, "--gpus: 512 workers, at most %d",
             FANOUT_MAX_SUBS);
    CHECK_MSG(!strcmp(err, want), "err '%s'", err);
    CHECK_MSG(!strcmp(events, "s0 F0 d0"), "events '%s'", events);
    /* a driver showing more GPUs than a fan-out holds */
    CHECK(make(1, NULL, 0, FANOUT_MAX_SUBS + 44, err, sizeof err) ==
          KEVO_EINVAL);
    snprintf(want, sizeof want, "--gpus: %d workers, at most %d",
             FANOUT_MAX_SUBS + 44, FANOUT_MAX_SUBS);
    CHECK_MSG(!strcmp(err, want), "err '%s'", err);
    CHECK(misuse == 0);
}

/* KEVO_FANOUT_TAKE gives the fan-out's take, and anything but 1 to
 * FANOUT_TAKE_MAX there is refused, naming it. */
static void fanout_take_from_the_environment(void)
{
    char err[256];
    int take = -5;
    unsetenv("KEVO_FANOUT_TAKE");
    CHECK(gpuset_take_env(&take, err, sizeof err) == KEVO_OK && take == 0);
    setenv("KEVO_FANOUT_TAKE", "32", 1);
    CHECK(gpuset_take_env(&take, err, sizeof err) == KEVO_OK && take == 32);
    const char *bad[] = {"0", "65", "x", "16x", "-3", " "};
    for (int i = 0; i < 6; i++) {
        setenv("KEVO_FANOUT_TAKE", bad[i], 1);
        err[0] = 0;
        CHECK_MSG(gpuset_take_env(&take, err, sizeof err) == KEVO_EINVAL &&
                  strstr(err, "KEVO_FANOUT_TAKE") && take == 0,
                  "'%s': %s", bad[i], err);
    }
    unsetenv("KEVO_FANOUT_TAKE");
}

int main(void)
{
    RUN(listed_gpus_start_at_once,
        "--gpus 2,0,1: the three workers start at once, GPU 2's is sub 0 "
        "and owns the pool, the others follow in the list's order");
    RUN(a_gpu_the_driver_does_not_show_is_refused_as_before,
        "--gpus 0,7 on two GPUs: the same error, GPU 7's worker killed");
    RUN(copies_on_one_gpu_start_one_after_the_other,
        "two workers a GPU: a GPU's copy starts after its first is ready");
    RUN(all_starts_the_rest_once_the_first_counts_them,
        "--gpus all: the others start together once GPU 0 counts them");
    RUN(failures_leave_no_worker_behind,
        "a start or a wait that fails names the GPU; every other worker "
        "is killed or destroyed, none twice");
    RUN(too_many_workers_start_only_the_first,
        "more workers than a fan-out holds: refused after one start, also "
        "when the driver shows more GPUs than that");
    RUN(fanout_take_from_the_environment,
        "KEVO_FANOUT_TAKE gives the fan-out's take, a bad value refused "
        "naming it");
    TEST_DONE();
}
