/*
 * localq.c - an evaluator behind a queue (see localq.h). Owns the
 * evaluator, the queue of jobs (one per proxy at most, in arrival order)
 * and the thread that works through it. A proxy's thread waits on its
 * job; the results are copied into the job and handed to the proxy's
 * callback from the proxy's thread, so the callback never runs on the
 * queue's thread.
 */
#include "localq.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpus.h"
#include "fsutil.h"

/* How long the queue's thread waits between looks at the compiles when
 * none of its jobs is ready (a job that comes wakes it at once): the GPU
 * may wait that long for a compile that has ended (at 1 ms, softmax fp32
 * 4096^2 under mpirun -np 2 on two H200s left the GPUs 1.8 ms idle an
 * evaluation, bench/results/2026-11-29-h200-s24). */
#define LQ_POLL_NS 200000L

struct job {
    const struct candidate *const *cands; /* borrowed from the proxy */
    int n;
    double best_ns;            /* cascade reference it came with */
    long long deadline_ns;     /* set_deadline's, it came with (0: none) */
    struct eval_result *res;   /* [n], filled by the queue thread */
    int got;                   /* results in res */
    int rc;                    /* the evaluator's status */
    int prefetched;            /* 1: its compile has been started */
    int given_back;            /* 1: taken off the queue unmeasured
                                  (give_back): its results are deferred */
    int done;
    struct job *next;
};

struct lq {
    struct evaluator in;       /* owned */
    struct evaluator_ops ops0; /* proxy 0's: inner's optional slots too */
    struct localq_hooks hk;    /* all NULL when none were given */
    pthread_mutex_t mu;        /* the queue, quit, refs */
    pthread_cond_t cv;         /* a job came or finished, or quit */
    struct job *head, *tail;
    pthread_t th;
    int quit;
    int refs;                  /* proxies not yet destroyed */
};

struct lslot {
    struct lq *q;
    double best_ns;            /* set_best, for its next batch */
    long long deadline_ns;     /* set_deadline, for its next batch */
    struct job *cur;           /* its job while queued (q->mu), or NULL */
};

/* Copies each result into the job (the queue thread's callback). */
static int keep(void *ud, int index, const struct eval_result *r)
{
    struct job *j = ud;
    if (eval_result_copy(&j->res[index], r))
        return 1;
    j->got = index + 1;
    return 0;
}

/* Starts the compile of every queued job not yet started (under mu). */
static void prefetch_queued(struct lq *q)
{
    for (struct job *j = q->head; j; j = j->next)
        if (!j->prefetched) {
            j->prefetched = 1;
            if (q->hk.prefetch)
                q->hk.prefetch(q->in.self, j->cands, j->n);
        }
}

/* 1 if every candidate of j can be measured without waiting for its
 * compile (always, for an evaluator that does not compile). */
static int job_ready(const struct lq *q, const struct job *j)
{
    /* past its deadline it is measured at once: its evaluator hands back
     * what it cannot measure by then (eval.h set_deadline) */
    if (j->deadline_ns > 0 && fs_now_ns() >= j->deadline_ns)
        return 1;
    for (int i = 0; q->hk.ready && i < j->n; i++)
        if (!q->hk.ready(q->in.self, j->cands[i]))
            return 0;
    return 1;
}

/* Takes j, which follows prev (NULL: the head), off the queue (mu). */
static void unlink_job(struct lq *q, struct job *prev, struct job *j)
{
    if (prev)
        prev->next = j->next;
    else
        q->head = j->next;
    if (q->tail == j)
        q->tail = prev;
    j->next = NULL;
}

/* Unlinks and returns the first queued job that is ready, or with
 * any_job the head if none is (under mu); NULL if none is taken. */
static struct job *take_job(struct lq *q, int any_job)
{
    struct job *prev = NULL, *j = q->head;
    while (j && !job_ready(q, j)) {
        prev = j;
        j = j->next;
    }
    if (!j && !any_job)
        return NULL;
    if (!j) {
        prev = NULL;
        j = q->head;
    }
    unlink_job(q, prev, j);
    return j;
}

/* Waits (mu held) a moment for a compile to finish or a job to come,
 * servicing the compile pool meanwhile so that finished compiles are
 * seen. Returns 0, or hooks.poll's error (the pool is broken: stop
 * waiting for it). */
static int wait_compiles(struct lq *q)
{
    pthread_mutex_unlock(&q->mu);
    int rc = q->hk.poll(q->in.self);
    pthread_mutex_lock(&q->mu);
    if (rc)
        return rc;
    struct timespec dl = fs_abstime_in(LQ_POLL_NS);
    pthread_cond_timedwait(&q->cv, &q->mu, &dl);
    return 0;
}

/* The queue's thread: prefetches every job as it comes, then measures
 * the first one whose compiles are done. When none is done it waits for
 * one (with hooks.poll) rather than block on the oldest: new jobs keep
 * being prefetched meanwhile, so the pool does not run dry behind one
 * slow compile (measured on 2 H200s: blocking there left the GPUs of an
 * mpirun -np 2 run idle about half the time). Each job's results go to
 * its own proxy, so the order they are measured in changes no decision. */
static void *queue_thread(void *p)
{
    struct lq *q = p;
    int broken = 0;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->head && !q->quit)
            pthread_cond_wait(&q->cv, &q->mu);
        if (q->quit)
            break;
        prefetch_queued(q);
        struct job *j = take_job(q, broken || !q->hk.poll);
        if (!j) {
            broken = wait_compiles(q) != 0;
            continue;
        }
        pthread_mutex_unlock(&q->mu);
        if (j->best_ns > 0 && q->in.ops->set_best)
            q->in.ops->set_best(q->in.self, j->best_ns);
        if (q->in.ops->set_deadline)
            q->in.ops->set_deadline(q->in.self, j->deadline_ns);
        int rc = q->in.ops->eval_batch(q->in.self, j->cands, j->n, keep, j);
        pthread_mutex_lock(&q->mu);
        j->rc = rc ? rc : j->got < j->n ? KEVO_ENOMEM : KEVO_OK;
        j->done = 1;
        pthread_cond_broadcast(&q->cv);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

static int lq_batch(void *self, const struct candidate *const *c, int n,
                    eval_cb cb, void *ud)
{
    struct lslot *s = self;
    struct lq *q = s->q;
    if (n <= 0)
        return KEVO_OK;
    struct job j = {c, n, s->best_ns, s->deadline_ns,
                    calloc((size_t)n, sizeof *j.res), 0, KEVO_OK, 0, 0, 0,
                    NULL};
    if (!j.res)
        return KEVO_ENOMEM;
    pthread_mutex_lock(&q->mu);
    if (q->tail)
        q->tail->next = &j;
    else
        q->head = &j;
    q->tail = &j;
    s->cur = &j;
    pthread_cond_broadcast(&q->cv);
    while (!j.done)
        pthread_cond_wait(&q->cv, &q->mu);
    s->cur = NULL;
    pthread_mutex_unlock(&q->mu);
    if (j.given_back) { /* nothing measured: all of it deferred (past
                           its deadline, as at the deadline) */
        int kind = j.deadline_ns > 0 && fs_now_ns() >= j.deadline_ns ? 2 : 1;
        for (int i = 0; i < n; i++)
            j.res[i].deferred = kind;
        j.got = n;
    }
    int rc = KEVO_OK;
    for (int i = 0; i < j.got; i++) {
        if (!rc && cb(ud, i, &j.res[i]))
            rc = KEVO_ESTOPPED;
        eval_result_release(&j.res[i]);
    }
    free(j.res);
    return rc ? rc : j.rc;
}

static void lq_set_best(void *self, double best_median_ns)
{
    ((struct lslot *)self)->best_ns = best_median_ns;
}

/* Takes the slot's job off the queue if the queue's thread has not
 * started it (eval.h give_back): it comes back deferred, unmeasured; one
 * started ends as usual. */
static void lq_give_back(void *self)
{
    struct lslot *s = self;
    struct lq *q = s->q;
    pthread_mutex_lock(&q->mu);
    struct job *prev = NULL, *j = q->head;
    while (j && j != s->cur) {
        prev = j;
        j = j->next;
    }
    if (j) { /* still queued */
        unlink_job(q, prev, j);
        j->given_back = j->done = 1;
        pthread_cond_broadcast(&q->cv);
    }
    pthread_mutex_unlock(&q->mu);
}

/* (the evaluator is told before each job it measures) */
static void lq_set_deadline(void *self, long long at_ns)
{
    ((struct lslot *)self)->deadline_ns = at_ns > 0 ? at_ns : 0;
}

static int lq_confirm(void *self, const struct candidate *ch,
                      const struct candidate *in, int *accept, double *ratio,
                      double *noise)
{
    struct lq *q = ((struct lslot *)self)->q;
    return q->in.ops->confirm(q->in.self, ch, in, accept, ratio, noise);
}

/* Between batches, like confirm (the queue thread has no job then). */
static int lq_profile(void *self, const struct candidate *c, struct kprof *out)
{
    struct lq *q = ((struct lslot *)self)->q;
    return q->in.ops->profile(q->in.self, c, out);
}

static void lq_profile_soon(void *self)
{
    struct lq *q = ((struct lslot *)self)->q;
    q->in.ops->profile_soon(q->in.self);
}

static int lq_admit(void *self, const struct tpl *t, const int64_t *vals)
{
    struct lq *q = ((struct lslot *)self)->q;
    return q->in.ops->admit(q->in.self, t, vals);
}

static char *lq_environment(void *self)
{
    struct lq *q = ((struct lslot *)self)->q;
    return q->in.ops->environment ? q->in.ops->environment(q->in.self)
                                  : NULL;
}

static void lq_free(struct lq *q)
{
    pthread_mutex_lock(&q->mu);
    q->quit = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    pthread_join(q->th, NULL);
    q->in.ops->destroy(q->in.self);
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
    free(q);
}

/* The last proxy stops the thread and destroys the evaluator. */
static void lq_destroy(void *self)
{
    struct lslot *s = self;
    struct lq *q = s->q;
    pthread_mutex_lock(&q->mu);
    int last = --q->refs == 0;
    pthread_mutex_unlock(&q->mu);
    free(s);
    if (last)
        lq_free(q);
}

int localq_waiting(const struct evaluator *proxy)
{
    struct lq *q = ((struct lslot *)proxy->self)->q;
    int n = 0;
    pthread_mutex_lock(&q->mu);
    for (struct job *j = q->head; j; j = j->next)
        n++;
    pthread_mutex_unlock(&q->mu);
    return n;
}

static const struct evaluator_ops lq_ops = {
    .name = "localq",
    .eval_batch = lq_batch,
    .set_best = lq_set_best,
    .set_deadline = lq_set_deadline,
    .give_back = lq_give_back,
    .destroy = lq_destroy,
};

int localq_new(struct evaluator inner, int depth,
               const struct localq_hooks *hooks, struct evaluator *out)
{
    struct lq *q = calloc(1, sizeof *q);
    if (!q) {
        inner.ops->destroy(inner.self);
        return KEVO_ENOMEM;
    }
    q->in = inner;
    if (hooks)
        q->hk = *hooks;
    q->ops0 = lq_ops;
    q->ops0.confirm = inner.ops->confirm ? lq_confirm : NULL;
    q->ops0.admit = inner.ops->admit ? lq_admit : NULL;
    q->ops0.profile = inner.ops->profile ? lq_profile : NULL;
    q->ops0.profile_soon = inner.ops->profile_soon ? lq_profile_soon : NULL;
    q->ops0.environment = lq_environment;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    /* the queue thread leaves signals to the thread that handles them */
    if (cpus_thread(&q->th, queue_thread, q)) {
        pthread_cond_destroy(&q->cv);
        pthread_mutex_destroy(&q->mu);
        free(q);
        inner.ops->destroy(inner.self);
        return KEVO_ENOMEM;
    }
    for (int k = 0; k < depth; k++) {
        struct lslot *s = calloc(1, sizeof *s);
        if (!s) {
            int made = q->refs;
            if (made == 0)
                lq_free(q);
            while (made-- > 0)
                lq_destroy(out[made].self);
            return KEVO_ENOMEM;
        }
        s->q = q;
        out[k] = (struct evaluator){k == 0 ? &q->ops0 : &lq_ops, s};
        q->refs++;
    }
    return KEVO_OK;
}
