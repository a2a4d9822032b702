/*
 * fanout.c - one evaluator over several (see fanout.h).
 *
 * A batch is a row of slots, one per candidate. One thread per live
 * sub-evaluator takes pending slots (the first one in the batch's order,
 * or its share of the ready ones: next_slots), evaluates them and stores
 * their results; the calling thread waits on a condition
 * variable and hands results to the callback in index order as the
 * prefix fills up. All shared state is under one mutex; a sub-evaluator
 * is only ever called from its own thread during a batch, and from the
 * calling thread between batches (confirm, environment), so sub-evaluators
 * need no locking of their own (a resource they share, such as a compile
 * pool, does). The worker threads block every signal: Ctrl-C reaches the
 * calling thread, whose callback decides to stop.
 *
 * The threads live as long as the fan-out, not one batch: a GPU worker
 * process asks for SIGKILL when the thread that forked it ends
 * (PR_SET_PDEATHSIG, worker.c), and a worker restarted after a crash is
 * forked by its sub-evaluator's thread.
 */
#include "fanout.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "cpus.h"
#include "fsutil.h"

#define DEFAULT_MAX_FAILURES 3
#define REPORT_QUEUE 16  /* report lines waiting for the calling thread */
#define REPORT_LINE 256

enum slot_state { SL_PENDING, SL_RUNNING, SL_DONE };

struct slot {
    enum slot_state st;
    int ready;              /* 1: opts.ready said so (it stays so) */
    int asked;              /* 1: opts.ready was asked about it */
    int avoid;              /* sub that last failed on it, -1 = none */
    int tries;              /* failed attempts so far */
    int sub;                /* the sub it last went to */
    int built;              /* 1: opts.built said so (it stays so) */
    int need;               /* 1: it needed a compile when it went out
                               (not built; group_full) */
    struct eval_result r;   /* once SL_DONE; owned */
};

struct sub {
    struct fanout_sub s;
    int fails;              /* failed evaluations in a row */
    int dropped;            /* 1: no longer used */
    int last_rc;            /* status of its last failure */
};

struct fanout;

struct worker_arg {
    struct fanout *f;
    int k;                  /* index in f->subs */
    int on;                 /* 1: takes part in the current batch */
};

struct fanout {
    struct evaluator_ops ops; /* what sub 0 offers, with our functions */
    struct fanout_opts o;
    struct sub subs[FANOUT_MAX_SUBS];
    int n;
    int alive;              /* subs not dropped */
    double engine_best;     /* from set_best; 0 = none */
    double seen_best;       /* fastest uncascaded ok time of any sub */
    char last_err[160];     /* the last failure, for the final error */
    char queued[REPORT_QUEUE][REPORT_LINE]; /* reports not yet emitted */
    int n_queued;
    /* the batch in flight (under mu) */
    pthread_mutex_t mu;
    pthread_cond_t cv;      /* a slot finished or a sub gave up */
    const struct candidate *const *cands;
    const int *ord;         /* the order slots are handed out in */
    struct slot *sl;
    int n_cands;
    int running;            /* threads still on the current batch */
    long batch;             /* batches started (threads wait for the next) */
    int quit;               /* 1: threads end (destroy) */
    int n_threads;          /* threads started (one per sub, at the first
                               batch that needs them) */
    pthread_t th[FANOUT_MAX_SUBS];
    struct worker_arg args[FANOUT_MAX_SUBS];
    int single;             /* 1: run_single is in eval_batch */
    int stop;               /* 1: take no more work */
    int fatal;              /* status that ends the batch, or 0 */
    int wait_broken;        /* 1: opts.wait_ready failed; not used again */
    int defer_max;          /* candidates a batch may defer (set_defer) */
    long long deadline_ns;  /* set_deadline's (fs_now_ns; 0: none) */
    int drop;               /* set_drop's: optional candidates may drop */
    long long req_ms;       /* when a required candidate was last taken or
                               finished (mono_ms) */
    int gave_back;          /* 1: give_back_rest asked this batch's subs */
    int ended;              /* 1: give_back_all did, at the deadline */
    long long opt_ask_ms;   /* when drop_rest last asked subs for the
                               optional candidates they hold (mono_ms) */
    long long last_end_ms;  /* when a sub last ended a call (mono_ms) */
    int ask_from;           /* next_slots: the not-ready slots it asks again */
};

static void emit(struct fanout *f, const char *line)
{
    if (f->o.report)
        f->o.report(f->o.report_ud, line);
    else
        fprintf(stderr, "kevo: %s\n", line);
}

/* Queues a report line (mutex held): the calling thread emits it
 * (flush_reports), so that the report hook runs where the engine's
 * progress output does. */
static void KEVO_PRINTF(2, 3) report(struct fanout *f, const char *fmt, ...)
{
    char line[REPORT_LINE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (f->n_queued < REPORT_QUEUE)
        memcpy(f->queued[f->n_queued++], line, sizeof line);
    else /* a burst: out at once rather than lost */
        fprintf(stderr, "kevo: %s\n", line);
}

/* Emits the queued reports; calling thread, mutex held (let go meanwhile). */
static void flush_reports(struct fanout *f)
{
    char lines[REPORT_QUEUE][REPORT_LINE];
    int n = f->n_queued;
    memcpy(lines, f->queued, (size_t)n * sizeof lines[0]);
    f->n_queued = 0;
    if (!n)
        return;
    pthread_mutex_unlock(&f->mu);
    for (int i = 0; i < n; i++)
        emit(f, lines[i]);
    pthread_mutex_lock(&f->mu);
}

/* The cascade reference passed on to a sub before each candidate. */
static double race_best(const struct fanout *f)
{
    double b = f->engine_best;
    if (f->seen_best > 0 && (b <= 0 || f->seen_best < b))
        b = f->seen_best;
    return b;
}

/* Keeps seen_best up to date with a result's uncascaded ok time. */
static void note_best(struct fanout *f, const struct eval_result *r)
{
    if (r->outcome == EVAL_OK && r->median_ns > 0 && !r->cascaded &&
        (f->seen_best <= 0 || r->median_ns < f->seen_best))
        f->seen_best = r->median_ns;
}

/* 1 if slot i's candidate may be dropped (eval.h set_drop). */
static int optional(const struct fanout *f, int i)
{
    return f->drop && f->cands[i]->optional;
}

static int past_deadline(const struct fanout *f)
{
    return f->deadline_ns > 0 && fs_now_ns() >= f->deadline_ns;
}

/* ---- one sub-evaluator's thread */

/* The slots a sub took for one call of its eval_batch, and their
 * results. */
struct taken {
    struct fanout *f;
    int n;
    int slot[FANOUT_TAKE_MAX];
    struct eval_result r[FANOUT_TAKE_MAX]; /* deep copies of the sub's */
    int got[FANOUT_TAKE_MAX];              /* 1: r set */
    int nomem[FANOUT_TAKE_MAX];            /* 1: its evidence was not
                                              copied */
};

static int take_result(void *ud, int index, const struct eval_result *r)
{
    struct taken *t = ud;
    if (index < 0 || index >= t->n || t->got[index])
        return 1; /* not one it was given: a broken sub */
    t->nomem[index] = eval_result_copy(&t->r[index], r) != KEVO_OK;
    t->got[index] = 1;
    /* the batch was stopped (Ctrl-C, the time budget): measure no more */
    return __atomic_load_n(&t->f->stop, __ATOMIC_RELAXED);
}

/* A free sub with nothing ready waits for a compile in steps of
 * WAIT_STEP_MS; after WAIT_MAX_MS in a row it takes the first pending
 * one anyway (a ready hook that never says yes must not stall a batch). */
#define WAIT_STEP_MS 20
#define WAIT_MAX_MS 10000

static long long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#define ASK_AGAIN 32

/* Without opts.ready, a required candidate that needs no compile
 * (opts.built) goes out with its share (over the live subs) of the
 * required ones after it in the order that need none either, up to
 * opts.take in one call: a sub that compiles what it holds (an MPI
 * rank) then measures them back to back, one message each way, instead
 * of waiting a round trip between them (softmax fp32 4096^2 under
 * mpirun -np 2 on two H200s: 1.8 ms of GPU idle an evaluation against
 * 0.3 ms on the fan-out of two GPUs). The ones that need a compile stay
 * first in line for the next free sub. t holds the one at ord[from]. */
static int is_built(struct fanout *f, int i);

static void built_share(struct fanout *f, int k, int from, struct taken *t)
{
    int cand[FANOUT_TAKE_MAX - 1], n = 0, total = 1;
    int enough = f->o.take * f->alive; /* (share at its most) */
    for (int j = from + 1; j < f->n_cands && total < enough; j++) {
        int i = f->ord[j];
        const struct slot *s = &f->sl[i];
        if (s->st != SL_PENDING || (s->avoid == k && f->alive > 1))
            continue;
        if (optional(f, i))
            break; /* (last: never with a required one) */
        if (!is_built(f, i))
            continue;
        total++;
        if (n < f->o.take - 1)
            cand[n++] = i;
    }
    int share = total / f->alive;
    if (share > f->o.take)
        share = f->o.take;
    for (int j = 0; j < n && t->n < share; j++)
        t->slot[t->n++] = cand[j];
}

/* 1 if slot i's candidate needs no compile (opts.built; once it says
 * so, the slot keeps it). */
static int is_built(struct fanout *f, int i)
{
    struct slot *s = &f->sl[i];
    if (!s->built && f->o.built)
        s->built = f->o.built(f->o.prefetch_ud, f->cands[i]) != 0;
    return s->built;
}

/* 1 if sub k's group (the subs with its gpu id: one MPI rank's slots)
 * holds opts.group_compiles candidates that needed a compile when they
 * went out. */
static int group_full(const struct fanout *f, int k)
{
    if (f->o.group_compiles <= 0)
        return 0;
    int n = 0;
    for (int i = 0; i < f->n_cands; i++) {
        const struct slot *s = &f->sl[i];
        n += s->st == SL_RUNNING && s->need &&
             f->subs[s->sub].s.gpu == f->subs[k].s.gpu;
    }
    return n >= f->o.group_compiles;
}

/* next_slots without opts.ready: subs that compile what they hold. Sub
 * k takes the first pending required candidate in the order (with its
 * share of the ones that need no compile, if it needs none:
 * built_share); while its group holds as many compiles as it runs at
 * once (opts.group_compiles), one that needs no compile first, else an
 * optional one, else that first one all the same. An optional one goes
 * out alone, built, and only while a required one is not yet measured
 * (pending, or held by a sub: compiling or being measured). Returns how
 * many it
 * took; -1 if none is for it. */
static int next_held(struct fanout *f, int k, struct taken *t)
{
    int first = -1, built = -1, opt = -1, req_open = 0;
    int full = group_full(f, k);
    t->n = 0;
    for (int j = 0; j < f->n_cands; j++) {
        int i = f->ord[j];
        const struct slot *s = &f->sl[i];
        int o = optional(f, i);
        req_open |= !o && s->st != SL_DONE;
        if (s->st != SL_PENDING || (s->avoid == k && f->alive > 1))
            continue;
        if (o) { /* (last in the order) */
            if (req_open && is_built(f, i)) {
                opt = j;
                break;
            }
            continue;
        }
        if (first < 0)
            first = j;
        if (built < 0 && is_built(f, i))
            built = j;
        if (built >= 0 || (first >= 0 && !full))
            break;
    }
    int j = first;
    if (full && built >= 0)
        j = built;
    else if (full && opt >= 0)
        j = opt;
    else if (first < 0)
        j = opt;
    if (j < 0)
        return -1;
    t->slot[t->n++] = f->ord[j];
    if (j != opt && is_built(f, f->ord[j]))
        built_share(f, k, j, t);
    return t->n;
}

/* What sub k takes now (mutex held), into t: with opts.ready, its share
 * of the pending slots that are ready (their number over the live subs,
 * 1 to opts.take), the first ones in the batch's order; if none is
 * ready, the first pending one, or nothing when it may wait for one
 * (returns 0). Without opts.ready, the first pending one. A slot that
 * failed on k goes to another sub while one is alive. With set_drop, an
 * optional slot is taken alone, ready, and only while a required one is
 * pending. Returns how many it took; -1 if none is pending for it. */
static int next_slots(struct fanout *f, int k, struct taken *t, int may_wait)
{
    if (!f->o.ready)
        return next_held(f, k, t);
    int first = -1, n_ready = 0, enough = f->o.take * f->alive;
    int q = 0, j = 0; /* slots met that said no before */
    int req_pending = 0;
    t->n = 0;
    for (; j < f->n_cands && n_ready < enough; j++) {
        int i = f->ord[j];
        struct slot *s = &f->sl[i];
        if (s->st != SL_PENDING)
            continue;
        int opt = optional(f, i);
        /* optional ones come last (optional_last): one a call, never with
         * a required one, and only while a required one waits for its
         * compile, so that they never make the batch longer */
        if (opt && (!req_pending || t->n > 0))
            break;
        req_pending |= !opt;
        if (s->avoid == k && f->alive > 1)
            continue;
        if (first < 0 && !opt)
            first = i;
        /* each pending slot is asked once; of those that said no, ASK_AGAIN
         * a look, the next ones each look (asking costs a hash of the
         * source; the first in the order may be the longest compiles) */
        int ask = !s->ready && !s->asked;
        if (!s->ready && s->asked) {
            ask = q >= f->ask_from && q < f->ask_from + ASK_AGAIN;
            q++;
        }
        if (ask) {
            s->asked = 1;
            s->ready = f->o.ready(f->o.prefetch_ud, f->cands[i]) != 0;
        }
        if (s->ready && t->n < f->o.take)
            t->slot[t->n++] = i;
        n_ready += s->ready;
    }
    if (j == f->n_cands) /* looked at all: the next look asks the next ones */
        f->ask_from = f->ask_from + ASK_AGAIN < q ? f->ask_from + ASK_AGAIN : 0;
    if (first < 0)
        return -1;
    if (n_ready == 0) {
        if (may_wait && f->o.wait_ready)
            return 0;
        t->slot[t->n++] = first;
        return 1;
    }
    int share = n_ready / f->alive;
    t->n = share < 1 ? 1 : share < t->n ? share : t->n;
    return t->n;
}

/* Counts a failure of sub k (under mu); drops it after max_failures. */
static void count_failure(struct fanout *f, int k, int rc)
{
    struct sub *u = &f->subs[k];
    u->fails++;
    u->last_rc = rc;
    snprintf(f->last_err, sizeof f->last_err, "%s failed: %s", u->s.label,
             kevo_strerror(rc));
    if (u->fails >= f->o.max_failures) {
        u->dropped = 1;
        f->alive--;
        report(f, "%s failed %d times in a row: dropped, %d left",
               u->s.label, u->fails, f->alive);
    }
}

/* Sub k failed on slot i with rc (called under mu). */
static void failed(struct fanout *f, int k, int i, int rc)
{
    struct slot *s = &f->sl[i];
    s->st = SL_PENDING;
    s->avoid = k;
    s->tries++;
    report(f, "%s failed on candidate %d of the batch (%s); it goes to "
           "another evaluator", f->subs[k].s.label, i, kevo_strerror(rc));
    count_failure(f, k, rc);
    if (s->tries > f->n + f->o.max_failures && !f->fatal)
        f->fatal = rc; /* the candidate itself seems to break them */
}

/* The only sub in use, k, failed at candidate i of the whole batch. */
static void failed_single(struct fanout *f, int k, int i, int rc)
{
    report(f, "%s failed on candidate %d of the batch (%s); it is tried "
           "again", f->subs[k].s.label, i, kevo_strerror(rc));
    count_failure(f, k, rc);
}

/* Evaluates the slots in t on sub k and stores what came back (called
 * with the mutex held; lets go of it meanwhile). What a failing call
 * delivered before it failed counts; its first slot without a result
 * counts as the sub's failure there, the rest go back to pending. */
static void run_taken(struct fanout *f, int k, struct taken *t)
{
    struct sub *u = &f->subs[k];
    const struct candidate *cs[FANOUT_TAKE_MAX];
    for (int j = 0; j < t->n; j++) {
        f->sl[t->slot[j]].st = SL_RUNNING;
        f->sl[t->slot[j]].sub = k;
        f->sl[t->slot[j]].need = f->o.group_compiles > 0 &&
                                 !is_built(f, t->slot[j]);
        if (!optional(f, t->slot[j]))
            f->req_ms = mono_ms();
        cs[j] = f->cands[t->slot[j]];
        eval_result_init(&t->r[j]);
        t->got[j] = t->nomem[j] = 0;
    }
    double best = race_best(f);
    pthread_mutex_unlock(&f->mu);
    if (u->s.ev.ops->set_best)
        u->s.ev.ops->set_best(u->s.ev.self, best);
    t->f = f;
    int rc = u->s.ev.ops->eval_batch(u->s.ev.self, cs, t->n, take_result, t);
    for (int j = 0; j < t->n && f->o.learn; j++)
        if (t->got[j] && !t->nomem[j] && !t->r[j].deferred)
            f->o.learn(f->o.prefetch_ud, cs[j], &t->r[j]);
    pthread_mutex_lock(&f->mu);
    f->last_end_ms = mono_ms();
    /* stopped by the batch, not failed: the rest is not measured */
    int blamed = rc == KEVO_ESTOPPED && f->stop;
    for (int j = 0; j < t->n; j++) {
        struct slot *s = &f->sl[t->slot[j]];
        if (t->got[j] && !t->nomem[j]) {
            if (!optional(f, t->slot[j]))
                f->req_ms = f->last_end_ms;
            else if (t->r[j].deferred) /* the sub's deadline, or given
                                          back: optional ones drop */
                t->r[j].deferred = 3;
            u->fails = 0;
            t->r[j].gpu = u->s.gpu;
            note_best(f, &t->r[j]);
            s->r = t->r[j];
            s->st = SL_DONE;
            continue;
        }
        eval_result_release(&t->r[j]);
        if (!blamed) {
            blamed = 1;
            failed(f, k, t->slot[j], rc ? rc : t->nomem[j] ? KEVO_ENOMEM
                                                          : KEVO_EINTERNAL);
        } else {
            s->st = SL_PENDING;
        }
    }
    pthread_cond_broadcast(&f->cv);
}

/* How long the subs wait with nothing ready before the candidates still
 * compiling are deferred (eval.h set_defer). */
#define DEFER_WAIT_MS 100

/* Slot i, pending, comes back unmeasured (kind: eval_result.deferred);
 * its compile, if any, goes on into the cache. */
static void hand_back(struct fanout *f, int i, int kind)
{
    eval_result_init(&f->sl[i].r);
    f->sl[i].r.deferred = kind;
    f->sl[i].st = SL_DONE;
}

/* Defers every pending candidate, optional ones aside (mutex held), when
 * no sub is measuring one of them, none is ready and they are at most
 * defer_max; their compiles go on (the batch's prefetch started them).
 * Returns 1 if it did. */
static int defer_rest(struct fanout *f)
{
    int n = 0;
    for (int i = 0; i < f->n_cands; i++) {
        if (optional(f, i))
            continue;
        if (f->sl[i].st == SL_RUNNING)
            return 0;
        n += f->sl[i].st == SL_PENDING;
    }
    if (n == 0 || n > f->defer_max)
        return 0;
    for (int i = 0; i < f->n_cands; i++) /* none ready since the last look */
        if (f->sl[i].st == SL_PENDING && !optional(f, i) &&
            (f->sl[i].ready = f->o.ready(f->o.prefetch_ud, f->cands[i]) != 0))
            return 0;
    for (int i = 0; i < f->n_cands; i++)
        if (f->sl[i].st == SL_PENDING && !optional(f, i))
            hand_back(f, i, 1);
    pthread_cond_broadcast(&f->cv);
    return 1;
}

/* At the deadline (set_deadline): every pending candidate comes back
 * unmeasured (2; an optional one, dropped: 3), whatever defer_max; the
 * ones a sub has end as they do. Returns 1 if any did. */
static int end_rest(struct fanout *f)
{
    int n = 0;
    for (int i = 0; i < f->n_cands; i++)
        if (f->sl[i].st == SL_PENDING) {
            hand_back(f, i, optional(f, i) ? 3 : 2);
            n++;
        }
    if (n)
        pthread_cond_broadcast(&f->cv);
    return n > 0;
}

static void ask_back(struct fanout *f);

/* With every candidate but the optional ones measured or deferred, the
 * optional ones still pending are dropped (3): they fill the GPUs' wait
 * for compiles and never make the batch longer; subs that hold some
 * (without opts.ready: queues that compile what they hold) are asked to
 * give them back (they come back dropped), again every DEFER_WAIT_MS
 * while they hold them (a give_back that comes before the sub has sent
 * its batch does nothing). Returns 1 if any was dropped here. */
static int drop_rest(struct fanout *f)
{
    if (!f->drop)
        return 0;
    int any = 0, held = 0;
    for (int i = 0; i < f->n_cands; i++) {
        if (f->sl[i].st == SL_DONE)
            continue;
        if (!optional(f, i))
            return 0;
        any |= f->sl[i].st == SL_PENDING;
        held |= f->sl[i].st == SL_RUNNING;
    }
    for (int i = 0; any && i < f->n_cands; i++)
        if (f->sl[i].st == SL_PENDING)
            hand_back(f, i, 3);
    if (any)
        pthread_cond_broadcast(&f->cv);
    long long now = mono_ms();
    if (held && !f->o.ready && now - f->opt_ask_ms >= DEFER_WAIT_MS) {
        f->opt_ask_ms = now;
        ask_back(f);
    }
    return any;
}

/* With optional candidates to measure the subs seldom wait for a compile,
 * so the wait that defers (sub_batch) is not seen: once no required
 * candidate has been taken or finished for DEFER_WAIT_MS, the required
 * ones still pending are deferred if none of them is ready (defer_rest);
 * if one is, the wait starts again. Returns 1 if it deferred. */
static int defer_behind_optional(struct fanout *f)
{
    if (!f->drop || f->defer_max <= 0 || !f->o.ready)
        return 0;
    long long now = mono_ms();
    if (now - f->req_ms < DEFER_WAIT_MS)
        return 0;
    if (defer_rest(f))
        return 1;
    f->req_ms = now;
    return 0;
}

/* Asks each sub holding a candidate to give it back, if it can. */
static void ask_back(struct fanout *f)
{
    for (int i = 0; i < f->n_cands; i++) {
        struct evaluator *e = &f->subs[f->sl[i].sub].s.ev;
        if (f->sl[i].st == SL_RUNNING && e->ops->give_back)
            e->ops->give_back(e->self);
    }
}

/* Subs that cannot say what is compiled (no opts.ready: MPI ranks, whose
 * queues compile before they measure) hold the batch's last candidates
 * while their compiles run. Once none is pending, at most defer_max are
 * out and none has been taken or finished for DEFER_WAIT_MS, each sub
 * holding one is asked once to give it back (eval.h give_back): it comes
 * back deferred unless it is being measured. */
static void give_back_rest(struct fanout *f)
{
    if (f->o.ready || f->defer_max <= 0 || f->gave_back)
        return;
    int n = 0;
    for (int i = 0; i < f->n_cands; i++) {
        const struct slot *s = &f->sl[i];
        if (optional(f, i)) /* (drop_rest's) */
            continue;
        if (s->st == SL_PENDING)
            return;
        if (s->st == SL_RUNNING && !f->subs[s->sub].s.ev.ops->give_back)
            return;
        n += s->st == SL_RUNNING;
    }
    if (n == 0 || n > f->defer_max || mono_ms() - f->req_ms < DEFER_WAIT_MS)
        return;
    f->gave_back = 1;
    ask_back(f);
}

/* At the deadline: the subs still holding candidates that can give them
 * back are asked to, once (an MPI rank reads the time left only with a
 * batch, so one sent while it measured starts a little late). */
static void give_back_all(struct fanout *f)
{
    if (f->ended)
        return;
    f->ended = 1;
    ask_back(f);
}

/* 1 if the calling thread, waiting for its next result, should look
 * again soon (give_back_rest or the deadline may come due) rather than
 * wait for a slot to change. */
static int look_soon(const struct fanout *f)
{
    return (!f->o.ready && f->defer_max > 0 && !f->gave_back) ||
           (!f->o.ready && f->drop) || (f->deadline_ns > 0 && !f->ended);
}

static int settle(struct fanout *f);

/* Waits (mutex held) for a slot to change, or WAIT_STEP_MS where
 * look_soon says so (then settles). */
static void wait_slot(struct fanout *f)
{
    if (!look_soon(f)) {
        pthread_cond_wait(&f->cv, &f->mu);
        return;
    }
    struct timespec dl = fs_abstime_in(WAIT_STEP_MS * 1000000LL);
    pthread_cond_timedwait(&f->cv, &f->mu, &dl);
    settle(f);
}

/* What the deadline, the deferral and the optional candidates decide
 * (mutex held) before a sub takes more: 1 if slots were handed back. */
static int settle(struct fanout *f)
{
    if (f->stop || f->fatal)
        return 0;
    if (past_deadline(f)) {
        int any = end_rest(f);
        give_back_all(f);
        return any;
    }
    give_back_rest(f);
    return drop_rest(f) || defer_behind_optional(f);
}

/* One batch, from sub k's thread (mutex held): takes slots until none is
 * left for it. */
static void sub_batch(struct fanout *f, struct worker_arg *a)
{
    struct sub *u = &f->subs[a->k];
    struct taken t;
    long long wait_from = -1; /* when it began to wait for a ready one */
    for (;;) {
        if (settle(f))
            continue;
        int may_wait = !f->wait_broken &&
                       (wait_from < 0 || mono_ms() - wait_from < WAIT_MAX_MS);
        int got = f->stop || f->fatal || u->dropped
                      ? -1 : next_slots(f, a->k, &t, may_wait);
        if (got < 0) {
            /* nothing for us now; a failure elsewhere may hand us a slot */
            int more = 0;
            for (int j = 0; j < f->n_cands && !f->stop && !f->fatal &&
                            !u->dropped; j++)
                more |= f->sl[j].st != SL_DONE;
            if (!more)
                break;
            /* (the calling thread looks at the clock: deliver) */
            pthread_cond_wait(&f->cv, &f->mu);
            continue;
        }
        if (got == 0) { /* none ready: wait for a compile to end */
            long long now = mono_ms();
            if (wait_from < 0)
                wait_from = now;
            else if (now - wait_from >= DEFER_WAIT_MS &&
                     now - f->last_end_ms >= DEFER_WAIT_MS && defer_rest(f))
                continue;
            pthread_mutex_unlock(&f->mu);
            int bad = f->o.wait_ready(f->o.prefetch_ud, WAIT_STEP_MS);
            pthread_mutex_lock(&f->mu);
            if (bad)
                f->wait_broken = 1;
            continue;
        }
        wait_from = -1;
        run_taken(f, a->k, &t);
    }
    f->running--;
    pthread_cond_broadcast(&f->cv);
}

static void *sub_thread(void *p)
{
    struct worker_arg *a = p;
    struct fanout *f = a->f;
    long seen = 0;
    pthread_mutex_lock(&f->mu);
    for (;;) {
        while (!f->quit && f->batch == seen)
            pthread_cond_wait(&f->cv, &f->mu);
        if (f->quit)
            break;
        seen = f->batch;
        if (a->on)  /* alive when the batch started */
            sub_batch(f, a);
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

/* ---- the batch, seen from the calling thread */

/* Starts one thread per sub (once), all signals blocked in them. */
static int start_threads(struct fanout *f)
{
    for (int k = f->n_threads; k < f->n; k++) {
        f->args[k] = (struct worker_arg){f, k, 0};
        if (cpus_thread(&f->th[k], sub_thread, &f->args[k]))
            return KEVO_ENOMEM;
        f->n_threads++;
    }
    return KEVO_OK;
}

/* Hands finished slots to cb in order until the batch ends. */
static int deliver(struct fanout *f, eval_cb cb, void *ud)
{
    int rc = KEVO_OK;
    pthread_mutex_lock(&f->mu);
    for (int next = 0; next < f->n_cands;) {
        struct slot *s = &f->sl[next];
        flush_reports(f);
        if (s->st == SL_DONE) {
            struct eval_result r = s->r;
            eval_result_init(&s->r);
            pthread_mutex_unlock(&f->mu);
            int stop = cb(ud, next, &r);
            eval_result_release(&r);
            pthread_mutex_lock(&f->mu);
            next++;
            if (stop) {
                rc = KEVO_ESTOPPED;
                break;
            }
            continue;
        }
        if (f->fatal) {
            rc = f->fatal;
            break;
        }
        if (f->alive == 0 || f->running == 0) {
            rc = KEVO_ENODEV;
            break;
        }
        wait_slot(f); /* the one thread that looks at the clock: every
                         sub may be holding a candidate, idle ones wait */
    }
    __atomic_store_n(&f->stop, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    return rc;
}

/* ---- one sub-evaluator in use: the whole batch, in this thread */

/* The first sub still in use, or -1. */
static int first_alive(const struct fanout *f)
{
    for (int k = 0; k < f->n; k++)
        if (!f->subs[k].dropped)
            return k;
    return -1;
}

struct single {
    struct fanout *f;
    struct sub *u;
    eval_cb cb;
    void *ud;
    int base;       /* index in the batch of the sub's index 0 */
    int next;       /* batch index the next result will have */
    int stopped;    /* 1: cb asked to stop */
};

static int single_cb(void *p, int index, const struct eval_result *r)
{
    struct single *s = p;
    struct eval_result c = *r; /* evidence stays the sub's */
    c.gpu = s->u->s.gpu;
    s->u->fails = 0;
    s->next = s->base + index + 1;
    note_best(s->f, &c);
    if (s->cb(s->ud, s->base + index, &c))
        s->stopped = 1;
    return s->stopped;
}

static int run_single(struct fanout *f, const struct candidate *const *cands,
                      int n, eval_cb cb, void *ud)
{
    int k = first_alive(f); /* alive == 1: there is one */
    struct single s = {f, &f->subs[k], cb, ud, 0, 0, 0};
    struct evaluator *ev = &s.u->s.ev;
    f->single = 1;
    if (ev->ops->set_defer) /* its own batch: it decides */
        ev->ops->set_defer(ev->self, f->defer_max);
    if (ev->ops->set_deadline)
        ev->ops->set_deadline(ev->self, f->deadline_ns);
    if (ev->ops->set_drop)
        ev->ops->set_drop(ev->self, f->drop);
    for (;;) {
        if (ev->ops->set_best)
            ev->ops->set_best(ev->self, race_best(f));
        s.base = s.next;
        int rc = ev->ops->eval_batch(ev->self, cands + s.base, n - s.base,
                                     single_cb, &s);
        if (s.stopped || rc == KEVO_ESTOPPED) {
            rc = KEVO_ESTOPPED;
        } else if (rc) {
            pthread_mutex_lock(&f->mu);
            failed_single(f, k, s.next, rc);
            if (s.u->dropped)
                report(f, "no evaluator left (%s)", f->last_err);
            flush_reports(f);
            pthread_mutex_unlock(&f->mu);
            if (!s.u->dropped)
                continue;
            rc = KEVO_ENODEV;
        }
        f->single = 0;
        return rc;
    }
}

/* 1 if the one sub in use can take the whole batch (run_single): it
 * ends at the deadline and drops optional candidates itself where the
 * batch asks for that; else the threads below do it for it. */
static int whole_batch(const struct fanout *f)
{
    const struct evaluator_ops *o = f->subs[first_alive(f)].s.ev.ops;
    return f->alive == 1 && (!f->deadline_ns || o->set_deadline) &&
           (!f->drop || o->set_drop);
}

/* Puts the optional candidates of ord[0..n) last, each part in its order:
 * a free sub takes a required one before them. */
static void optional_last(const struct candidate *const *cands, int n,
                          int *ord)
{
    int *tmp = malloc((size_t)n * sizeof *tmp), k = 0;
    if (!tmp)
        return; /* (only an order) */
    for (int pass = 0; pass < 2; pass++)
        for (int j = 0; j < n; j++)
            if ((cands[ord[j]]->optional != 0) == pass)
                tmp[k++] = ord[j];
    memcpy(ord, tmp, (size_t)n * sizeof *ord);
    free(tmp);
}

static int fo_eval_batch(void *self, const struct candidate *const *cands,
                         int n, eval_cb cb, void *ud)
{
    struct fanout *f = self;
    if (n <= 0)
        return KEVO_OK;
    if (f->alive == 0)
        return KEVO_ENODEV;
    if (whole_batch(f))
        return run_single(f, cands, n, cb, ud);
    /* the fan-out decides what is deferred and dropped (settle); a sub
     * still starts no measurement past the deadline */
    for (int k = 0; k < f->n; k++) {
        const struct evaluator *e = &f->subs[k].s.ev;
        if (f->subs[k].dropped)
            continue;
        if (e->ops->set_defer)
            e->ops->set_defer(e->self, 0);
        if (e->ops->set_deadline)
            e->ops->set_deadline(e->self, f->deadline_ns);
        if (e->ops->set_drop)
            e->ops->set_drop(e->self, 0);
    }
    struct slot *sl = calloc((size_t)n, sizeof *sl);
    int *ord = malloc((size_t)n * sizeof *ord);
    const struct candidate **inorder = malloc((size_t)n * sizeof *inorder);
    int rc = sl && ord && inorder ? KEVO_OK : KEVO_ENOMEM;
    for (int i = 0; !rc && i < n; i++) {
        sl[i].avoid = -1;
        ord[i] = i;
    }
    if (!rc && f->o.order && f->o.order(f->o.prefetch_ud, cands, n, ord))
        for (int i = 0; i < n; i++) /* no memory for it: index order */
            ord[i] = i;
    if (!rc && f->drop)
        optional_last(cands, n, ord);
    if (!rc && f->n_threads < f->n)
        rc = start_threads(f);
    if (rc) {
        free(sl);
        free(ord);
        free(inorder);
        return rc;
    }
    for (int j = 0; j < n; j++)
        inorder[j] = cands[ord[j]];
    if (f->o.prefetch)
        f->o.prefetch(f->o.prefetch_ud, inorder, n);
    free(inorder);
    pthread_mutex_lock(&f->mu);
    f->cands = cands;
    f->ord = ord;
    f->sl = sl;
    f->n_cands = n;
    f->stop = f->fatal = 0;
    f->ask_from = 0;
    f->req_ms = mono_ms();
    f->gave_back = f->ended = 0;
    f->opt_ask_ms = 0;
    f->running = 0;
    for (int k = 0; k < f->n; k++) {
        f->args[k].on = !f->subs[k].dropped && k < f->n_threads;
        f->running += f->args[k].on;
    }
    f->batch++;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    rc = deliver(f, cb, ud);
    /* deliver has set stop: wait for the candidates still out */
    pthread_mutex_lock(&f->mu);
    while (f->running > 0)
        pthread_cond_wait(&f->cv, &f->mu);
    if (rc == KEVO_ENODEV)
        report(f, "no evaluator left (%s)", f->last_err);
    flush_reports(f);
    pthread_mutex_unlock(&f->mu);
    for (int i = 0; i < n; i++)
        eval_result_release(&sl[i].r);
    f->sl = NULL;
    f->cands = NULL;
    f->ord = NULL;
    f->n_cands = 0;
    free(sl);
    free(ord);
    return rc;
}

/* Drops sub u, which failed (rc) to <what> between batches, and reports
 * it; the caller's loop goes on with the next live sub. */
static void drop_between(struct fanout *f, struct sub *u, int rc,
                         const char *what, const char *then)
{
    u->dropped = 1;
    f->alive--;
    snprintf(f->last_err, sizeof f->last_err, "%s failed: %s", u->s.label,
             kevo_strerror(rc));
    pthread_mutex_lock(&f->mu);
    report(f, "%s failed to %s (%s): dropped, %d left%s", u->s.label, what,
           kevo_strerror(rc), f->alive, then);
    flush_reports(f);
    pthread_mutex_unlock(&f->mu);
}

/* On the first sub in use: the same GPU measures both, interleaved. A sub
 * whose confirm fails is dropped like a failed evaluation would be, and
 * the next one confirms. */
static int fo_confirm(void *self, const struct candidate *ch,
                      const struct candidate *inc, int *accept,
                      double *ratio, double *noise)
{
    struct fanout *f = self;
    for (;;) {
        int k = first_alive(f);
        if (k < 0)
            return KEVO_ENODEV;
        struct sub *u = &f->subs[k];
        if (!u->s.ev.ops->confirm) { /* a sub of another kind */
            *accept = 0;
            *ratio = *noise = 0;
            return KEVO_OK;
        }
        int rc = u->s.ev.ops->confirm(u->s.ev.self, ch, inc, accept, ratio,
                                      noise);
        if (!rc || f->alive == 1)
            return rc;
        drop_between(f, u, rc, "confirm", "; the next one confirms");
    }
}

/* Between batches, like confirm: the first live sub profiles (on its own
 * GPU; the engine's profiles are of new bests and LLM parents, whichever
 * GPU measured them). A sub that fails is dropped and the next one tries. */
static int fo_profile(void *self, const struct candidate *c, struct kprof *out)
{
    struct fanout *f = self;
    for (;;) {
        int k = first_alive(f);
        if (k < 0)
            return KEVO_ENODEV;
        struct sub *u = &f->subs[k];
        if (!u->s.ev.ops->profile) { /* a sub of another kind */
            prof_init(out);
            prof_set_unavailable(out, "%s cannot profile", u->s.label);
            return KEVO_OK;
        }
        int rc = u->s.ev.ops->profile(u->s.ev.self, c, out);
        if (!rc || f->alive == 1)
            return rc;
        drop_between(f, u, rc, "profile", "");
    }
}

/* To the sub fo_profile would ask first. */
static void fo_profile_soon(void *self)
{
    struct fanout *f = self;
    int k = first_alive(f);
    if (k >= 0 && f->subs[k].s.ev.ops->profile_soon)
        f->subs[k].s.ev.ops->profile_soon(f->subs[k].s.ev.self);
}

/* The engine may call it from its callback, mid-batch: each thread reads
 * the value under the mutex when it starts a candidate. */
static void fo_set_best(void *self, double best_median_ns)
{
    struct fanout *f = self;
    pthread_mutex_lock(&f->mu);
    f->engine_best = best_median_ns;
    pthread_mutex_unlock(&f->mu);
    if (f->single) { /* from inside its batch, in this thread: pass it on */
        int k = first_alive(f);
        struct evaluator *ev = &f->subs[k].s.ev;
        if (ev->ops->set_best)
            ev->ops->set_best(ev->self, race_best(f));
    }
}

/* Between batches. With several subs the fan-out defers (only where
 * opts.wait_ready lets a free sub wait for a ready candidate, so that
 * what is pending at a batch's end is what still compiles); one sub in
 * use decides in its own batch. */
static void fo_set_defer(void *self, int max_n)
{
    struct fanout *f = self;
    f->defer_max = max_n > 0 ? max_n : 0;
}

/* Between batches, as set_defer. */
static void fo_set_deadline(void *self, long long at_ns)
{
    ((struct fanout *)self)->deadline_ns = at_ns > 0 ? at_ns : 0;
}

static void fo_set_drop(void *self, int on)
{
    ((struct fanout *)self)->drop = on != 0;
}

/* The engine's prefetch of its next batch (eval.h), called between
 * batches: to the first sub still in use (the GPU evaluators share one
 * compile pool, so one of them queues the compiles for all). */
static void fo_prefetch(void *self, const struct candidate *const *cands,
                        int n)
{
    struct fanout *f = self;
    if (f->alive == 0)
        return;
    struct evaluator *ev = &f->subs[first_alive(f)].s.ev;
    if (ev->ops->prefetch)
        ev->ops->prefetch(ev->self, cands, n);
}

static int fo_admit(void *self, const struct tpl *t, const int64_t *vals)
{
    struct fanout *f = self;
    struct sub *u = &f->subs[0];
    return u->s.ev.ops->admit(u->s.ev.self, t, vals);
}

/* Sub 0's environment, plus "gpus": one entry per sub with its id and its
 * own environment's "device" object (when it has one). */
static char *fo_environment(void *self)
{
    struct fanout *f = self;
    cJSON *j = NULL;
    cJSON *list = cJSON_CreateArray();
    for (int k = 0; k < f->n && list; k++) {
        struct sub *u = &f->subs[k];
        char *txt = u->s.ev.ops->environment
                        ? u->s.ev.ops->environment(u->s.ev.self)
                        : NULL;
        cJSON *e = txt ? cJSON_Parse(txt) : NULL;
        free(txt);
        cJSON *g = cJSON_CreateObject();
        cJSON_AddNumberToObject(g, "gpu", u->s.gpu);
        cJSON_AddStringToObject(g, "label", u->s.label);
        cJSON *d = cJSON_DetachItemFromObjectCaseSensitive(e, "device");
        if (d)
            cJSON_AddItemToObject(g, "device", d);
        cJSON_AddItemToArray(list, g);
        if (k == 0 && e) {
            if (d) /* sub 0's device stays where readers look for it */
                cJSON_AddItemToObject(e, "device", cJSON_Duplicate(d, 1));
            j = e;
        } else {
            cJSON_Delete(e);
        }
    }
    if (!j)
        j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "gpus", list);
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return s;
}

static void fo_destroy(void *self)
{
    struct fanout *f = self;
    if (!f)
        return;
    pthread_mutex_lock(&f->mu);
    f->quit = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    for (int k = 0; k < f->n_threads; k++)
        pthread_join(f->th[k], NULL);
    for (int k = f->n - 1; k >= 0; k--) /* last to first: sub 0 may own
                                           what the others borrow */
        f->subs[k].s.ev.ops->destroy(f->subs[k].s.ev.self);
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

static const struct evaluator_ops fanout_ops = {
    .name = "fanout",
    .eval_batch = fo_eval_batch,
    .confirm = fo_confirm,
    .set_best = fo_set_best,
    .set_defer = fo_set_defer,
    .set_deadline = fo_set_deadline,
    .set_drop = fo_set_drop,
    .admit = fo_admit,
    .profile = fo_profile,
    .profile_soon = fo_profile_soon,
    .prefetch = fo_prefetch,
    .environment = fo_environment,
    .destroy = fo_destroy,
};

int fanout_new(const struct fanout_opts *o, struct fanout_sub *subs, int n,
               struct evaluator *out, char *err, size_t errcap)
{
    struct fanout *f = NULL;
    int rc = KEVO_EINVAL;
    if (n < 1 || n > FANOUT_MAX_SUBS) {
        snprintf(err, errcap, "a fan-out needs 1 to %d evaluators, not %d",
                 FANOUT_MAX_SUBS, n);
        goto fail;
    }
    for (int k = 0; k < n; k++)
        if (!subs[k].ev.ops || !subs[k].ev.ops->eval_batch) {
            snprintf(err, errcap, "evaluator %d of a fan-out cannot "
                     "evaluate", k);
            goto fail;
        }
    if (!(f = calloc(1, sizeof *f))) {
        snprintf(err, errcap, "out of memory");
        rc = KEVO_ENOMEM;
        goto fail;
    }
    if (o)
        f->o = *o;
    if (f->o.max_failures <= 0)
        f->o.max_failures = DEFAULT_MAX_FAILURES;
    if (f->o.take == 0)
        f->o.take = FANOUT_TAKE;
    if (f->o.take < 1 || f->o.take > FANOUT_TAKE_MAX) {
        snprintf(err, errcap, "a fan-out takes 1 to %d candidates a call, "
                 "not %d", FANOUT_TAKE_MAX, f->o.take);
        free(f);
        goto fail;
    }
    f->n = f->alive = n;
    for (int k = 0; k < n; k++)
        f->subs[k].s = subs[k];
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cv, NULL);
    /* offer only what sub 0 offers: the engine reads a present admit as
     * "a recorded table", a present confirm as "re-measure swaps", a
     * present profile as "profiles can be taken" */
    const struct evaluator_ops *s0 = subs[0].ev.ops;
    f->ops = fanout_ops;
    if (!s0->confirm)
        f->ops.confirm = NULL;
    if (!s0->admit)
        f->ops.admit = NULL;
    if (!s0->profile)
        f->ops.profile = NULL;
    if (!s0->profile_soon)
        f->ops.profile_soon = NULL;
    if (!s0->prefetch)
        f->ops.prefetch = NULL;
    if (!f->o.ready && !f->o.built) /* an optional candidate is worth
                                       taking only where it needs no
                                       compile (it shares its point's) */
        f->ops.set_drop = NULL;
    out->ops = &f->ops;
    out->self = f;
    return KEVO_OK;
fail:
    for (int k = 0; k < n && k < FANOUT_MAX_SUBS; k++)
        if (subs[k].ev.ops)
            subs[k].ev.ops->destroy(subs[k].ev.self);
    return rc;
}

int fanout_set_report(struct evaluator *e,
                      void (*fn)(void *ud, const char *line), void *ud)
{
    if (!e->ops || e->ops->eval_batch != fo_eval_batch)
        return 0;
    struct fanout *f = e->self;
    f->o.report = fn;
    f->o.report_ud = ud;
    return 1;
}

int fanout_alive(const struct evaluator *e)
{
    const struct fanout *f = e->self;
    return f->alive;
}
