/*
 * test_localq.c - the evaluator queue (localq.h) over a fake evaluator
 * whose compiles the test decides: a batch whose candidates are compiled
 * is measured before an older one still compiling; while none is
 * compiled the queue waits (polling) and prefetches batches that come
 * meanwhile instead of blocking on the oldest; arrival order without
 * hooks; every queued batch prefetched once, each result delivered to its
 * own proxy; a batch past its deadline measured at once; a queued one
 * given back. The queue's state is observed through localq_waiting and the
 * fake's counters, never through sleeps.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "localq.h"

/* ---- the fake evaluator */

struct fake {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int started;              /* eval_batch calls begun */
    int gate;                 /* 1: the first call may finish */
    uint64_t order[8];        /* genome hashes in the order evaluated */
    int n_order;
    uint64_t prefetched[8];   /* in the order prefetched */
    int n_prefetched;
    uint64_t compiled;        /* bit h: ready() answers 1 for hash h */
    int polls;                /* poll() calls */
    int poll_compiles;        /* 1: a poll() compiles everything */
    long long deadline;       /* the last set_deadline it was told */
};

static void wait_until(struct fake *f, const int *flag, int want)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 10;
    while (*flag < want && !pthread_cond_timedwait(&f->cv, &f->mu, &dl))
        ;
}

static int fake_batch(void *self, const struct candidate *const *cands,
                      int n, eval_cb cb, void *ud)
{
    struct fake *f = self;
    pthread_mutex_lock(&f->mu);
    int first = f->started++ == 0;
    pthread_cond_broadcast(&f->cv);
    if (first) /* holds the GPU until the test has queued the others */
        wait_until(f, &f->gate, 1);
    for (int i = 0; i < n && f->n_order < 8; i++)
        f->order[f->n_order++] = cands[i]->genome_hash;
    pthread_mutex_unlock(&f->mu);
    for (int i = 0; i < n; i++) {
        struct eval_result r;
        memset(&r, 0, sizeof r);
        r.outcome = EVAL_OK;
        r.median_ns = (double)cands[i]->genome_hash; /* whose result */
        if (cb(ud, i, &r))
            return KEVO_ESTOPPED;
    }
    return KEVO_OK;
}

static void fake_destroy(void *self) { (void)self; }

static const struct evaluator_ops fake_ops = {
    .name = "fake",
    .eval_batch = fake_batch,
    .destroy = fake_destroy,
};

static void fake_set_deadline(void *self, long long at_ns)
{
    struct fake *f = self;
    pthread_mutex_lock(&f->mu);
    f->deadline = at_ns;
    pthread_mutex_unlock(&f->mu);
}

static const struct evaluator_ops fake_ops_dl = {
    .name = "fake",
    .eval_batch = fake_batch,
    .set_deadline = fake_set_deadline,
    .destroy = fake_destroy,
};

static void fake_prefetch(void *self, const struct candidate *const *cands,
                          int n)
{
    struct fake *f = self;
    pthread_mutex_lock(&f->mu);
    for (int i = 0; i < n && f->n_prefetched < 8; i++)
        f->prefetched[f->n_prefetched++] = cands[i]->genome_hash;
    pthread_mutex_unlock(&f->mu);
}

/* Called by the queue with its own lock held, never with f->mu. */
static int fake_ready(void *self, const struct candidate *c)
{
    struct fake *f = self;
    uint64_t m = __atomic_load_n(&f->compiled, __ATOMIC_SEQ_CST);
    return (int)(m >> c->genome_hash & 1);
}

static void compile_all(struct fake *f)
{
    __atomic_store_n(&f->compiled, ~(uint64_t)0, __ATOMIC_SEQ_CST);
}

static int fake_poll(void *self)
{
    struct fake *f = self;
    __atomic_add_fetch(&f->polls, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&f->poll_compiles, __ATOMIC_SEQ_CST))
        compile_all(f);
    return 0;
}

static void fake_init(struct fake *f)
{
    memset(f, 0, sizeof *f);
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
}

static void fake_release(struct fake *f)
{
    pthread_mutex_lock(&f->mu);
    f->gate = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
}

/* Polls (1 ms steps, up to 10 s) until *v >= want; returns *v. */
static int await_count(const int *v, int want)
{
    for (int i = 0; i < 10000 && __atomic_load_n(v, __ATOMIC_SEQ_CST) < want;
         i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    return __atomic_load_n(v, __ATOMIC_SEQ_CST);
}

/* ---- a proxy driven from its own thread */

struct client {
    struct evaluator px;
    struct candidate cand;
    double got;               /* median_ns of the result it received */
    int deferred;             /* its r->deferred */
    int rc;
    pthread_t th;
};

static int keep(void *ud, int index, const struct eval_result *r)
{
    (void)index;
    ((struct client *)ud)->got = r->median_ns;
    ((struct client *)ud)->deferred = r->deferred;
    return 0;
}

static void *client_main(void *p)
{
    struct client *c = p;
    const struct candidate *one = &c->cand;
    c->rc = c->px.ops->eval_batch(c->px.self, &one, 1, keep, c);
    return NULL;
}

static void start(struct client *c, struct evaluator px, uint64_t hash)
{
    memset(c, 0, sizeof *c);
    c->px = px;
    c->cand.genome_hash = hash;
    pthread_create(&c->th, NULL, client_main, c);
}

static void await_waiting(const struct evaluator *px, int want)
{
    for (int i = 0; i < 10000 && localq_waiting(px) < want; i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
}

/* Batch 1 is measured while 2 (not compiled) and then 3 (compiled) queue
 * up; f records the order the fake measured them in. */
static void run_three(const struct localq_hooks *hooks, struct fake *f)
{
    fake_init(f);
    f->compiled = 1u << 1 | 1u << 3;
    f->poll_compiles = 1;
    struct evaluator px[3];
    CHECK(localq_new((struct evaluator){&fake_ops, f}, 3, hooks, px) ==
          KEVO_OK);
    struct client c[3];
    start(&c[0], px[0], 1);
    pthread_mutex_lock(&f->mu);
    wait_until(f, &f->started, 1); /* 1 is on the GPU */
    pthread_mutex_unlock(&f->mu);
    start(&c[1], px[1], 2);
    await_waiting(&px[0], 1);
    start(&c[2], px[2], 3);
    await_waiting(&px[0], 2);
    CHECK(localq_waiting(&px[0]) == 2);
    fake_release(f);
    for (int i = 0; i < 3; i++) {
        pthread_join(c[i].th, NULL);
        CHECK(c[i].rc == KEVO_OK);
        CHECK_MSG(c[i].got == (double)(i + 1), "proxy %d got %g", i,
                  c[i].got);
    }
    CHECK(localq_waiting(&px[0]) == 0);
    for (int i = 0; i < 3; i++)
        px[i].ops->destroy(px[i].self);
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
}

static void compiled_first(void)
{
    const struct localq_hooks hooks = {fake_prefetch, fake_ready, fake_poll};
    struct fake f;
    run_three(&hooks, &f);
    CHECK(f.n_order == 3);
    CHECK(f.order[0] == 1 && f.order[1] == 3 && f.order[2] == 2);
    CHECK(f.polls >= 1); /* 2 was waited for, not taken uncompiled */
    /* each batch prefetched once, in arrival order */
    CHECK(f.n_prefetched == 3);
    CHECK(f.prefetched[0] == 1 && f.prefetched[1] == 2 &&
          f.prefetched[2] == 3);
}

static void no_poll_takes_oldest(void)
{
    const struct localq_hooks hooks = {fake_prefetch, fake_ready, NULL};
    struct fake f;
    run_three(&hooks, &f);
    CHECK(f.n_order == 3);
    CHECK(f.order[0] == 1 && f.order[1] == 3 && f.order[2] == 2);
    CHECK(f.polls == 0);
}

static void arrival_order(void)
{
    struct fake f;
    run_three(NULL, &f);
    CHECK(f.n_order == 3);
    CHECK(f.order[0] == 1 && f.order[1] == 2 && f.order[2] == 3);
    CHECK(f.n_prefetched == 0);
}

/* While batch 2's compile runs (nothing ready), batch 4 comes: it is
 * prefetched before anything more is measured, and both are measured once
 * compiled. */
static void prefetch_while_waiting(void)
{
    const struct localq_hooks hooks = {fake_prefetch, fake_ready, fake_poll};
    struct fake f;
    fake_init(&f);
    f.compiled = 1u << 1;
    f.gate = 1;
    struct evaluator px[2];
    CHECK(localq_new((struct evaluator){&fake_ops, &f}, 2, &hooks, px) ==
          KEVO_OK);
    struct client c[3];
    start(&c[0], px[0], 1);
    pthread_join(c[0].th, NULL);
    start(&c[1], px[1], 2);
    int polls = await_count(&f.polls, 3); /* it waits on 2's compile */
    CHECK(polls >= 3);
    start(&c[2], px[0], 4);
    CHECK(await_count(&f.n_prefetched, 3) == 3);
    pthread_mutex_lock(&f.mu);
    CHECK(f.n_order == 1); /* neither 2 nor 4 measured uncompiled */
    CHECK(f.prefetched[1] == 2 && f.prefetched[2] == 4);
    pthread_mutex_unlock(&f.mu);
    compile_all(&f);
    pthread_join(c[1].th, NULL);
    pthread_join(c[2].th, NULL);
    CHECK(c[1].rc == KEVO_OK && c[1].got == 2.0);
    CHECK(c[2].rc == KEVO_OK && c[2].got == 4.0);
    CHECK(f.n_order == 3 && f.order[1] == 2 && f.order[2] == 4);
    for (int i = 0; i < 2; i++)
        px[i].ops->destroy(px[i].self);
    pthread_cond_destroy(&f.cv);
    pthread_mutex_destroy(&f.mu);
}

/* A batch past its deadline is measured at once, compiled or not (its
 * evaluator, told the deadline first, hands back what it cannot measure);
 * the next batch, deadline lifted, waits for its compile again. */
static void deadline_at_once(void)
{
    const struct localq_hooks hooks = {fake_prefetch, fake_ready, fake_poll};
    struct fake f;
    fake_init(&f);
    f.gate = 1;
    struct evaluator px[1];
    CHECK(localq_new((struct evaluator){&fake_ops_dl, &f}, 1, &hooks, px) ==
          KEVO_OK);
    CHECK(px[0].ops->set_deadline != NULL);
    long long at = 12345; /* (fs_now_ns: long past) */
    px[0].ops->set_deadline(px[0].self, at);
    struct client c;
    start(&c, px[0], 5); /* never compiled: poll does not compile */
    pthread_join(c.th, NULL);
    CHECK(c.rc == KEVO_OK && c.got == 5.0);
    pthread_mutex_lock(&f.mu);
    CHECK(f.deadline == at && f.n_order == 1);
    pthread_mutex_unlock(&f.mu);
    px[0].ops->set_deadline(px[0].self, 0);
    start(&c, px[0], 6);
    int polls = await_count(&f.polls,
                            __atomic_load_n(&f.polls, __ATOMIC_SEQ_CST) + 3);
    pthread_mutex_lock(&f.mu);
    CHECK(f.n_order == 1 && polls >= 3); /* waits for 6's compile */
    pthread_mutex_unlock(&f.mu);
    compile_all(&f);
    pthread_join(c.th, NULL);
    CHECK(c.rc == KEVO_OK && c.got == 6.0 && f.deadline == 0);
    px[0].ops->destroy(px[0].self);
    pthread_cond_destroy(&f.cv);
    pthread_mutex_destroy(&f.mu);
}

/* give_back takes a queued job off the queue (it comes back deferred,
 * unmeasured); one being measured, or none, is left alone. */
static void give_back_queued(void)
{
    const struct localq_hooks hooks = {fake_prefetch, fake_ready, fake_poll};
    struct fake f;
    fake_init(&f);
    f.compiled = 1u << 1;
    struct evaluator px[2];
    CHECK(localq_new((struct evaluator){&fake_ops, &f}, 2, &hooks, px) ==
          KEVO_OK);
    CHECK(px[0].ops->give_back != NULL && px[1].ops->give_back != NULL);
    px[1].ops->give_back(px[1].self); /* nothing in flight: nothing */
    struct client c[2];
    start(&c[0], px[0], 1); /* compiled: on the GPU, held by the gate */
    pthread_mutex_lock(&f.mu);
    wait_until(&f, &f.started, 1);
    pthread_mutex_unlock(&f.mu);
    start(&c[1], px[1], 2); /* never compiled: waits in the queue */
    await_waiting(&px[0], 1);
    px[0].ops->give_back(px[0].self); /* being measured: left alone */
    px[1].ops->give_back(px[1].self);
    pthread_join(c[1].th, NULL);
    CHECK(c[1].rc == KEVO_OK && c[1].deferred == 1 && c[1].got == 0);
    CHECK(localq_waiting(&px[0]) == 0);
    fake_release(&f);
    pthread_join(c[0].th, NULL);
    CHECK(c[0].rc == KEVO_OK && c[0].deferred == 0 && c[0].got == 1.0);
    CHECK(f.n_order == 1);
    for (int i = 0; i < 2; i++)
        px[i].ops->destroy(px[i].self);
    pthread_cond_destroy(&f.cv);
    pthread_mutex_destroy(&f.mu);
}

int main(void)
{
    RUN(compiled_first, "a batch already compiled is measured before an "
                        "older one still compiling, results to their own "
                        "proxies");
    RUN(no_poll_takes_oldest, "without a poll hook the oldest batch is "
                              "taken when none is compiled");
    RUN(arrival_order, "without hooks batches are measured in arrival "
                       "order");
    RUN(prefetch_while_waiting, "while no batch is compiled the queue "
                                "waits, and a batch that comes meanwhile "
                                "starts compiling at once");
    RUN(give_back_queued, "give_back takes a queued job off the queue, "
                          "deferred and unmeasured; one being measured is "
                          "left alone");
    RUN(deadline_at_once, "a batch past its deadline is measured at once, "
                          "its evaluator told the deadline; lifted, the "
                          "queue waits for compiles again");
    TEST_DONE();
}
