/*
 * test_fanout.c - the fan-out evaluator over fake sub-evaluators and over
 * test evaluators: callbacks in index order with every sub busy at once,
 * a sub failing mid-batch (its candidate moves, it is dropped), none
 * left, a callback that stops, confirm on sub 0, set_best forwarded,
 * and the environment's list of GPUs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "check.h"
#include "fanout.h"
#include "fsutil.h"
#include "gpu.h"
#include "gpuset.h"
#include "testeval.h"

#define N_CANDS 40

/* ---- fake sub-evaluators */

struct shared {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n_subs;        /* subs that must have started before any goes on */
    int started;       /* subs that have started their first candidate */
    int released;      /* 1: held subs may go on */
};

struct fake {
    int id;
    int fail_from;     /* calls from this one on fail (0: never) */
    int calls;         /* eval_batch calls */
    int evaluated;     /* candidates evaluated */
    int confirms;
    double best;       /* last set_best value */
    int fails;         /* failed calls */
    int in_batch;      /* 1 while inside eval_batch (two at once: a bug) */
    int overlap;       /* 1: was called while already inside */
    struct shared *sh; /* NULL: none of the waits below */
    int hold;          /* 1: the first call waits until sh->released */
    int release_at;    /* sets sh->released at this many failures */
    int fail_once_at;  /* the call that reaches this many evaluations
                          fails there, once (0: never) */
    int *log;          /* (optional) candidate indices in the order
                          evaluated, under log_mu */
    int *n_log;
    long tid;          /* kernel thread id of its first call (not
                          pthread_t: glibc reuses those of ended threads) */
    int moved;         /* 1: a later call came from another thread */
    int most;          /* most candidates in one call */
    int destroyed;     /* destroy calls */
    int most_opt;      /* most optional ones in one call */
    int mixed;         /* calls with an optional one and another */
    int delay_us;      /* each candidate takes this long (0: none) */
    int opt_delay_us;  /* an optional one instead (0: delay_us) */
    int late;          /* candidates started past late_after_ns */
    long long deadline;/* set_deadline's, with fake_ops_end */
    int drop;          /* set_drop's, with fake_ops_end */
    int stuck_from;    /* candidates from this index on "compile" until
                          given back or stuck_until_ns (0: none;
                          fake_ops_back) */
    int back;          /* give_back calls (atomic) */
    int back_now;      /* 1: the batch in flight was given back (atomic) */
};

/* The deadline cases: a candidate started after this (fs_now_ns) is
 * late (0: no check). */
static long long late_after_ns;

/* When the stuck candidates of every fake end at once if not given back
 * (fs_now_ns): the subs finish together, whatever the load. */
static long long stuck_until_ns;

/* (optional) Says whether a candidate may be evaluated now; each fake
 * counts the ones it evaluated when it said no. */
static int (*must_be_ready)(const struct candidate *c);
static int unready_taken;

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

/* The first call of each fake waits (up to 5 s) until every sub has
 * started one (proves they run at the same time, without timing), and a
 * held one until it is released. */
static void first_call(struct fake *f)
{
    struct shared *sh = f->sh;
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 5;
    pthread_mutex_lock(&sh->mu);
    sh->started++;
    pthread_cond_broadcast(&sh->cv);
    while ((sh->started < sh->n_subs || (f->hold && !sh->released)) &&
           !pthread_cond_timedwait(&sh->cv, &sh->mu, &dl))
        ;
    pthread_mutex_unlock(&sh->mu);
}

static void failed_once(struct fake *f)
{
    f->fails++;
    if (f->sh && f->fails == f->release_at) {
        pthread_mutex_lock(&f->sh->mu);
        f->sh->released = 1;
        pthread_cond_broadcast(&f->sh->cv);
        pthread_mutex_unlock(&f->sh->mu);
    }
}

static int fake_batch(void *self, const struct candidate *const *c, int n,
                      eval_cb cb, void *ud)
{
    struct fake *f = self;
    if (f->in_batch)
        f->overlap = 1;
    f->in_batch = 1;
    f->calls++;
    if (f->calls == 1)
        f->tid = syscall(SYS_gettid);
    else if (f->tid != syscall(SYS_gettid))
        f->moved = 1;
    if (f->sh && f->calls == 1)
        first_call(f);
    if (n > f->most)
        f->most = n;
    int n_opt = 0;
    for (int i = 0; i < n; i++)
        n_opt += c[i]->optional != 0;
    if (n_opt > f->most_opt)
        f->most_opt = n_opt;
    f->mixed += n_opt > 0 && n > 1;
    for (int i = 0; i < n && must_be_ready; i++)
        if (!must_be_ready(c[i])) {
            pthread_mutex_lock(&log_mu);
            unready_taken++;
            pthread_mutex_unlock(&log_mu);
        }
    int rc = KEVO_OK;
    for (int i = 0; i < n && !rc; i++) {
        if (f->fail_from && f->calls >= f->fail_from) {
            failed_once(f);
            rc = KEVO_ECUDA;
            break;
        }
        if (f->fail_once_at && f->evaluated == f->fail_once_at) {
            f->fail_once_at = 0;
            rc = KEVO_ECUDA;
            break;
        }
        if (f->log) {
            pthread_mutex_lock(&log_mu);
            f->log[(*f->n_log)++] = (int)((c[i]->genome_hash - 1000) / 7);
            pthread_mutex_unlock(&log_mu);
        }
        if (late_after_ns && fs_now_ns() > late_after_ns)
            f->late++;
        int idx = (int)((c[i]->genome_hash - 1000) / 7);
        if (f->stuck_from && idx >= f->stuck_from) {
            while (fs_now_ns() < stuck_until_ns &&
                   !__atomic_load_n(&f->back_now, __ATOMIC_SEQ_CST))
                usleep(1000);
            if (__atomic_exchange_n(&f->back_now, 0, __ATOMIC_SEQ_CST)) {
                for (; i < n && !rc; i++) { /* the rest, unmeasured */
                    struct eval_result d;
                    eval_result_init(&d);
                    d.deferred = 1;
                    if (cb(ud, i, &d))
                        rc = KEVO_ESTOPPED;
                }
                break;
            }
        }
        int us = c[i]->optional && f->opt_delay_us ? f->opt_delay_us
                                                  : f->delay_us;
        if (us)
            usleep((useconds_t)us);
        struct eval_result r;
        eval_result_init(&r);
        r.outcome = EVAL_OK;
        r.fitness = (double)c[i]->genome_hash;
        r.median_ns = 1e6 / r.fitness;
        r.evidence_json = strdup("{\"who\":\"fake\"}");
        f->evaluated++;
        if (cb(ud, i, &r))
            rc = KEVO_ESTOPPED;
        eval_result_release(&r);
    }
    f->in_batch = 0;
    return rc;
}

static int fake_confirm(void *self, const struct candidate *ch,
                        const struct candidate *in, int *accept,
                        double *ratio, double *noise)
{
    struct fake *f = self;
    f->confirms++;
    *ratio = (double)ch->genome_hash / (double)in->genome_hash;
    *noise = 0.01;
    *accept = *ratio > 1.01;
    return KEVO_OK;
}

static void fake_set_best(void *self, double best)
{
    ((struct fake *)self)->best = best;
}

static char *fake_env(void *self)
{
    char buf[128];
    snprintf(buf, sizeof buf, "{\"evaluator\":\"fake\",\"device\":"
             "{\"name\":\"Fake GPU\",\"ordinal\":%d}}",
             ((struct fake *)self)->id);
    return strdup(buf);
}

static void fake_destroy(void *self)
{
    ((struct fake *)self)->destroyed++; /* (the test owns the fakes) */
}

static const struct evaluator_ops fake_ops = {
    .name = "fake",
    .eval_batch = fake_batch,
    .confirm = fake_confirm,
    .set_best = fake_set_best,
    .environment = fake_env,
    .destroy = fake_destroy,
};

static void fake_set_deadline(void *self, long long at_ns)
{
    ((struct fake *)self)->deadline = at_ns;
}

static void fake_set_drop(void *self, int on)
{
    ((struct fake *)self)->drop = on;
}

static void fake_give_back(void *self)
{
    struct fake *f = self;
    __atomic_add_fetch(&f->back, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&f->back_now, 1, __ATOMIC_SEQ_CST);
}

/* A fake that can give back the batch it holds (an MPI rank's queue). */
static const struct evaluator_ops fake_ops_back = {
    .name = "fake",
    .eval_batch = fake_batch,
    .set_best = fake_set_best,
    .give_back = fake_give_back,
    .destroy = fake_destroy,
};

/* A fake that is told the deadline and the drop (it measures all the
 * same: what it was told is checked). */
static const struct evaluator_ops fake_ops_end = {
    .name = "fake",
    .eval_batch = fake_batch,
    .set_best = fake_set_best,
    .set_deadline = fake_set_deadline,
    .set_drop = fake_set_drop,
    .destroy = fake_destroy,
};

/* ---- batches and a recording callback */

struct rec {
    int n;                 /* callbacks so far */
    int order_ok;          /* 1 while every index came in order */
    int values_ok;         /* 1 while every result is its candidate's */
    int by_gpu[8];         /* results per gpu id */
    int stop_at;           /* return 1 at this index (-1: never) */
    const struct candidate *cands;
};

static int on_result(void *ud, int index, const struct eval_result *r)
{
    struct rec *rc = ud;
    if (index != rc->n)
        rc->order_ok = 0;
    if (r->fitness != (double)rc->cands[index].genome_hash ||
        !r->evidence_json || !strstr(r->evidence_json, "fake"))
        rc->values_ok = 0;
    if (r->gpu >= 0 && r->gpu < 8)
        rc->by_gpu[r->gpu]++;
    else
        rc->values_ok = 0;
    rc->n++;
    return index == rc->stop_at;
}

static struct candidate cands[N_CANDS];
static const struct candidate *cand_ptrs[N_CANDS];

static void make_cands(void)
{
    for (int i = 0; i < N_CANDS; i++) {
        cands[i] = (struct candidate){.genome_hash = 1000 + 7 * (uint64_t)i};
        cand_ptrs[i] = &cands[i];
    }
}

static struct rec rec_new(void)
{
    struct rec r = {.order_ok = 1, .values_ok = 1, .stop_at = -1,
                    .cands = cands};
    return r;
}

struct lines {
    char text[2048];
    int other_thread;  /* 1: a line came from a thread not the caller's */
};

static long main_tid;

static void collect(void *ud, const char *line)
{
    struct lines *l = ud;
    if (syscall(SYS_gettid) != main_tid)
        l->other_thread = 1;
    size_t n = strlen(l->text);
    snprintf(l->text + n, sizeof l->text - n, "%s\n", line);
}

/* opts.ready of the cases below: candidates 3 and up are ready */
static int ready_from_3(void *ud, const struct candidate *c)
{
    return (c->genome_hash - 1000) / 7 >= 3;
}

static int use_ready; /* make_fanout passes ready_from_3 */
static int use_take;  /* make_fanout passes it as opts.take */

/* The wait_ready cases: candidates 0..2 become ready after waits_needed
 * calls of wait_ready; wait_fails makes it fail instead. */
static int waits, waits_needed, wait_fails;

static int ready_after_waits(void *ud, const struct candidate *c)
{
    pthread_mutex_lock(&log_mu);
    int r = (c->genome_hash - 1000) / 7 >= 3 || waits >= waits_needed;
    pthread_mutex_unlock(&log_mu);
    return r;
}

static int ready_now(const struct candidate *c)
{
    return ready_after_waits(NULL, c);
}

static int wait_a_little(void *ud, int max_ms)
{
    pthread_mutex_lock(&log_mu);
    waits++;
    pthread_mutex_unlock(&log_mu);
    usleep(1000);
    return wait_fails ? KEVO_EIO : KEVO_OK;
}

/* The drop cases: the optional candidates are never ready (use_wait 3),
 * or all are (4), and candidate 0 never is; or all are ready (5). */
static int ready_drop(void *ud, const struct candidate *c);

static int use_wait; /* make_fanout passes ready_after_waits (1) or
                         ready_late_first (2), and wait_a_little */

/* Candidates 0..32 become ready only after 100 waits, 33 and up after
 * one: the slots first in the order compile longest. */
static int ready_late_first(void *ud, const struct candidate *c)
{
    pthread_mutex_lock(&log_mu);
    int r = waits >= ((c->genome_hash - 1000) / 7 >= 33 ? 1 : 100);
    pthread_mutex_unlock(&log_mu);
    return r;
}

/* The order hooks of test_dispatch_order: the batch backwards; what the
 * prefetch got, and how many results learn saw. */
static int use_order;
static int prefetched[N_CANDS], n_prefetched, n_learned;

static int backwards(void *ud, const struct candidate *const *c, int n,
                     int *order)
{
    for (int i = 0; i < n; i++)
        order[i] = n - 1 - i;
    return KEVO_OK;
}

static void record_prefetch(void *ud, const struct candidate *const *c,
                            int n)
{
    for (int i = 0; i < n && n_prefetched < N_CANDS; i++)
        prefetched[n_prefetched++] = (int)((c[i]->genome_hash - 1000) / 7);
}

static void count_learned(void *ud, const struct candidate *c,
                          const struct eval_result *r)
{
    pthread_mutex_lock(&log_mu);
    n_learned += r->outcome == EVAL_OK;
    pthread_mutex_unlock(&log_mu);
}

static int make_fanout(struct fake *f, int n, struct lines *lines,
                       struct evaluator *ev)
{
    struct fanout_sub subs[8];
    char err[256];
    for (int k = 0; k < n; k++) {
        subs[k].ev = (struct evaluator){&fake_ops, &f[k]};
        subs[k].gpu = k;
        snprintf(subs[k].label, sizeof subs[k].label, "gpu %d", k);
    }
    struct fanout_opts o = {.report = collect, .report_ud = lines,
                            .ready = use_ready ? ready_from_3 : NULL,
                            .take = use_take};
    if (use_wait) {
        o.ready = use_wait == 2 ? ready_late_first
                  : use_wait >= 3 ? ready_drop : ready_after_waits;
        o.wait_ready = wait_a_little;
    }
    if (use_order) {
        o.order = backwards;
        o.prefetch = record_prefetch;
        o.learn = count_learned;
    }
    return fanout_new(&o, subs, n, ev, err, sizeof err);
}

/* ---- cases */

static void test_order(void)
{
    struct shared sh = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                        4, 0, 0};
    struct fake f[4] = {{.id = 0}, {.id = 1}, {.id = 2}, {.id = 3}};
    for (int k = 0; k < 4; k++)
        f[k].sh = &sh;
    struct lines l = {"", 0};
    struct evaluator ev;
    CHECK(make_fanout(f, 4, &l, &ev) == KEVO_OK);
    struct rec r = rec_new();
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_result, &r) ==
          KEVO_OK);
    CHECK(r.n == N_CANDS && r.order_ok && r.values_ok);
    CHECK(sh.started == 4); /* all four were inside at once */
    int total = 0;
    for (int k = 0; k < 4; k++) {
        CHECK_MSG(r.by_gpu[k] > 0, "gpu %d measured nothing", k);
        CHECK(r.by_gpu[k] == f[k].evaluated);
        CHECK(!f[k].overlap);
        total += f[k].evaluated;
    }
    CHECK(total == N_CANDS); /* each candidate measured once */
    CHECK(l.text[0] == '\0');
    /* a sub stays on one thread across batches: a GPU worker it restarts
     * dies with the thread that forked it (PR_SET_PDEATHSIG) */
    struct rec r2 = rec_new();
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_result, &r2) ==
          KEVO_OK);
    CHECK(r2.n == N_CANDS && r2.order_ok && r2.values_ok);
    for (int k = 0; k < 4; k++)
        CHECK_MSG(!f[k].moved, "sub %d changed threads", k);
    ev.ops->destroy(ev.self);
}

static void test_failure(void)
{
    /* gpus 0 and 2 each hold their first candidate until gpu 1 has failed
     * three times, so it certainly fails mid-batch */
    struct shared sh = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                        3, 0, 0};
    struct fake f[3] = {{.id = 0, .hold = 1},
                        {.id = 1, .fail_from = 1, .release_at = 3},
                        {.id = 2, .hold = 1}};
    for (int k = 0; k < 3; k++)
        f[k].sh = &sh;
    struct lines l = {"", 0};
    struct evaluator ev;
    CHECK(make_fanout(f, 3, &l, &ev) == KEVO_OK);
    struct rec r = rec_new();
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_result, &r) ==
          KEVO_OK);
    CHECK(r.n == N_CANDS && r.order_ok && r.values_ok);
    CHECK(sh.released);
    CHECK(r.by_gpu[1] == 0 && f[1].evaluated == 0);
    CHECK(f[0].evaluated + f[2].evaluated == N_CANDS);
    CHECK(f[1].calls == 3); /* 3 failures in a row, then dropped */
    CHECK(fanout_alive(&ev) == 2);
    CHECK_MSG(strstr(l.text, "gpu 1 failed on candidate") != NULL, "%s",
              l.text);
    CHECK_MSG(strstr(l.text, "gpu 1 failed 3 times in a row: dropped, 2 "
                     "left") != NULL, "%s", l.text);
    CHECK(!l.other_thread); /* reports come out in the caller's thread */
    /* the next batch does not use it */
    int calls = f[1].calls;
    struct rec r2 = rec_new();
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, 10, on_result, &r2) ==
          KEVO_OK);
    CHECK(r2.n == 10 && r2.order_ok && r2.values_ok && r2.by_gpu[1] == 0);
    CHECK(f[1].calls == calls);
    ev.ops->destroy(ev.self);
}

static void test_none_left(void)
{
    struct fake f[2] = {{.id = 0, .fail_from = 1}, {.id = 1, .fail_from = 2}};
    struct lines l = {"", 0};
    struct evaluator ev;
    CHECK(make_fanout(f, 2, &l, &ev) == KEVO_OK);
    struct rec r = rec_new();
    int rc = ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_result, &r);
    CHECK(rc == KEVO_ENODEV);
    CHECK(r.order_ok && r.values_ok && r.n <= 1);
    CHECK(fanout_alive(&ev) == 0);
    CHECK_MSG(strstr(l.text, "no evaluator left (gpu ") != NULL, "%s",
              l.text);
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, 3, on_result, &r) ==
          KEVO_ENODEV);
    ev.ops->destroy(ev.self);
}

static void test_stop(void)
{
    struct fake f[3] = {{.id = 0}, {.id = 1}, {.id = 2}};
    struct lines l = {"", 0};
    struct evaluator ev;
    CHECK(make_fanout(f, 3, &l, &ev) == KEVO_OK);
    struct rec r = rec_new();
    r.stop_at = 5;
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_result, &r) ==
          KEVO_ESTOPPED);
    CHECK(r.n == 6 && r.order_ok && r.values_ok);
    struct rec r2 = rec_new();
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_result, &r2) ==
          KEVO_OK);
    CHECK(r2.n == N_CANDS && r2.order_ok && r2.values_ok);
    ev.ops->destroy(ev.self);
}

static void test_confirm_and_best(void)
{
    struct fake f[3] = {{.id = 0}, {.id = 1}, {.id = 2}};
    struct lines l = {"", 0};
    struct evaluator ev;
    CHECK(make_fanout(f, 3, &l, &ev) == KEVO_OK);
    int accept = -1;
    double ratio = 0, noise = 0;
    CHECK(ev.ops->confirm(ev.self, &cands[9], &cands[0], &accept, &ratio,
                          &noise) == KEVO_OK);
    CHECK(accept == 1 && ratio > 1.0);
    CHECK(f[0].confirms == 1 && f[1].confirms == 0 && f[2].confirms == 0);
    /* set_best reaches every sub before its next candidate; the fastest
     * time any sub measured lowers it further (cascade reference) */
    ev.ops->set_best(ev.self, 5000.0);
    struct rec r = rec_new();
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, 3, on_result, &r) ==
          KEVO_OK);
    for (int k = 0; k < 3; k++)
        CHECK(f[k].calls == 0 || (f[k].best > 0 && f[k].best <= 5000.0));
    ev.ops->destroy(ev.self);
}

static void test_environment(void)
{
    struct fake f[2] = {{.id = 0}, {.id = 1}};
    struct lines l = {"", 0};
    struct evaluator ev;
    CHECK(make_fanout(f, 2, &l, &ev) == KEVO_OK);
    char *env = ev.ops->environment(ev.self);
    cJSON *j = cJSON_Parse(env);
    const cJSON *g = cJSON_GetObjectItem(j, "gpus");
    CHECK(cJSON_GetArraySize(g) == 2);
    CHECK(cJSON_GetObjectItem(cJSON_GetArrayItem(g, 1), "device") != NULL);
    CHECK(cJSON_GetObjectItem(j, "device") != NULL); /* sub 0's */
    CHECK(cJSON_IsString(cJSON_GetObjectItem(j, "evaluator")));
    cJSON_Delete(j);
    free(env);
    ev.ops->destroy(ev.self);
}

static void test_single(void)
{
    struct fake f[1] = {{.id = 0, .fail_once_at = 5}};
    struct lines l = {"", 0};
    struct evaluator ev;
    CHECK(make_fanout(f, 1, &l, &ev) == KEVO_OK);
    struct rec r = rec_new();
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_result, &r) ==
          KEVO_OK);
    CHECK(r.n == N_CANDS && r.order_ok && r.values_ok);
    CHECK(r.by_gpu[0] == N_CANDS && f[0].evaluated == N_CANDS);
    CHECK(f[0].calls == 2); /* the batch, then its rest after the failure */
    CHECK_MSG(strstr(l.text, "gpu 0 failed on candidate 5 of the batch "
                     "(CUDA driver error); it is tried again") != NULL,
              "%s", l.text);
    struct rec r2 = rec_new();
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_result, &r2) ==
          KEVO_OK);
    CHECK(f[0].calls == 3 && r2.n == N_CANDS && r2.order_ok);
    CHECK(fanout_alive(&ev) == 1);
    ev.ops->destroy(ev.self);
}

static void test_ready_first(void)
{
    struct shared sh = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                        2, 0, 0};
    int log[N_CANDS], n_log = 0;
    struct fake f[2] = {{.id = 0}, {.id = 1}};
    for (int k = 0; k < 2; k++) {
        f[k].sh = &sh;
        f[k].log = log;
        f[k].n_log = &n_log;
    }
    struct lines l = {"", 0};
    struct evaluator ev;
    use_ready = 1;
    CHECK(make_fanout(f, 2, &l, &ev) == KEVO_OK);
    use_ready = 0;
    struct rec r = rec_new();
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_result, &r) ==
          KEVO_OK);
    CHECK(r.n == N_CANDS && r.order_ok && r.values_ok && n_log == N_CANDS);
    /* both took a ready one first, 0..2 only once none was ready */
    CHECK_MSG(log[0] >= 3 && log[1] >= 3, "%d %d", log[0], log[1]);
    int seen_low = 0;
    for (int i = 0; i < n_log; i++)
        seen_low += log[i] < 3;
    CHECK(seen_low == 3);
    ev.ops->destroy(ev.self);
}

/* One batch of N_CANDS over two fakes f logging to one list, with
 * ready_from_3 and opts.take = take: every result in order, each
 * candidate measured once. */
static void ready_batch(int take, struct fake f[2])
{
    struct shared sh = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                        2, 0, 0};
    int log[N_CANDS], n_log = 0;
    for (int k = 0; k < 2; k++) {
        f[k] = (struct fake){.id = k, .sh = &sh, .log = log,
                             .n_log = &n_log};
    }
    struct lines l = {"", 0};
    struct evaluator ev;
    use_ready = 1;
    use_take = take;
    CHECK(make_fanout(f, 2, &l, &ev) == KEVO_OK);
    use_ready = use_take = 0;
    struct rec r = rec_new();
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_result, &r) ==
          KEVO_OK);
    CHECK(r.n == N_CANDS && r.order_ok && r.values_ok && n_log == N_CANDS);
    ev.ops->destroy(ev.self);
}

/* Ready candidates go several to a call (the sub's evaluator keeps its
 * GPU fed between them), at most FANOUT_TAKE, and a sub takes its share
 * only: both subs work. */
static void test_ready_several(void)
{
    struct fake f[2];
    ready_batch(0, f);
    CHECK(f[0].evaluated + f[1].evaluated == N_CANDS);
    CHECK_MSG(f[0].calls + f[1].calls < N_CANDS / 2, "%d + %d calls",
              f[0].calls, f[1].calls);
    CHECK_MSG(f[0].most > 1 && f[0].most <= FANOUT_TAKE &&
              f[1].most <= FANOUT_TAKE, "%d %d", f[0].most, f[1].most);
    CHECK(f[0].evaluated > 0 && f[1].evaluated > 0);
}

/* opts.take: a sub takes up to that many ready ones in a call (here
 * more than FANOUT_TAKE: 37 ready, two subs, take 16); a take out of
 * range is refused, the subs destroyed. */
static void test_take(void)
{
    struct fake f[2];
    ready_batch(16, f);
    CHECK_MSG(f[0].most > FANOUT_TAKE && f[0].most <= 16 &&
              f[1].most <= 16, "%d %d", f[0].most, f[1].most);
    struct lines l = {"", 0};
    struct evaluator ev;
    for (int bad = 0; bad < 2; bad++) {
        struct fake g[1] = {{.id = 0}};
        use_take = bad ? FANOUT_TAKE_MAX + 1 : -1;
        CHECK(make_fanout(g, 1, &l, &ev) == KEVO_EINVAL);
        use_take = 0;
        CHECK(g[0].destroyed == 1);
    }
}

/* With wait_ready a free sub waits for a candidate to become ready
 * rather than take one that is not; a wait_ready that fails is not
 * used again and the rest are taken as they are. */
static void test_wait_ready(void)
{
    for (int fails = 0; fails < 2; fails++) {
        struct fake f[2] = {{.id = 0}, {.id = 1}};
        struct lines l = {"", 0};
        struct evaluator ev;
        waits = 0;
        waits_needed = 3;
        wait_fails = fails;
        unready_taken = 0;
        must_be_ready = ready_now;
        use_wait = 1;
        CHECK(make_fanout(f, 2, &l, &ev) == KEVO_OK);
        use_wait = 0;
        struct rec r = rec_new();
        CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_result,
                                 &r) == KEVO_OK);
        must_be_ready = NULL;
        CHECK(r.n == N_CANDS && r.order_ok && r.values_ok);
        CHECK(f[0].evaluated + f[1].evaluated == N_CANDS);
        if (!fails) {
            CHECK_MSG(unready_taken == 0 && waits >= waits_needed,
                      "%d taken before ready, %d waits", unready_taken,
                      waits);
        } else {
            /* each sub may have been in its first wait at once */
            CHECK_MSG(unready_taken == 3 && waits >= 1 && waits <= 2,
                      "%d taken before ready, %d waits", unready_taken,
                      waits);
        }
        ev.ops->destroy(ev.self);
    }
}

/* A slot that said "not ready" is asked again in later looks even when
 * more than 32 not-ready ones come before it: the short compiles behind
 * the long ones are taken as they end. */
static void test_ask_again(void)
{
    int log[N_CANDS], n_log = 0;
    struct fake f[2] = {{.id = 0}, {.id = 1}};
    for (int k = 0; k < 2; k++) {
        f[k].log = log;
        f[k].n_log = &n_log;
    }
    struct lines l = {"", 0};
    struct evaluator ev;
    waits = 0;
    wait_fails = 0;
    use_wait = 2;
    CHECK(make_fanout(f, 2, &l, &ev) == KEVO_OK);
    use_wait = 0;
    struct rec r = rec_new();
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_result, &r) ==
          KEVO_OK);
    CHECK(r.n == N_CANDS && r.order_ok && r.values_ok && n_log == N_CANDS);
    CHECK_MSG(log[0] >= 33, "the first one measured was %d", log[0]);
    ev.ops->destroy(ev.self);
}

/* The defer test's callback: deferred results by index. */
struct drec {
    int n, order_ok, values_ok;
    int deferred[N_CANDS];
    int *kinds;        /* (optional) [4]: results by deferred kind */
};

static int on_drec(void *ud, int index, const struct eval_result *r)
{
    struct drec *d = ud;
    if (index != d->n)
        d->order_ok = 0;
    if (d->kinds && r->deferred >= 0 && r->deferred < 4)
        d->kinds[r->deferred]++;
    if (r->deferred)
        d->deferred[index] = r->deferred;
    else if (r->fitness != (double)cands[index].genome_hash)
        d->values_ok = 0;
    d->n++;
    return 0;
}

/* Runs the whole batch on ev into d, counting results by deferred kind
 * into kinds[4]; the seconds it took. */
static double timed_batch(struct evaluator *ev, struct drec *d, int *kinds)
{
    *d = (struct drec){.order_ok = 1, .values_ok = 1, .kinds = kinds};
    memset(kinds, 0, 4 * sizeof *kinds);
    long long t0 = fs_now_ns();
    CHECK(ev->ops->eval_batch(ev->self, cand_ptrs, N_CANDS, on_drec, d) ==
          KEVO_OK);
    return (fs_now_ns() - t0) / 1e9;
}

/* set_defer: once no sub measures and nothing pending is ready, the
 * pending candidates (at most the allowance) come back deferred and
 * unmeasured; more of them than allowed wait until they are ready. */
static void test_defer(void)
{
    for (int allow = 3; allow >= 2; allow--) {
        struct fake f[2] = {{.id = 0}, {.id = 1}};
        struct lines l = {"", 0};
        struct evaluator ev;
        waits = 0;
        waits_needed = allow == 3 ? 1 << 30 : 150; /* 0..2 never / later */
        wait_fails = 0;
        unready_taken = 0;
        must_be_ready = ready_now;
        use_wait = 1;
        CHECK(make_fanout(f, 2, &l, &ev) == KEVO_OK);
        use_wait = 0;
        CHECK(ev.ops->set_defer != NULL);
        ev.ops->set_defer(ev.self, allow);
        struct drec d = {.order_ok = 1, .values_ok = 1};
        CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_drec, &d) ==
              KEVO_OK);
        must_be_ready = NULL;
        int nd = 0;
        for (int i = 0; i < N_CANDS; i++)
            nd += d.deferred[i];
        CHECK(d.n == N_CANDS && d.order_ok && d.values_ok);
        CHECK(unready_taken == 0);
        if (allow == 3) {
            CHECK_MSG(nd == 3 && d.deferred[0] && d.deferred[1] &&
                      d.deferred[2], "%d deferred", nd);
            CHECK(f[0].evaluated + f[1].evaluated == N_CANDS - 3);
        } else {
            CHECK_MSG(nd == 0, "%d deferred beyond the allowance", nd);
            CHECK(f[0].evaluated + f[1].evaluated == N_CANDS);
        }
        ev.ops->destroy(ev.self);
    }
}

static int use_wait_mode; /* ready_drop: 3 or 4, as use_wait */

static int ready_drop(void *ud, const struct candidate *c)
{
    if (use_wait_mode == 5) /* all of them */
        return 1;
    if (c->genome_hash == 1000)
        return 0;
    return c->optional ? use_wait_mode == 4 : 1;
}

static void make_optional(int from)
{
    for (int i = 0; i < N_CANDS; i++)
        cands[i].optional = i >= from;
}

/* set_deadline: once it passes no sub starts a candidate, and every one
 * not measured by then comes back deferred (2), an optional one dropped
 * (3), in index order with the measured ones, whichever were measured. */
static void test_deadline(void)
{
    /* 40 candidates of 40 ms on 2 subs outlast a deadline of 500 ms */
    struct fake f[2] = {{.id = 0, .delay_us = 40000},
                        {.id = 1, .delay_us = 40000}};
    struct lines l = {"", 0};
    struct evaluator ev;
    CHECK(make_fanout(f, 2, &l, &ev) == KEVO_OK);
    CHECK(ev.ops->set_deadline != NULL);
    CHECK(ev.ops->set_drop == NULL); /* no ready hook: nothing optional */
    late_after_ns = fs_now_ns() + 500000000LL;
    ev.ops->set_deadline(ev.self, late_after_ns);
    struct drec d = {.order_ok = 1, .values_ok = 1};
    int kinds[4] = {0};
    d.kinds = kinds;
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_drec, &d) ==
          KEVO_OK);
    late_after_ns = 0;
    int measured = f[0].evaluated + f[1].evaluated;
    CHECK(d.n == N_CANDS && d.order_ok && d.values_ok);
    CHECK_MSG(measured > 0 && measured < N_CANDS && kinds[2] ==
              N_CANDS - measured && kinds[1] == 0 && kinds[3] == 0,
              "%d measured, %d end-deferred", measured, kinds[2]);
    /* (a start races the deadline by the time of one look at the clock) */
    CHECK_MSG(f[0].late + f[1].late <= 2, "%d started after the deadline",
              f[0].late + f[1].late);
    /* the next batch, deadline lifted: all measured */
    ev.ops->set_deadline(ev.self, 0);
    struct drec d2 = {.order_ok = 1, .values_ok = 1};
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_drec, &d2) ==
          KEVO_OK);
    int nd = 0;
    for (int i = 0; i < N_CANDS; i++)
        nd += d2.deferred[i];
    CHECK(d2.n == N_CANDS && nd == 0);
    ev.ops->destroy(ev.self);

    /* with drop: at the deadline a pending optional one is dropped (3),
     * a required one deferred (2) */
    struct fake g[2] = {{.id = 0, .delay_us = 30000},
                        {.id = 1, .delay_us = 30000}};
    make_optional(30);
    use_wait = use_wait_mode = 5;
    CHECK(make_fanout(g, 2, &l, &ev) == KEVO_OK);
    use_wait = 0;
    ev.ops->set_drop(ev.self, 1);
    ev.ops->set_deadline(ev.self, fs_now_ns() + 300000000LL);
    struct drec d3 = {.order_ok = 1, .values_ok = 1};
    int k3[4] = {0};
    d3.kinds = k3;
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_drec, &d3) ==
          KEVO_OK);
    CHECK(d3.n == N_CANDS && d3.order_ok && d3.values_ok);
    for (int i = 0; i < N_CANDS; i++)
        CHECK_MSG(d3.deferred[i] == (i < 30 ? d3.deferred[i] ? 2 : 0 : 3),
                  "candidate %d came back %d", i, d3.deferred[i]);
    CHECK_MSG(k3[2] > 0 && k3[3] == 10, "%d deferred, %d dropped", k3[2],
              k3[3]);
    make_optional(N_CANDS);
    ev.ops->destroy(ev.self);
}

/* One sub in use: it gets the whole batch when it ends at the deadline and
 * drops optional ones itself (told both); one that cannot gets the batch
 * from the fan-out's thread a candidate at a time, which ends on time. */
static void test_single_deadline(void)
{
    struct fake f[1] = {{.id = 0}};
    struct fanout_sub sub = {{&fake_ops_end, &f[0]}, 0, "gpu 0"};
    struct evaluator ev;
    char err[128];
    struct fanout_opts o = {.ready = ready_drop};
    CHECK(fanout_new(&o, &sub, 1, &ev, err, sizeof err) == KEVO_OK);
    CHECK(ev.ops->set_drop != NULL);
    long long at = fs_now_ns() + 60000000000LL;
    ev.ops->set_deadline(ev.self, at);
    ev.ops->set_drop(ev.self, 1);
    struct drec d = {.order_ok = 1, .values_ok = 1};
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_drec, &d) ==
          KEVO_OK);
    CHECK(d.n == N_CANDS && f[0].calls == 1);
    CHECK(f[0].deadline == at && f[0].drop == 1);
    ev.ops->destroy(ev.self);

    struct fake g[1] = {{.id = 0, .delay_us = 20000}};
    struct lines l = {"", 0};
    CHECK(make_fanout(g, 1, &l, &ev) == KEVO_OK);
    late_after_ns = fs_now_ns() + 400000000LL; /* of 40 x 20 ms */
    ev.ops->set_deadline(ev.self, late_after_ns);
    struct drec d2 = {.order_ok = 1, .values_ok = 1};
    int kinds[4] = {0};
    d2.kinds = kinds;
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_drec, &d2) ==
          KEVO_OK);
    late_after_ns = 0;
    CHECK(d2.n == N_CANDS && d2.order_ok && d2.values_ok);
    CHECK_MSG(g[0].evaluated > 0 && g[0].evaluated < N_CANDS &&
              kinds[2] == N_CANDS - g[0].evaluated && g[0].late <= 1,
              "%d measured, %d end-deferred, %d late", g[0].evaluated,
              kinds[2], g[0].late);
    CHECK(g[0].calls == g[0].evaluated); /* a candidate at a time */
    ev.ops->destroy(ev.self);
}

/* set_drop: the optional candidates (the batch's last ten) are taken after
 * every required one; those not ready when the rest is measured come
 * back dropped (3), none of them waited for; with all of them ready and
 * one required candidate that never is, the subs measure optional ones
 * until no required one has moved for 100 ms: then it is deferred (1)
 * and the optional ones left are dropped. */
static void test_drop(void)
{
    for (int mode = 3; mode <= 5; mode++) {
        struct fake f[2];
        for (int k = 0; k < 2; k++)
            f[k] = (struct fake){.id = k, .delay_us = mode == 3 ? 500 : 1000,
                                 .opt_delay_us = mode == 3 ? 0 : 30000};
        struct lines l = {"", 0};
        struct evaluator ev;
        make_optional(mode == 3 ? 30 : 5);
        waits = 0;
        wait_fails = 0;
        use_wait = use_wait_mode = mode;
        CHECK(make_fanout(f, 2, &l, &ev) == KEVO_OK);
        use_wait = 0;
        CHECK(ev.ops->set_drop != NULL);
        ev.ops->set_defer(ev.self, 1);
        ev.ops->set_drop(ev.self, 1);
        struct drec d = {.order_ok = 1, .values_ok = 1};
        int kinds[4] = {0};
        d.kinds = kinds;
        int rc = ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_drec, &d);
        CHECK(rc == KEVO_OK && d.n == N_CANDS && d.order_ok && d.values_ok);
        CHECK_MSG(mode == 5 ? kinds[1] == 0
                            : d.deferred[0] == 1 && kinds[1] == 1,
                  "mode %d: %d deferred, candidate 0: %d", mode, kinds[1],
                  d.deferred[0]);
        CHECK(kinds[2] == 0);
        for (int i = mode == 5 ? 0 : 1; i < N_CANDS; i++)
            CHECK_MSG(!cands[i].optional ? d.deferred[i] == 0
                                         : d.deferred[i] == 0 ||
                                               d.deferred[i] == 3,
                      "mode %d: candidate %d came back %d", mode, i,
                      d.deferred[i]);
        if (mode == 3)
            CHECK_MSG(kinds[3] == 10 && f[0].evaluated + f[1].evaluated ==
                      29, "%d dropped, %d measured", kinds[3],
                      f[0].evaluated + f[1].evaluated);
        else if (mode == 5) /* one at most per sub, while required ones
                               were pending; none with them */
            CHECK_MSG(kinds[3] >= 33 && f[0].most <= 5 && f[1].most <= 5,
                      "%d of 35 dropped, calls of %d and %d", kinds[3],
                      f[0].most, f[1].most);
        else
            CHECK_MSG(kinds[3] > 0 && kinds[3] < 35, "%d of 35 dropped",
                      kinds[3]);
        ev.ops->destroy(ev.self);
    }
    make_optional(N_CANDS);
}

/* The built hook of test_drop_built: the optional candidates with an
 * even index have a binary, the odd ones not; every required one may go. */
static int built_even(void *ud, const struct candidate *c)
{
    (void)ud;
    return !c->optional || ((c->genome_hash - 1000) / 7) % 2 == 0;
}

static int built_even_ready(const struct candidate *c)
{
    return built_even(NULL, c);
}

/* Subs that compile what they hold (no ready hook, MPI ranks) with a
 * built hook: set_drop is offered; required candidates that need no
 * compile go out several at a time (their share, at most FANOUT_TAKE);
 * an optional candidate goes out only built, one at a time, never with a
 * required one, while a required one is still held by a sub (sub 0
 * measures slowly); once the last required one is measured, the pending
 * optional ones are dropped and the ones the subs hold (they "compile"
 * until given back) are given back and come back dropped, at once. */
static void test_drop_built(void)
{
    struct fake f[3];
    struct fanout_sub subs[3];
    for (int k = 0; k < 3; k++) {
        f[k] = (struct fake){.id = k, .delay_us = k == 0 ? 40000 : 1000,
                             .stuck_from = N_CANDS - 10};
        subs[k] = (struct fanout_sub){{&fake_ops_back, &f[k]}, k, "rank"};
    }
    struct fanout_opts o = {.built = built_even};
    struct evaluator ev;
    char err[128];
    make_optional(N_CANDS - 10);
    unready_taken = 0;
    must_be_ready = built_even_ready;
    CHECK(fanout_new(&o, subs, 3, &ev, err, sizeof err) == KEVO_OK);
    CHECK(ev.ops->set_drop != NULL);
    ev.ops->set_drop(ev.self, 1);
    stuck_until_ns = fs_now_ns() + 3000000000LL;
    struct drec d;
    int kinds[4];
    double sec = timed_batch(&ev, &d, kinds);
    CHECK(d.n == N_CANDS && d.order_ok && d.values_ok);
    int measured = f[0].evaluated + f[1].evaluated + f[2].evaluated;
    int back = f[1].back + f[2].back;
    CHECK_MSG(kinds[0] == N_CANDS - 10 && kinds[3] == 10 && kinds[1] == 0 &&
              measured == N_CANDS - 10, "%d measured, %d dropped, %d "
              "deferred", kinds[0], kinds[3], kinds[1]);
    for (int i = 0; i < N_CANDS - 10; i++)
        CHECK(d.deferred[i] == 0);
    CHECK_MSG(unready_taken == 0, "%d optional ones without a binary went "
              "out", unready_taken);
    CHECK_MSG(back >= 1 && f[0].back == 0 && sec < 2.0, "given back %d "
              "(sub 0: %d), %.2f s", back, f[0].back, sec);
    int most = 0;
    for (int k = 0; k < 3; k++) {
        CHECK(f[k].most <= FANOUT_TAKE);
        CHECK(f[k].most_opt <= 1 && f[k].mixed == 0);
        most = f[k].most > most ? f[k].most : most;
    }
    CHECK_MSG(most >= 2, "built required ones went out %d at most", most);
    must_be_ready = NULL;
    make_optional(N_CANDS);
    ev.ops->destroy(ev.self);
    /* without the hook (and without ready): no set_drop */
    for (int k = 0; k < 3; k++)
        f[k] = (struct fake){.id = k};
    subs[0] = (struct fanout_sub){{&fake_ops_back, &f[0]}, 0, "rank"};
    CHECK(fanout_new(NULL, subs, 1, &ev, err, sizeof err) == KEVO_OK);
    CHECK(ev.ops->set_drop == NULL);
    ev.ops->destroy(ev.self);
}

/* drop_rest asks back the optional candidates subs hold also after
 * give_back_rest asked for the batch's last required one: one required
 * candidate measured for 400 ms, the rest optional and built, each held
 * ("compiling") until given back or 3 s pass. At 100 ms the required
 * one is asked back (it is being measured: it stays); the subs whose
 * optional ones came back take others; when the required one is
 * measured they are asked back too, and the batch ends at once. */
static void test_drop_after_give_back(void)
{
    struct fake f[3];
    struct fanout_sub subs[3];
    for (int k = 0; k < 3; k++) {
        f[k] = (struct fake){.id = k, .delay_us = 400000, .stuck_from = 1};
        subs[k] = (struct fanout_sub){{&fake_ops_back, &f[k]}, k, "rank"};
    }
    struct fanout_opts o = {.built = built_even};
    struct evaluator ev;
    char err[128];
    make_optional(1);
    CHECK(fanout_new(&o, subs, 3, &ev, err, sizeof err) == KEVO_OK);
    ev.ops->set_defer(ev.self, 1);
    ev.ops->set_drop(ev.self, 1);
    stuck_until_ns = fs_now_ns() + 3000000000LL;
    struct drec d;
    int kinds[4];
    double sec = timed_batch(&ev, &d, kinds);
    CHECK(d.n == N_CANDS && d.order_ok);
    CHECK_MSG(d.deferred[0] == 0 && kinds[3] == N_CANDS - 1 && sec < 1.5,
              "candidate 0 came back %d, %d dropped, %.2f s", d.deferred[0],
              kinds[3], sec);
    make_optional(N_CANDS);
    ev.ops->destroy(ev.self);
}

static int built_below_36(void *ud, const struct candidate *c)
{
    (void)ud;
    return (c->genome_hash - 1000) / 7 < 36;
}

/* group_compiles: two groups of three subs (two MPI ranks' slots), each
 * compiling one candidate at once; the batch handed out backwards, so
 * the four that need a compile (36-39, which "compile" 300 ms) come
 * first. While a group holds one of them its free subs take the ones
 * that need none: at most two of the four are out before the last of
 * those is taken (without the limit all four went first). */
static void test_group_compiles(void)
{
    for (int cap = 1; cap >= 0; cap--) {
        struct fake f[6];
        struct fanout_sub subs[6];
        int log[N_CANDS], n_log = 0;
        for (int k = 0; k < 6; k++) {
            f[k] = (struct fake){.id = k, .delay_us = 1000,
                                 .stuck_from = N_CANDS - 4, .log = log,
                                 .n_log = &n_log};
            subs[k] = (struct fanout_sub){{&fake_ops_back, &f[k]}, k / 3,
                                          "rank"};
        }
        struct fanout_opts o = {.order = backwards, .built = built_below_36,
                                .group_compiles = cap};
        struct evaluator ev;
        char err[128];
        CHECK(fanout_new(&o, subs, 6, &ev, err, sizeof err) == KEVO_OK);
        stuck_until_ns = fs_now_ns() + 300000000LL;
        struct drec d = {.order_ok = 1, .values_ok = 1};
        CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_drec, &d) ==
              KEVO_OK);
        CHECK(d.n == N_CANDS && d.order_ok && d.values_ok);
        int last_built = -1, early = 0;
        for (int i = 0; i < n_log; i++)
            if (log[i] < 36)
                last_built = i;
        for (int i = 0; i < last_built; i++)
            early += log[i] >= 36;
        if (cap)
            CHECK_MSG(early <= 2, "%d of the 4 compiles out before the last "
                      "candidate that needs none", early);
        else
            CHECK_MSG(early == 4, "without the limit %d of 4 went first",
                      early);
        ev.ops->destroy(ev.self);
    }
}

/* Subs without a ready hook (MPI ranks) holding the batch's last
 * candidates in their compiles: once nothing is pending, at most the
 * allowance is out and nothing moved for 100 ms, each is given back and
 * comes back deferred (1); more out than allowed are waited for. */
static void test_give_back(void)
{
    for (int allow = 2; allow >= 0; allow--) {
        struct fake f[2];
        struct fanout_sub subs[2];
        for (int k = 0; k < 2; k++) {
            f[k] = (struct fake){.id = k, .stuck_from = N_CANDS - 2};
            subs[k] = (struct fanout_sub){{&fake_ops_back, &f[k]}, k, "rank"};
        }
        struct evaluator ev;
        char err[128];
        CHECK(fanout_new(NULL, subs, 2, &ev, err, sizeof err) == KEVO_OK);
        ev.ops->set_defer(ev.self, allow);
        stuck_until_ns = fs_now_ns() + 1000000000LL;
        /* allow 0: no deferral, but a deadline at 300 ms, where what the
         * subs hold is given back */
        if (allow == 0)
            ev.ops->set_deadline(ev.self, fs_now_ns() + 300000000LL);
        struct drec d;
        int kinds[4];
        double s = timed_batch(&ev, &d, kinds);
        CHECK(d.n == N_CANDS && d.order_ok && d.values_ok);
        int back = f[0].back + f[1].back;
        if (allow == 2) {
            CHECK_MSG(kinds[1] == 2 && d.deferred[N_CANDS - 1] == 1 &&
                      d.deferred[N_CANDS - 2] == 1 && back == 2 && s < 0.9,
                      "%d deferred, %d given back, %.2f s", kinds[1], back,
                      s);
        } else if (allow == 1) {
            CHECK_MSG(kinds[1] == 0 && back == 0, "%d deferred beyond the "
                      "allowance, %d given back", kinds[1], back);
        } else { /* (the fake says 1 whatever the time) */
            CHECK_MSG(back == 2 && kinds[1] == 2 && s < 0.9,
                      "at the deadline: %d given back, %d deferred, %.2f s",
                      back, kinds[1], s);
        }
        ev.ops->destroy(ev.self);
    }
}

static void test_dispatch_order(void)
{
    struct shared sh = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                        2, 0, 0};
    int log[N_CANDS], n_log = 0;
    struct fake f[2] = {{.id = 0}, {.id = 1}};
    for (int k = 0; k < 2; k++) {
        f[k].sh = &sh;
        f[k].log = log;
        f[k].n_log = &n_log;
    }
    struct lines l = {"", 0};
    struct evaluator ev;
    use_order = 1;
    n_prefetched = n_learned = 0;
    CHECK(make_fanout(f, 2, &l, &ev) == KEVO_OK);
    use_order = 0;
    struct rec r = rec_new();
    CHECK(ev.ops->eval_batch(ev.self, cand_ptrs, N_CANDS, on_result, &r) ==
          KEVO_OK);
    /* results still in index order, each learned once */
    CHECK(r.n == N_CANDS && r.order_ok && r.values_ok && n_log == N_CANDS);
    CHECK(n_learned == N_CANDS);
    /* the prefetch got the batch in the hook's order */
    CHECK(n_prefetched == N_CANDS);
    for (int i = 0; i < n_prefetched; i++)
        CHECK_MSG(prefetched[i] == N_CANDS - 1 - i, "%d: %d", i,
                  prefetched[i]);
    /* the subs took candidates in that order: when the i-th is logged,
     * every candidate above N - 2 - i has been taken (each sub holds at
     * most one taken and not yet logged), so none below is logged yet;
     * in index order log[0] would be 0 or 1 */
    for (int i = 0; i < n_log; i++)
        CHECK_MSG(log[i] >= N_CANDS - 2 - i, "%d: %d", i, log[i]);
    ev.ops->destroy(ev.self);
}

/* Test evaluators as subs: a fan-out of three answers exactly what one
 * answers, candidate by candidate. */
static const char tpl_text[] =
    "// kevo: problem gemm\n"
    "// kevo: dtypes fp32\n"
    "// kevo: param BM 16 32 64 128 default=64\n"
    "// kevo: param TM 1 2 4 8 default=4\n"
    "// kevo: launch ka\n"
    "// kevo: grid cdiv(N, BM), cdiv(M, BM)\n"
    "// kevo: block 128\n"
    "extern \"C\" __global__ void ka(const elem_t *A, const elem_t *B,\n"
    "    elem_t *C, int M, int N, int K, void *ws)\n"
    "{ int x = BM + TM; (void)x; }\n";

struct seq {
    int n;
    double fitness[16];
    int outcome[16];
};

static int on_seq(void *ud, int index, const struct eval_result *r)
{
    struct seq *s = ud;
    if (index == s->n && s->n < 16) {
        s->fitness[s->n] = r->fitness;
        s->outcome[s->n] = r->outcome;
        s->n++;
    }
    return 0;
}

static void test_testeval_subs(void)
{
    char err[256];
    struct tpl *t;
    CHECK(tpl_parse("ka", NULL, tpl_text, &t, err, sizeof err) == KEVO_OK);
    struct candidate c[16];
    const struct candidate *cp[16];
    int64_t vals[16][2];
    for (int i = 0; i < 16; i++) {
        vals[i][0] = 16 << (i % 4);
        vals[i][1] = 1 << (i / 4);
        c[i] = (struct candidate){t, vals[i], 0x9e3779b97f4a7c15ULL * (i + 1),
                                  "", 0, 0};
        cp[i] = &c[i];
    }
    struct evaluator one, many;
    struct testeval_stats st[3] = {{0}};
    CHECK(testeval_new(&one, NULL) == KEVO_OK);
    struct fanout_sub subs[3];
    for (int k = 0; k < 3; k++) {
        CHECK(testeval_new(&subs[k].ev, &st[k]) == KEVO_OK);
        subs[k].gpu = k;
        snprintf(subs[k].label, sizeof subs[k].label, "gpu %d", k);
    }
    CHECK(fanout_new(NULL, subs, 3, &many, err, sizeof err) == KEVO_OK);
    struct seq a = {0}, b = {0};
    CHECK(one.ops->eval_batch(one.self, cp, 16, on_seq, &a) == KEVO_OK);
    CHECK(many.ops->eval_batch(many.self, cp, 16, on_seq, &b) == KEVO_OK);
    CHECK(a.n == 16 && b.n == 16);
    CHECK(!memcmp(a.fitness, b.fitness, sizeof a.fitness));
    CHECK(!memcmp(a.outcome, b.outcome, sizeof a.outcome));
    CHECK(st[0].evaluated + st[1].evaluated + st[2].evaluated == 16);
    one.ops->destroy(one.self);
    many.ops->destroy(many.self);
    tpl_free(t);
}

/* The GPU match check of kevo run --gpus, on worker ready answers. */
static void test_gpu_match(void)
{
    const char *h100 = "{\"device\":{\"name\":\"NVIDIA H100 80GB HBM3\","
                       "\"sms\":132,\"clock_khz\":1980000,\"mem_clock_khz\":"
                       "2619000},\"nvml\":{\"power_limit_mw\":700000,"
                       "\"app_sm_clock_mhz\":1980}}";
    const char *h100_b = "{\"device\":{\"name\":\"NVIDIA H100 80GB HBM3\","
                         "\"sms\":132,\"clock_khz\":1980000,"
                         "\"mem_clock_khz\":2619000},\"nvml\":{"
                         "\"power_limit_mw\":690000,\"app_sm_clock_mhz\":"
                         "1980}}";
    const char *h100_low = "{\"device\":{\"name\":\"NVIDIA H100 80GB HBM3\","
                           "\"sms\":132,\"clock_khz\":1980000,"
                           "\"mem_clock_khz\":2619000},\"nvml\":{"
                           "\"power_limit_mw\":500000}}";
    const char *a100 = "{\"device\":{\"name\":\"NVIDIA A100-SXM4-80GB\","
                       "\"sms\":108,\"clock_khz\":1410000}}";
    const char *slow = "{\"device\":{\"name\":\"NVIDIA H100 80GB HBM3\","
                       "\"sms\":132,\"clock_khz\":1755000}}";
    char why[512] = "";
    CHECK(gpuset_match(h100, 0, h100_b, 1, why, sizeof why) == 0);
    CHECK(gpuset_match(h100, 0, a100, 3, why, sizeof why) == 1);
    CHECK_MSG(strstr(why, "GPU 0 is 'NVIDIA H100 80GB HBM3' and GPU 3 is "
                     "'NVIDIA A100-SXM4-80GB'") != NULL, "%s", why);
    CHECK(gpuset_match(h100, 0, h100_low, 2, why, sizeof why) == 1);
    CHECK_MSG(strstr(why, "GPU 0 and GPU 2 have different power limits: "
                     "700 vs 500 W") != NULL, "%s", why);
    CHECK(gpuset_match(h100, 1, slow, 5, why, sizeof why) == 1);
    CHECK_MSG(strstr(why, "GPU 1 and GPU 5 differ in max clocks") != NULL,
              "%s", why);
    CHECK(gpuset_match(h100, 0, "{}", 1, why, sizeof why) == 1);
}

/* Without a driver (CI) kevo run --gpus fails cleanly, naming the GPU. */
static void test_gpuset_nodev(void)
{
    if (gpu_driver_present()) {
        printf("     (a driver is present: the no-driver case is not run)\n");
        return;
    }
    struct gpueval_opts o = {.problem = problem_find("gemm"),
                             .dtype = DTYPE_FP32,
                             .shape = {3, {64, 64, 64}}};
    int ids[2] = {0, 1};
    struct evaluator ev = {NULL, NULL};
    char err[512] = "";
    CHECK(gpuset_new(&o, 0, ids, 2, &ev, NULL, err, sizeof err) ==
          KEVO_ENODEV);
    CHECK_MSG(strstr(err, "GPU 0: no NVIDIA driver") == err, "%s", err);
    CHECK(ev.ops == NULL);
    CHECK(gpuset_new(&o, 0, ids, 0, &ev, NULL, err, sizeof err) ==
          KEVO_EINVAL);
}

int main(void)
{
    main_tid = syscall(SYS_gettid);
    make_cands();
    RUN(test_order, "results reach the callback in index order while every "
        "sub-evaluator is busy at once, each candidate measured once, each "
        "sub on one thread across batches");
    RUN(test_failure, "a sub-evaluator failing mid-batch: its candidate goes "
        "to another, the batch completes in order, the sub is dropped, "
        "reported from the caller's thread");
    RUN(test_none_left, "with no sub-evaluator left the batch fails with "
        "ENODEV and says why");
    RUN(test_stop, "a callback that stops ends the batch there; the next "
        "batch runs whole");
    RUN(test_single, "one sub-evaluator gets the whole batch in one call; "
        "after a failure mid-batch its rest is tried again, nothing lost");
    RUN(test_ready_first, "a free sub-evaluator takes a ready candidate "
        "before a lower one that would make it wait");
    RUN(test_take, "opts.take: a sub takes up to that many ready ones in "
        "a call; out of range refused, subs destroyed");
    RUN(test_ready_several, "ready candidates go to a sub several at a "
        "time (at most FANOUT_TAKE, its share), every sub busy");
    RUN(test_wait_ready, "with wait_ready a free sub waits for a candidate "
        "to become ready instead of taking one that is not; a failing "
        "wait_ready is dropped and the rest are taken as they are");
    RUN(test_ask_again, "a slot not ready when first asked is asked again "
        "in later looks, also behind more than 32 not-ready ones");
    RUN(test_defer, "with set_defer the candidates still not ready when "
        "nothing else is left come back deferred, unmeasured, at most the "
        "allowance; more than that are waited for");
    RUN(test_deadline, "with set_deadline no sub starts a candidate after "
        "it, and the ones not measured come back deferred at the end, in "
        "order with the measured ones");
    RUN(test_single_deadline, "one sub that ends at the deadline and drops "
        "itself gets the whole batch and is told both; one that cannot is "
        "fed a candidate at a time and the batch still ends on time");
    RUN(test_drop, "with set_drop optional candidates come last, one at a "
        "time and only while a required one compiles; those not measured "
        "when the rest is are dropped, and a required one stuck compiling "
        "behind them is deferred after 100 ms");
    RUN(test_drop_built, "subs that compile what they hold, with a built "
        "hook: optional candidates go out built, one at a time, while a "
        "required one is held; after the last required one the rest are "
        "dropped, the held ones given back");
    RUN(test_drop_after_give_back, "held optional candidates are asked "
        "back once the last required one is measured, also after the "
        "deferral asked for it");
    RUN(test_group_compiles, "a group of subs holding as many compiles as "
        "it runs takes candidates that need none first");
    RUN(test_give_back, "subs that cannot say what is compiled give back "
        "the batch's last candidates once nothing moved for 100 ms: "
        "deferred, at most the allowance; and all they hold at the "
        "deadline");
    RUN(test_dispatch_order, "with an order hook the batch is prefetched "
        "and handed out in its order, results still reach the callback in "
        "index order, and learn sees each result");
    RUN(test_confirm_and_best, "confirm runs on sub-evaluator 0 only; "
        "set_best reaches every sub");
    RUN(test_environment, "the environment is sub 0's plus the list of GPUs");
    RUN(test_testeval_subs, "three test evaluators answer exactly what one "
        "answers");
    RUN(test_gpuset_nodev, "without a driver --gpus fails with ENODEV, "
        "naming the GPU");
    RUN(test_gpu_match, "GPUs of two models, power limits or clocks are "
        "refused with both GPUs named; one model within tolerance passes");
    TEST_DONE();
}
