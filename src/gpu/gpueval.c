/*
 * gpueval.c - the GPU evaluator (see gpueval.h): submits every candidate
 * of a batch to the NVRTC pool at once and hands each finished cubin to
 * the GPU worker in order, so compiling overlaps measuring. Turns worker
 * answers, crashes and timeouts into struct eval_result. The worker
 * decides verdicts (worker.h); this file adds what happens before the GPU
 * (shape support, launch plan, compile errors and kevo's refusals).
 */
#include "gpueval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <cuda.h>

#include "fingerprint.h"
#include "fsutil.h"
#include "gpu.h"
#include "hash.h"
#include "jit.h"
#include "record.h"
#include "wire.h"
#include "worker.h"
#include "worker_client.h"

#define CUBIN_CACHE 8   /* recent good cubins kept for confirm() */
#define CONFIRM_PAIRS 20
#define CONFIRM_MIN_GAIN 0.01 /* smallest speed-up confirm accepts */

struct cubin_entry {
    uint64_t source_hash;
    char *cubin;        /* owned */
    size_t len;
};

struct gpueval {
    struct gpueval_opts o;
    char arch[16];
    struct jit_pool *pool;
    int own_pool;        /* 1: made here, freed here */
    struct ccost *cost;  /* orders the compiles; NULL = index order */
    int own_cost;        /* 1: made here, freed here */
    struct wclient *worker;
    struct wclient *profiler; /* the profiler's worker (worker.h 11),
                                 from the first profile; NULL before */
    char profiler_err[256];   /* why it did not start; then none is */
    double profiler_wait_ms;  /* waited for its start before a timing
                                 request, not charged to a profile yet */
    int in_batch;             /* 1: inside ge_eval_batch (a job may be out
                                 at the timing worker: no profile then) */
    struct tpl_device dev;
    double best_ns;      /* for cascades (the engine's); 0 = none */
    double seen_best_ns; /* fastest ok time measured here; 0 = none */
    int defer_max;       /* candidates a batch may defer (set_defer) */
    long long deadline_ns; /* set_deadline's (fs_now_ns; 0: none) */
    int drop;            /* set_drop's: optional candidates may drop */
    long long seq;       /* job sequence number (seeds derive from it) */
    long long free_since; /* the worker's last answer to any request, over
                             batches (fs_now_ns; 0 = none yet): a batch's
                             first job records the GPU's idle time before
                             it, the generation gap or, under MPI, the
                             wait for the next compiled request */
    struct cubin_entry cache[CUBIN_CACHE];
    int cache_next;
    char fp_hash[17];    /* fingerprint.h hash of this environment */
    char uuid[48];       /* the GPU's, for NVML samples */
};

/* ---- small helpers */

static void cache_put(struct gpueval *g, uint64_t h, const char *cubin,
                      size_t len)
{
    for (int i = 0; i < CUBIN_CACHE; i++)
        if (g->cache[i].cubin && g->cache[i].source_hash == h)
            return;
    struct cubin_entry *e = &g->cache[g->cache_next];
    char *copy = malloc(len);
    if (!copy)
        return;
    memcpy(copy, cubin, len);
    free(e->cubin);
    *e = (struct cubin_entry){h, copy, len};
    g->cache_next = (g->cache_next + 1) % CUBIN_CACHE;
}

static const struct cubin_entry *cache_get(struct gpueval *g, uint64_t h)
{
    for (int i = 0; i < CUBIN_CACHE; i++)
        if (g->cache[i].cubin && g->cache[i].source_hash == h)
            return &g->cache[i];
    return NULL;
}

/* kevo's own refusal in a compile log (a line "kevo: rejected: <why>",
 * jit.h: the include rule, device-side launches, the compiled-code rules
 * of codescan.h), else its first "error" line, else its first line. */
static void first_error(const char *log, char *out, size_t cap)
{
    static const char kevo[] = "kevo: rejected: ";
    const char *p = log ? strstr(log, kevo) : NULL;
    if (p) {
        p += sizeof kevo - 1;
    } else if (log && (p = strstr(log, "error"))) {
        while (p > log && p[-1] != '\n')
            p--;
    } else {
        p = log ? log : "";
    }
    size_t n = strcspn(p, "\n");
    if (n >= cap)
        n = cap - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

/* The job body of a plan (core/wire.c). */
static cJSON *plan_json(const struct launch_plan *pl, int nondet,
                        double best_ns, long long seq)
{
    struct wire_job j = {.seq = seq, .plan = *pl, .nondet = nondet,
                         .best_ns = best_ns};
    return wire_job_json(&j);
}

/* ---- one candidate */

/* Before the GPU: shape support and launch plan (one tpl_prepare). What
 * the candidate may contain is decided by the compiler side (jit.h: the
 * include rule before compiling, codescan.h on the PTX after). Returns 1
 * and fills r when the candidate is decided already. */
static int precheck(struct gpueval *g, const struct candidate *c,
                    struct launch_plan *pl, struct eval_result *r)
{
    char why[400];
    if (tpl_prepare(c->tpl, c->vals, g->o.dtype, &g->o.shape, &g->dev, pl,
                    why, sizeof why)) {
        r->outcome = EVAL_UNSUPPORTED;
        snprintf(r->detail, sizeof r->detail, "%s", why);
        return 1;
    }
    return 0;
}

static void compile_failed(const struct jit_output *jo, struct eval_result *r)
{
    char line[400];
    r->outcome = EVAL_COMPILE_ERROR;
    r->compile_ms = jo->compile_ms;
    if (jo->timed_out) {
        snprintf(r->detail, sizeof r->detail, "compile timed out");
        return;
    }
    first_error(jo->log, line, sizeof line);
    snprintf(r->detail, sizeof r->detail, "%s", line[0] ? line : "compile "
             "failed");
    cJSON *e = cJSON_CreateObject();
    char head[4096];
    snprintf(head, sizeof head, "%s", jo->log ? jo->log : "");
    cJSON_AddStringToObject(e, "log", head);
    r->evidence_json = cJSON_PrintUnformatted(e);
    cJSON_Delete(e);
}

static void fill_from_reply(const struct wclient_reply *rep,
                            struct eval_result *r)
{
    if (rep->status == WCLIENT_TIMEOUT || rep->status == WCLIENT_CRASHED) {
        r->outcome = rep->status == WCLIENT_TIMEOUT ? EVAL_TIMEOUT : EVAL_CRASHED;
        snprintf(r->detail, sizeof r->detail, "%s", rep->reason);
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "phase", rep->phase);
        r->evidence_json = cJSON_PrintUnformatted(e);
        cJSON_Delete(e);
        return;
    }
    cJSON *j = cJSON_Parse(rep->json);
    if (rep->type != WM_RESULT || wire_result_parse(j, r)) {
        eval_result_release(r);
        r->outcome = EVAL_CRASHED;
        snprintf(r->detail, sizeof r->detail, "worker sent a bad answer");
    }
    cJSON_Delete(j);
}

/* Adds the environment's fingerprint hash and an NVML sample (temperature,
 * clocks, power) taken right after the measurement (the next candidate's
 * checks have started by then) to r's evidence, so
 * every result can be traced to the machine state it was measured in
 * (fingerprint.h), and how long the worker waited for this candidate. A few
 * dozen bytes per journal record. */
static void stamp(struct gpueval *g, struct eval_result *r, double idle_ms,
                  long long sent_ns, const struct wclient_reply *rep)
{
    cJSON *e = r->evidence_json ? cJSON_Parse(r->evidence_json) : NULL;
    if (!e)
        e = cJSON_CreateObject();
    if (!cJSON_IsObject(e)) {
        cJSON_Delete(e);
        return;
    }
    /* where the coordinator's side of the time went */
    cJSON *ph = cJSON_GetObjectItem(e, "phase_ms");
    if (!ph)
        ph = cJSON_AddObjectToObject(e, "phase_ms");
    cJSON_AddNumberToObject(ph, "worker_idle", idle_ms);
    if (sent_ns > 0 && rep && rep->read_ns > sent_ns) {
        /* job sent to answer read, the worker's job inside: to the worker
         * (send, its read), from it (its send, our late read) */
        cJSON_AddNumberToObject(ph, "round_trip",
                                (rep->read_ns - sent_ns) / 1e6);
        const cJSON *t0 = cJSON_GetObjectItem(e, "t0_ns"),
                    *t1 = cJSON_GetObjectItem(e, "t1_ns");
        if (cJSON_IsNumber(t0) && cJSON_IsNumber(t1)) {
            cJSON_AddNumberToObject(ph, "to_worker",
                                    (t0->valuedouble - sent_ns) / 1e6);
            cJSON_AddNumberToObject(ph, "from_worker",
                                    (rep->read_ns - t1->valuedouble) / 1e6);
        }
        cJSON_AddNumberToObject(ph, "pool_in_wait", rep->idle_ms);
    }
    cJSON_DeleteItemFromObject(e, "t0_ns");
    cJSON_DeleteItemFromObject(e, "t1_ns");
    cJSON_AddStringToObject(e, "fp", g->fp_hash);
    /* the compile processes this GPU had (its share of a shared pool):
     * the engine sizes the spare fill by them (engine_fill.c) */
    cJSON_AddNumberToObject(e, "compilers", jit_pool_share(g->pool));
    cJSON *s = fingerprint_sample(g->uuid);
    if (s)
        cJSON_AddItemToObject(e, "nvml", s);
    char *txt = cJSON_PrintUnformatted(e);
    cJSON_Delete(e);
    if (txt) {
        free(r->evidence_json);
        r->evidence_json = txt;
    }
}

/* ---- the batch pipeline
 *
 * Every candidate of a batch goes to the compile pool at once. The worker
 * gets the lowest-numbered candidate whose cubin is ready (not strictly
 * the next one: one slow compile must not idle the GPU while later ones
 * wait), and the next job is sent as soon as an answer arrives, before
 * the coordinator turns that answer into a result, stamps it and hands it
 * on; while the worker measures, the pool keeps being served so finished
 * compilers get new work. Results still reach the callback in candidate
 * order. Measured on the H100 before this (bench/results/2026-11-23-h100-
 * table-sgemm-fp32-4096.log): 21 % of the wall time of a sweep was the
 * worker waiting (0.6 s at each batch start, up to 1.5 s behind a slow
 * compile). */

/* SL_READY: compiled, its cubin in jo, not sent (a queue that did not
 * take it, or a job lost with a worker that crashed on the one before) */
enum slot_state { SL_COMPILING, SL_READY, SL_AT_WORKER, SL_DONE };

struct slot {
    int ticket;               /* pool ticket while SL_COMPILING */
    enum slot_state st;
    struct eval_result r;     /* once SL_DONE */
    struct jit_output jo;     /* while SL_AT_WORKER */
    double idle_ms;           /* worker idle before this job was sent */
    long long sent_ns;        /* when it was sent */
};

struct batch {
    struct gpueval *g;
    const struct candidate *const *cands;
    struct launch_plan *plan;
    struct slot *sl;
    int n;
    int deliver;              /* next index for the callback */
    int out[2];               /* the jobs out, oldest first (the second
                                 queued behind it: worker.h 12) */
    int n_out;
    struct wclient_reply rep[2]; /* their answers (a failed send's) */
    long long idle_since;     /* the worker's last answer */
    long long req_since;      /* with optional candidates: since when
                                 every other one left has been compiling,
                                 none ready (0: not so) */
    long long hand_ns;        /* results are handed on for this long per
                                 answer while a job is out (hand_on) */
    long long gap_ns;         /* between the last two answers */
};

static void pool_idle(void *ud)
{
    struct gpueval *g = ud;
    if (jit_pool_poll(g->pool, 0)) {
        /* reported again by the wait that needs it */
    }
}

/* The cascade reference: the engine's best, or a faster ok time this
 * evaluator measured itself (so the first generation races too). */
static double race_best(const struct gpueval *g)
{
    if (g->o.no_race)
        return 0;
    double b = g->best_ns;
    if (g->seen_best_ns > 0 && (b <= 0 || g->seen_best_ns < b))
        b = g->seen_best_ns;
    return b;
}

/* 1 if candidate i may be dropped (eval.h set_drop). */
static int optional(const struct batch *b, int i)
{
    return b->g->drop && b->cands[i]->optional;
}

static double profiler_settle(struct gpueval *g);

/* Jobs queued behind the one the worker runs (worker.h 12): on, unless
 * KEVO_WORKER_QUEUE=0 (to measure without). */
static int queue_on(void)
{
    const char *v = getenv("KEVO_WORKER_QUEUE");
    return !v || strcmp(v, "0");
}

/* Sends candidate i (compiled: sl[i].jo) to the worker; with queue, as
 * the job behind the one out (wclient_queue): if it does not go, i is
 * left SL_READY. */
static int send_job(struct batch *b, int i, int queue)
{
    struct gpueval *g = b->g;
    struct slot *s = &b->sl[i];
    /* its start has the GPU to itself: the profiler's time (charged to
     * the first profile), not the timing worker's idle time */
    double waited = profiler_settle(g);
    if (waited > 0) {
        g->profiler_wait_ms += waited;
        b->idle_since += (long long)(waited * 1e6);
    }
    cJSON *j = plan_json(&b->plan[i], b->cands[i]->tpl->nondeterministic,
                         race_best(g), g->seq++);
    char *txt = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    if (!txt)
        return KEVO_ENOMEM;
    if (queue) {
        /* the worker waits for none: no idle time, and no trip of its
         * own (it starts when the one before ends) */
        int went = wclient_queue(g->worker, WM_JOB, txt, s->jo.cubin,
                                 s->jo.cubin_len);
        free(txt);
        s->st = went ? SL_AT_WORKER : SL_READY;
        if (!went)
            return KEVO_OK;
        s->sent_ns = 0;
        s->idle_ms = 0;
        memset(&b->rep[b->n_out], 0, sizeof b->rep[b->n_out]);
        b->out[b->n_out++] = i;
        if (!optional(b, i))
            b->req_since = 0;
        return KEVO_OK;
    }
    s->sent_ns = fs_now_ns();
    s->idle_ms = (s->sent_ns - b->idle_since) / 1e6;
    int rc = wclient_send(g->worker, WM_JOB, txt, s->jo.cubin, s->jo.cubin_len,
                      &b->rep[0]);
    free(txt);
    if (rc) {
        snprintf(s->r.detail, sizeof s->r.detail, "%s", b->rep[0].reason);
        return rc;
    }
    s->st = SL_AT_WORKER;
    b->out[0] = i;
    b->n_out = 1;
    if (!optional(b, i))
        b->req_since = 0; /* defer_behind_optional's wait starts again */
    return KEVO_OK;
}

/* A finished compile of slot i: a compile error is its result. Returns 1
 * when i is ready for the worker. */
static int take_compile(struct batch *b, int i, int *rc)
{
    struct slot *s = &b->sl[i];
    *rc = jit_pool_wait(b->g->pool, s->ticket, &s->jo);
    s->ticket = -1;
    if (*rc)
        return 0;
    if (!s->jo.cached) /* compiled for this run: teach the cost model */
        ccost_observe(b->g->cost, b->cands[i], s->jo.compile_ms);
    if (s->jo.ok)
        return 1;
    compile_failed(&s->jo, &s->r);
    jit_output_release(&s->jo);
    s->st = SL_DONE;
    return 0;
}

/* The lowest candidate whose cubin is ready, sent to the worker (with
 * queue: behind the job out); with block, waits for one. Returns 1 if a
 * job went out, 0 if none could (nothing compiled yet without block,
 * nothing left to send, or the queue did not take it). */
static int feed(struct batch *b, int block, int queue, int *rc)
{
    for (;;) {
        int pending = 0;
        for (int i = b->deliver; i < b->n && !*rc; i++) {
            struct slot *s = &b->sl[i];
            if (s->st == SL_COMPILING) {
                if (jit_pool_done(b->g->pool, s->ticket) == 0) {
                    pending = 1;
                    continue;
                }
                if (!take_compile(b, i, rc))
                    continue;
            } else if (s->st != SL_READY) {
                continue;
            }
            *rc = send_job(b, i, queue);
            return !*rc && s->st == SL_AT_WORKER;
        }
        if (*rc || !pending || !block)
            return 0;
        if ((*rc = jit_pool_poll(b->g->pool, 1)))
            return 0;
    }
}

/* How long the worker waits with nothing to measure before the
 * candidates still compiling are deferred (eval.h set_defer): a compile
 * about to end is not worth a generation's turn. */
#define DEFER_WAIT_MS 100

/* Candidates from the next to deliver on that still compile, optional
 * ones aside; -1 if one (not optional) is at the worker. */
static int compiling_left(const struct batch *b)
{
    int n = 0;
    for (int i = b->deliver; i < b->n; i++) {
        if (b->sl[i].st == SL_AT_WORKER && !optional(b, i))
            return -1;
        n += b->sl[i].st == SL_COMPILING && !optional(b, i);
    }
    return n;
}

/* 1 if a candidate that may not be dropped is still to be sent (it
 * compiles, or is compiled and waits). */
static int required_left(const struct batch *b)
{
    for (int i = b->deliver; i < b->n; i++)
        if ((b->sl[i].st == SL_COMPILING || b->sl[i].st == SL_READY) &&
            !optional(b, i))
            return 1;
    return 0;
}

static int defer_rest(struct batch *b);

/* Slot i, still compiling, comes back unmeasured (kind: eval_result
 * .deferred); its compile goes on into the cache. */
static void hand_back(struct batch *b, int i, int kind)
{
    struct slot *s = &b->sl[i];
    if (s->ticket >= 0 && !jit_pool_release(b->g->pool, s->ticket))
        s->ticket = -1; /* (else the batch's end waits for it) */
    jit_output_release(&s->jo); /* (SL_READY's cubin) */
    s->r.deferred = kind;
    s->st = SL_DONE;
}

/* With optional candidates to measure the GPU never waits, so the wait
 * that defers (feed_or_defer) is not seen: instead, once every candidate
 * left but the optional ones has been compiling for DEFER_WAIT_MS with
 * none ready, those are deferred (defer_rest). Returns 1 if it did. */
static int defer_behind_optional(struct batch *b)
{
    if (!b->g->drop || b->g->defer_max <= 0)
        return 0;
    int waiting = 0;
    for (int i = b->deliver; i < b->n; i++) {
        const struct slot *s = &b->sl[i];
        if (s->st == SL_DONE || optional(b, i))
            continue;
        if (s->st != SL_COMPILING || jit_pool_done(b->g->pool, s->ticket)) {
            b->req_since = 0; /* one is ready (or out): no wait */
            return 0;
        }
        waiting++;
    }
    if (!waiting) {
        b->req_since = 0;
        return 0;
    }
    long long now = fs_now_ns();
    if (!b->req_since)
        b->req_since = now;
    return now - b->req_since >= DEFER_WAIT_MS * 1000000LL && defer_rest(b);
}

/* With every candidate but the optional ones measured or deferred: the
 * optional ones left are dropped (their compiles go on into the cache;
 * one at the worker ends as usual); returns 1 if it dropped any. */
static int drop_rest(struct batch *b)
{
    if (!b->g->drop)
        return 0;
    int any = 0;
    for (int i = b->deliver; i < b->n; i++) {
        if (b->sl[i].st == SL_DONE)
            continue;
        if (!optional(b, i))
            return 0;
        any = 1;
    }
    int n = 0;
    for (int i = b->deliver; any && i < b->n; i++)
        if (b->sl[i].st == SL_COMPILING || b->sl[i].st == SL_READY) {
            hand_back(b, i, 3);
            n++;
        }
    return n > 0;
}

/* Defers every candidate still compiling (their compiles go on, for the
 * cache) if nothing else is left and they are at most g->defer_max;
 * returns 1 if it did. */
static int defer_rest(struct batch *b)
{
    int n = compiling_left(b);
    if (n <= 0 || n > b->g->defer_max)
        return 0;
    for (int i = b->deliver; i < b->n; i++) {
        struct slot *s = &b->sl[i];
        if (s->st != SL_COMPILING || optional(b, i))
            continue;
        if (jit_pool_release(b->g->pool, s->ticket))
            return 0; /* (none released yet: the first one fails alike) */
        s->ticket = -1;
        s->r.deferred = 1;
        s->st = SL_DONE;
    }
    return 1;
}

static int past_deadline(const struct gpueval *g)
{
    return g->deadline_ns > 0 && fs_now_ns() >= g->deadline_ns;
}

/* At the deadline (set_deadline), with no job out: every candidate not
 * measured comes back deferred (2); compiles go on into the cache. */
static void end_rest(struct batch *b)
{
    for (int i = b->deliver; i < b->n; i++)
        if (b->sl[i].st == SL_COMPILING || b->sl[i].st == SL_READY)
            hand_back(b, i, optional(b, i) ? 3 : 2);
}

/* feed with block; where the batch may defer, a wait of DEFER_WAIT_MS
 * with nothing to measure defers what still compiles (defer_rest); at
 * the deadline it returns 0 (the caller ends the batch: end_rest). */
static int feed_or_defer(struct batch *b, int *rc)
{
    struct gpueval *g = b->g;
    if (g->defer_max <= 0 && g->deadline_ns <= 0 && !g->drop)
        return feed(b, 1, 0, rc);
    long long t0 = fs_now_ns();
    for (;;) {
        if (past_deadline(g))
            return 0;
        if (feed(b, 0, 0, rc))
            return 1;
        if (*rc || compiling_left(b) <= 0)
            return 0;
        if (fs_now_ns() - t0 >= DEFER_WAIT_MS * 1000000LL && defer_rest(b))
            return 0;
        if ((*rc = jit_pool_poll_ms(g->pool, 10)))
            return 0;
    }
}

/* The worker's answer to the job out: its result. */
static void finish_job(struct batch *b, int i, struct wclient_reply *rep)
{
    struct gpueval *g = b->g;
    struct slot *s = &b->sl[i];
    struct eval_result *r = &s->r;
    fill_from_reply(rep, r);
    stamp(g, r, s->idle_ms, s->sent_ns, rep);
    r->compile_ms = s->jo.compile_ms;
    r->res.spill_bytes = s->jo.spill_stores > 0 ? s->jo.spill_stores : 0;
    if (r->outcome == EVAL_OK) {
        cache_put(g, b->cands[i]->source_hash, s->jo.cubin, s->jo.cubin_len);
        if (r->median_ns > 0 && !r->cascaded &&
            (g->seen_best_ns <= 0 || r->median_ns < g->seen_best_ns))
            g->seen_best_ns = r->median_ns;
    }
    jit_output_release(&s->jo);
    s->st = SL_DONE;
}

/* A request other than a job (confirm, profile, baseline): the GPU is
 * busy until its answer, so the next batch's idle time starts there. */
static int worker_call(struct gpueval *g, int type, const char *json,
                       const void *blob, size_t len, struct wclient_reply *rep)
{
    g->profiler_wait_ms += profiler_settle(g);
    int rc = wclient_call(g->worker, type, json, blob, len, rep);
    g->free_since = fs_now_ns();
    return rc;
}

/* 1 if results wait to be handed on: the next in order is decided. */
static int backlog(const struct batch *b)
{
    return b->deliver < b->n && b->sl[b->deliver].st == SL_DONE;
}

/* 1 if jobs should still go to the worker: without the drop, or while a
 * candidate that may not be dropped is left, or while results wait to be
 * handed on (the optional ones fill that time, rather than the GPU wait
 * for the engine). */
static int more_to_send(const struct batch *b)
{
    return !b->g->drop || required_left(b) || backlog(b);
}

/*
 * Hands on what is decided, in order. With a job out, for about half the
 * time between the worker's answers only, then back to the worker: the
 * engine takes ~0.25 ms a result (on the H200 hosts, journal and all), and
 * the results held behind one slow compile come in runs of hundreds (up to
 * a whole generation's fill at its end), which handed on at once left the
 * GPU waiting 0.1-0.3 s each time (bench/results/2026-11-30-h200x2-s31).
 * Without a job out, all of them. Returns 1 when the callback stops the
 * batch (*rc KEVO_ESTOPPED).
 */
#define HAND_MAX_MS 20

static int hand_on(struct batch *b, eval_cb cb, void *ud, int *rc)
{
    long long until = b->n_out > 0 ? fs_now_ns() + b->hand_ns : 0;
    while (backlog(b)) {
        int stop = cb(ud, b->deliver, &b->sl[b->deliver].r);
        eval_result_release(&b->sl[b->deliver].r);
        b->deliver++;
        if (stop) {
            *rc = KEVO_ESTOPPED;
            return 1;
        }
        if (until && fs_now_ns() >= until)
            break;
    }
    return 0;
}

/* ---- evaluator_ops */

static int eval_batch(struct gpueval *g, const struct candidate *const *cands,
                      int n, eval_cb cb, void *ud)
{
    struct batch b = {.g = g, .cands = cands, .n = n,
                      .idle_since = g->free_since > 0 ? g->free_since
                                                      : fs_now_ns()};
    int queue = queue_on();
    b.plan = calloc((size_t)(n > 0 ? n : 1), sizeof *b.plan);
    b.sl = calloc((size_t)(n > 0 ? n : 1), sizeof *b.sl);
    int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    int rc = b.plan && b.sl && order ? KEVO_OK : KEVO_ENOMEM;
    for (int i = 0; b.sl && i < n; i++) {
        b.sl[i].ticket = -1;
        eval_result_init(&b.sl[i].r);
    }
    if (!rc && ccost_order(g->cost, cands, n, order)) {
        /* out of memory for the order: index order (filled) */
    }
    /* submitted in the cost model's order: the pool starts them so */
    for (int o = 0; !rc && o < n; o++) {
        int i = order[o];
        struct slot *s = &b.sl[i];
        if (precheck(g, cands[i], &b.plan[i], &s->r)) {
            s->st = SL_DONE;
            continue;
        }
        s->st = SL_COMPILING;
        s->ticket = jit_pool_submit(g->pool, cands[i]->source,
                                    cands[i]->tpl->name);
        if (s->ticket < 0) {
            rc = -s->ticket;
            s->st = SL_DONE;
        }
    }
    while (!rc) {
        if (hand_on(&b, cb, ud, &rc) || (b.deliver == n && b.n_out == 0))
            break;
        if (b.n_out == 0 && past_deadline(g)) {
            end_rest(&b);
            continue;
        }
        if ((!backlog(&b) && drop_rest(&b)) || defer_behind_optional(&b))
            continue;
        if (b.n_out == 0 && !feed_or_defer(&b, &rc)) {
            /* the next to deliver marked at the worker with no job out:
             * a bug (a compiling one just waits for the next round) */
            if (!rc && b.deliver < n && b.sl[b.deliver].st == SL_AT_WORKER)
                rc = KEVO_EINTERNAL;
            continue;
        }
        /* the next job behind it, if one is ready (worker.h 12) */
        if (b.n_out == 1 && queue && !past_deadline(g) && more_to_send(&b))
            feed(&b, 0, 1, &rc);
        int i = b.out[0];
        wclient_await(g->worker, &b.rep[0], pool_idle, g);
        struct wclient_reply rep = b.rep[0];
        b.rep[0] = b.rep[1];
        memset(&b.rep[1], 0, sizeof b.rep[1]);
        b.out[0] = b.out[1];
        b.n_out--;
        if (b.n_out && !wclient_outstanding(g->worker)) {
            /* queued behind a job that crashed or hung the worker: it
             * never ran; the next worker gets it */
            b.sl[b.out[0]].st = SL_READY;
            b.n_out = 0;
        }
        long long now = fs_now_ns(), gap = now - b.idle_since;
        /* half a job: the shorter of the last two gaps (one may hold a
         * wait for a compile), at most HAND_MAX_MS */
        b.hand_ns = (b.gap_ns > 0 && b.gap_ns < gap ? b.gap_ns : gap) / 2;
        if (b.hand_ns > HAND_MAX_MS * 1000000LL)
            b.hand_ns = HAND_MAX_MS * 1000000LL;
        b.gap_ns = gap;
        b.idle_since = g->free_since = now;
        /* next job out first, then this answer's bookkeeping (an answer
         * to the next in order ends a wait on it: results to hand on) */
        if (rep.status == WCLIENT_ANSWER && !past_deadline(g) &&
            (more_to_send(&b) || b.deliver == i))
            feed(&b, 0, b.n_out > 0, &rc);
        finish_job(&b, i, &rep);
        wclient_reply_release(&rep);
        if (!optional(&b, i))
            b.req_since = 0; /* from this answer on */
    }
    /* jobs still out (stopped or failed): wait for them, drop them */
    for (int k = 0; k < b.n_out; k++) {
        wclient_await(g->worker, &b.rep[k], NULL, NULL);
        wclient_reply_release(&b.rep[k]);
    }
    for (int k = 0; b.sl && k < n; k++) {
        struct slot *s = &b.sl[k];
        if (s->ticket >= 0) {
            struct jit_output jo;
            if (!jit_pool_wait(g->pool, s->ticket, &jo))
                jit_output_release(&jo);
        }
        jit_output_release(&s->jo);
        if (k >= b.deliver)
            eval_result_release(&s->r);
    }
    free(order);
    free(b.plan);
    free(b.sl);
    return rc;
}

/* worker.h 11: the profiler's worker runs only while the timing worker
 * has no job, so a profile asked from a batch's callback is refused. */
static int ge_eval_batch(void *self, const struct candidate *const *cands,
                         int n, eval_cb cb, void *ud)
{
    struct gpueval *g = self;
    g->in_batch = 1;
    int rc = eval_batch(g, cands, n, cb, ud);
    g->in_batch = 0;
    return rc;
}

/* A cubin for candidate c: from the cache, else compiled now. */
static int get_cubin(struct gpueval *g, const struct candidate *c,
                     char **cubin, size_t *len)
{
    const struct cubin_entry *e = cache_get(g, c->source_hash);
    if (e) {
        *cubin = malloc(e->len);
        if (!*cubin)
            return KEVO_ENOMEM;
        memcpy(*cubin, e->cubin, e->len);
        *len = e->len;
        return KEVO_OK;
    }
    int t = jit_pool_submit(g->pool, c->source, c->tpl->name);
    if (t < 0)
        return -t;
    struct jit_output jo;
    int rc = jit_pool_wait(g->pool, t, &jo);
    if (rc)
        return rc;
    if (!jo.ok) {
        jit_output_release(&jo);
        return KEVO_ECOMPILE;
    }
    *cubin = jo.cubin;
    *len = jo.cubin_len;
    jo.cubin = NULL;
    jit_output_release(&jo);
    return KEVO_OK;
}

/* What a confirm request measured (WM_CONFIRMED). */
struct confirm_out {
    double ratio;       /* median over pairs of b time / a time */
    double noise;       /* about two standard errors of it */
    double a_ns, b_ns;  /* the medians */
    int answered;       /* 0: the worker did not answer (it restarts) */
};

/*
 * The worker's ABBA re-measurement of a against b, launch by launch, in
 * pairs pairs; b NULL: against the problem's first baseline. KEVO_ENOENT
 * (why says which) when a side has no plan for the shape, does not
 * compile, or the worker refused the measurement; KEVO_OK with
 * out->answered = 0 when the worker did not answer; another error when
 * it cannot be asked.
 */
static int confirm_request(struct gpueval *g, const struct candidate *a,
                           const struct candidate *b, int pairs,
                           struct confirm_out *out, char *why, size_t whycap)
{
    const struct candidate *side[2] = {a, b};
    struct launch_plan pl[2];
    char *cubin[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    int n = b ? 2 : 1, rc = KEVO_OK;
    memset(out, 0, sizeof *out);
    snprintf(why, whycap, "%s", "");
    for (int i = 0; i < n && !rc; i++) {
        if (tpl_plan(side[i]->tpl, side[i]->vals, &g->o.shape, &g->dev,
                     &pl[i], why, whycap))
            rc = KEVO_ENOENT;
        else if ((rc = get_cubin(g, side[i], &cubin[i], &len[i])) ==
                 KEVO_ECOMPILE) {
            snprintf(why, whycap, "%s", "does not compile");
            rc = KEVO_ENOENT;
        }
    }
    char *blob = !rc ? malloc(len[0] + len[1] + 1) : NULL;
    if (!rc && !blob)
        rc = KEVO_ENOMEM;
    if (rc) {
        free(cubin[0]);
        free(cubin[1]);
        return rc;
    }
    memcpy(blob, cubin[0], len[0]);
    if (b)
        memcpy(blob + len[0], cubin[1], len[1]);
    free(cubin[0]);
    free(cubin[1]);
    struct wire_confirm cm = {.pairs = pairs, .vs_baseline = !b,
                              .a = {.plan = pl[0]}, .a_cubin_len = len[0]};
    if (b)
        cm.b.plan = pl[1];
    cJSON *j = wire_confirm_json(&cm);
    char *txt = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    struct wclient_reply rep;
    memset(&rep, 0, sizeof rep);
    rc = txt ? worker_call(g, WM_CONFIRM, txt, blob, len[0] + len[1], &rep)
             : KEVO_ENOMEM;
    free(txt);
    free(blob);
    if (rc)
        return rc;
    if (rep.status == WCLIENT_ANSWER && rep.type == WM_CONFIRMED) {
        cJSON *o = cJSON_Parse(rep.json);
        struct wire_confirmed cf;
        out->answered = o && !wire_confirmed_parse(o, &cf);
        if (out->answered && cf.error[0]) {
            snprintf(why, whycap, "%s", cf.error);
            rc = KEVO_ENOENT;
        } else if (out->answered) {
            out->ratio = cf.ratio;
            out->noise = cf.noise;
            out->a_ns = cf.a_median_ns;
            out->b_ns = cf.b_median_ns;
        }
        cJSON_Delete(o);
    }
    if (!rc && !out->answered)
        snprintf(why, whycap, "%s", "the worker did not answer (it restarts)");
    wclient_reply_release(&rep);
    return rc;
}

static int ge_confirm(void *self, const struct candidate *ch,
                      const struct candidate *inc, int *accept, double *ratio,
                      double *noise)
{
    struct confirm_out o;
    char why[256];
    int rc = confirm_request(self, ch, inc, CONFIRM_PAIRS, &o, why,
                             sizeof why);
    *accept = 0;
    *ratio = o.ratio;
    *noise = o.noise;
    if (rc == KEVO_ENOENT || (!rc && !o.answered))
        return KEVO_OK; /* cannot compare: reject */
    if (rc)
        return rc;
    /* Floor 1 %: a kernel against itself measured ratio 1.0056 with noise
     * 0.005 on the H200 (plain ABAB, before ABBA). */
    double need = o.noise > CONFIRM_MIN_GAIN ? o.noise : CONFIRM_MIN_GAIN;
    *accept = o.ratio - 1.0 > need;
    return KEVO_OK;
}

/* The WM_INIT body of the timing worker (profiler 0) or of the
 * profiler's (1). */
static char *init_json(const struct gpueval_opts *o, int profiler)
{
    struct wire_init m = {
        .problem = o->problem->name,
        /* a file problem: the worker parses its text again */
        .problem_file = o->problem->file_text ? o->problem->file_path : NULL,
        .problem_text = o->problem->file_text,
        .dtype = o->dtype,
        .shape = o->shape,
        .seed = o->harness_seed,
        .device = o->device,
        .cupti = getenv("KEVO_NO_CUPTI") == NULL,
        .profiler = profiler,
    };
    cJSON *j = wire_init_json(&m);
    char *txt = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    return txt;
}

/* Starts the profiler's worker (worker.h 11) without waiting for it
 * (ge_profile_soon), else at the first profile. One that cannot start
 * (say, no GPU memory left for a second copy of the problem's buffers) is
 * not tried again: every profile is then unavailable, with the reason,
 * and the run goes on. */
static void profiler_begin(struct gpueval *g)
{
    if (g->profiler || g->profiler_err[0])
        return;
    char *ij = init_json(&g->o, 1), err[256] = "";
    struct wclient_opts wo = {
        .init_json = ij,
        .kernel_timeout_ms = g->o.kernel_timeout_ms,
        .verbose = g->o.verbose,
    };
    int rc = ij ? wclient_start(&wo, &g->profiler, err, sizeof err)
                : KEVO_ENOMEM;
    free(ij);
    if (rc) {
        g->profiler = NULL;
        snprintf(g->profiler_err, sizeof g->profiler_err, "%s",
                 err[0] ? err : kevo_strerror(rc));
    }
}

/* Waits for a profiler's worker still starting, serving the compile pool
 * meanwhile: before the timing worker's next request (its start's GPU
 * work, inputs and references, never overlaps a measurement) and before
 * a profile. Returns the ms it waited (0: none was starting). */
static double profiler_settle(struct gpueval *g)
{
    char err[256] = "";
    if (!g->profiler || !wclient_starting(g->profiler))
        return 0;
    long long t0 = fs_now_ns();
    int rc = wclient_wait_ready(g->profiler, pool_idle, g, err, sizeof err);
    if (rc) {
        snprintf(g->profiler_err, sizeof g->profiler_err, "%s",
                 err[0] ? err : kevo_strerror(rc));
        wclient_free(g->profiler);
        g->profiler = NULL;
    }
    return (double)(fs_now_ns() - t0) / 1e6;
}

/* The profiler's worker, ready; NULL (profiler_err says why) if none. */
static struct wclient *profiler_worker(struct gpueval *g)
{
    profiler_begin(g);
    profiler_settle(g);
    return g->profiler;
}

static void ge_profile_soon(void *self)
{
    profiler_begin(self);
}

/* A range-profiler profile of c (WM_PROFILE, prof.h), by the profiler's
 * worker while the timing worker waits. */
static int ge_profile(void *self, const struct candidate *c, struct kprof *out)
{
    struct gpueval *g = self;
    struct launch_plan pl;
    char why[256], *cubin = NULL;
    size_t len = 0;
    prof_init(out);
    if (g->in_batch)
        return KEVO_EINTERNAL; /* (a job may be out: eval.h "between
                                  batches") */
    if (g->profiler_err[0]) { /* not tried again: no compile for it */
        prof_set_unavailable(out, PROF_NO_WORKER ": %s",
                             g->profiler_err);
        return KEVO_OK;
    }
    if (tpl_plan(c->tpl, c->vals, &g->o.shape, &g->dev, &pl, why,
                 sizeof why)) {
        prof_set_unavailable(out, "no launch plan: %s", why);
        return KEVO_OK;
    }
    int rc = get_cubin(g, c, &cubin, &len);
    if (rc == KEVO_ECOMPILE) {
        prof_set_unavailable(out, "does not compile");
        return KEVO_OK;
    }
    if (rc)
        return rc;
    /* the next job's number, not taken: the jobs' seeds stay as without
     * profiles (the worker salts it for the profile's inputs) */
    cJSON *j = plan_json(&pl, c->tpl->nondeterministic, 0, g->seq);
    char *txt = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    struct wclient_reply rep;
    memset(&rep, 0, sizeof rep);
    /* the profile that starts the profiler's worker, or waits for its
     * start, pays for it, and the first profile for a wait of the timing
     * worker's requests for it (the engine's profile budget counts
     * cost_ms) */
    long long t0 = fs_now_ns();
    int starts = !g->profiler || wclient_starting(g->profiler);
    struct wclient *pw = txt ? profiler_worker(g) : NULL;
    double start_ms = starts && pw ? (double)(fs_now_ns() - t0) / 1e6 : 0;
    rc = !txt ? KEVO_ENOMEM
         : pw ? wclient_call(pw, WM_PROFILE, txt, cubin, len, &rep)
              : KEVO_OK;
    g->free_since = fs_now_ns(); /* the GPU was the profiler's till now */
    free(txt);
    free(cubin);
    if (rc == KEVO_ENOMEM)
        return rc;
    if (pw && rc) { /* it crashed or timed out earlier and did not start
                       again: like a first start that failed, not tried
                       again (each try is a process start, up to the init
                       timeout, while the timing worker waits) */
        snprintf(g->profiler_err, sizeof g->profiler_err, "%s",
                 rep.reason[0] ? rep.reason : kevo_strerror(rc));
        wclient_free(g->profiler);
        g->profiler = NULL;
        pw = NULL;
    }
    if (!pw) { /* no profiler's worker: the timing worker is not touched */
        prof_set_unavailable(out, PROF_NO_WORKER ": %s",
                             g->profiler_err);
        wclient_reply_release(&rep);
        return KEVO_OK;
    }
    cJSON *o = rep.status == WCLIENT_ANSWER && rep.type == WM_PROFILED
                   ? cJSON_Parse(rep.json) : NULL;
    if (!o || wire_profile_parse(o, out))
        prof_set_unavailable(out, "the worker did not answer (%s)",
                             rep.reason[0] ? rep.reason : "no profile");
    else {
        out->cost_ms += start_ms;
        if (out->available) { /* (the budget counts available ones) */
            out->cost_ms += g->profiler_wait_ms;
            g->profiler_wait_ms = 0;
        }
    }
    cJSON_Delete(o);
    wclient_reply_release(&rep);
    return KEVO_OK;
}

static void ge_set_best(void *self, double best_median_ns)
{
    ((struct gpueval *)self)->best_ns = best_median_ns;
}

static void ge_set_defer(void *self, int max_n)
{
    ((struct gpueval *)self)->defer_max = max_n > 0 ? max_n : 0;
}

static void ge_set_deadline(void *self, long long at_ns)
{
    ((struct gpueval *)self)->deadline_ns = at_ns > 0 ? at_ns : 0;
}

static void ge_set_drop(void *self, int on)
{
    ((struct gpueval *)self)->drop = on != 0;
}

static char *ge_environment(void *self)
{
    struct gpueval *g = self;
    cJSON *j = cJSON_Parse(wclient_ready_json(g->worker));
    if (!j)
        j = cJSON_CreateObject();
    char v[32];
    snprintf(v, sizeof v, "%d.%d", CUDA_VERSION / 1000,
             CUDA_VERSION % 1000 / 10);
    cJSON_AddStringToObject(j, "cuda_headers", v);
    cJSON_AddStringToObject(j, "arch", g->arch);
    cJSON_AddNumberToObject(j, "worker_restarts", wclient_restarts(g->worker));
    cJSON_AddStringToObject(j, "problem", g->o.problem->name);
    cJSON_AddStringToObject(j, "dtype", dtype_name(g->o.dtype));
    char shape[64];
    problem_format_shape(&g->o.shape, shape, sizeof shape);
    cJSON_AddStringToObject(j, "shape", shape);
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return s;
}

static void ge_destroy(void *self)
{
    struct gpueval *g = self;
    if (!g)
        return;
    wclient_free(g->profiler);
    wclient_free(g->worker);
    if (g->own_pool)
        jit_pool_free(g->pool);
    if (g->own_cost)
        ccost_free(g->cost);
    for (int i = 0; i < CUBIN_CACHE; i++)
        free(g->cache[i].cubin);
    free(g);
}

/* Prefetches candidate c (jit_pool_prefetch, or with later
 * jit_pool_prefetch_later) unless it is decided before compiling. */
static void prefetch_one(struct gpueval *g, const struct candidate *c,
                         int later)
{
    struct launch_plan pl;
    struct eval_result r;
    eval_result_init(&r);
    int decided = precheck(g, c, &pl, &r);
    eval_result_release(&r);
    if (decided)
        return;
    int rc = later ? jit_pool_prefetch_later(g->pool, c->source,
                                             c->tpl->name)
                   : jit_pool_prefetch(g->pool, c->source, c->tpl->name);
    if (rc) {
        /* the submit that follows reports it */
    }
}

void gpueval_prefetch(void *self, const struct candidate *const *cands,
                      int n)
{
    struct gpueval *g = self;
    for (int i = 0; i < n; i++)
        prefetch_one(g, cands[i], 0);
}

/* The engine's next batch (eval.h prefetch): behind every compile the
 * batches being evaluated need, in the cost model's order (the order its
 * eval_batch will submit them in). */
static void ge_prefetch(void *self, const struct candidate *const *cands,
                        int n)
{
    struct gpueval *g = self;
    int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    if (!order)
        return; /* a lost prefetch: the batch compiles as usual */
    if (ccost_order(g->cost, cands, n, order)) {
        /* out of memory for the order: index order (filled) */
    }
    for (int o = 0; o < n; o++)
        prefetch_one(g, cands[order[o]], 1);
    free(order);
}

static const struct evaluator_ops gpueval_ops = {
    .name = "gpu",
    .eval_batch = ge_eval_batch,
    .confirm = ge_confirm,
    .set_best = ge_set_best,
    .set_defer = ge_set_defer,
    .set_deadline = ge_set_deadline,
    .set_drop = ge_set_drop,
    .profile = ge_profile,
    .profile_soon = ge_profile_soon,
    .prefetch = ge_prefetch,
    .environment = ge_environment,
    .destroy = ge_destroy,
};

/* ---- construction */

/* Device facts from the worker's READY answer. */
static void read_device(struct gpueval *g)
{
    cJSON *j = cJSON_Parse(wclient_ready_json(g->worker));
    struct wire_ready m;
    int bad = wire_ready_parse(j, &m);
    cJSON_Delete(j);
    const struct wire_device *d = &m.device;
    g->dev = tpl_device_default;
    if (!bad && d->sms > 0)
        g->dev.sms = d->sms;
    if (!bad && d->smem_optin > 0)
        g->dev.smem_optin = d->smem_optin;
    if (!bad && d->l2_bytes > 0)
        g->dev.l2_bytes = d->l2_bytes;
    snprintf(g->arch, sizeof g->arch, "%s",
             g->o.arch ? g->o.arch : !bad && d->arch[0] ? d->arch : "sm_90a");
}

/* The fingerprint hash of this evaluator's environment (the same one
 * rundir.c puts into the manifest) and the GPU's UUID. */
static void fingerprint_of(struct gpueval *g)
{
    char *env = ge_environment(g);
    cJSON *j = env ? cJSON_Parse(env) : NULL;
    cJSON *fp = fingerprint_new(j, 1);
    const cJSON *u = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "device"),
                                         "uuid");
    snprintf(g->fp_hash, sizeof g->fp_hash, "%s", fingerprint_hash(fp));
    snprintf(g->uuid, sizeof g->uuid, "%s",
             cJSON_IsString(u) ? u->valuestring : "");
    cJSON_Delete(fp);
    cJSON_Delete(j);
    free(env);
}

int gpueval_start(const struct gpueval_opts *o, struct gpueval **out,
                  char *err, size_t errcap)
{
    if (!gpu_driver_present()) {
        snprintf(err, errcap, "no NVIDIA driver (libcuda.so.1 not found): "
                 "this command needs a GPU");
        return KEVO_ENODEV;
    }
    if (!(o->problem->dtype_mask & 1u << o->dtype)) {
        snprintf(err, errcap, "problem %s does not support dtype %s",
                 o->problem->name, dtype_name(o->dtype));
        return KEVO_EINVAL;
    }
    struct gpueval *g = calloc(1, sizeof *g);
    char *ij = init_json(o, 0);
    if (!g || !ij) {
        free(g);
        free(ij);
        return KEVO_ENOMEM;
    }
    g->o = *o;
    struct wclient_opts wo = {
        .init_json = ij,
        .kernel_timeout_ms = o->kernel_timeout_ms,
        .verbose = o->verbose,
    };
    int rc = wclient_start(&wo, &g->worker, err, errcap);
    free(ij);
    if (rc) {
        free(g);
        return rc;
    }
    *out = g;
    return KEVO_OK;
}

void gpueval_abandon(struct gpueval *g)
{
    ge_destroy(g);
}

int gpueval_finish(struct gpueval *g, struct jit_pool *pool,
                   struct ccost *cost, struct evaluator *out,
                   struct tpl_device *dev, char *err, size_t errcap)
{
    int rc = wclient_wait_ready(g->worker, NULL, NULL, err, errcap);
    if (rc) {
        ge_destroy(g);
        return rc;
    }
    read_device(g);
    fingerprint_of(g);
    if (pool) {
        g->pool = pool;
        g->cost = cost;
        jit_pool_add_user(pool);
        goto made;
    }
    if (ccost_wanted()) {
        if (!(g->cost = ccost_new())) {
            ge_destroy(g);
            return KEVO_ENOMEM;
        }
        g->own_cost = 1;
    }
    char cache[4096];
    if (!g->o.cache_dir)
        jit_cache_dir(cache, sizeof cache);
    struct jit_pool_opts po = {
        .n_procs = g->o.n_compilers,
        .timeout_ms = g->o.compile_timeout_ms,
        .arch = g->arch,
        .cache_dir = g->o.cache_dir ? g->o.cache_dir : cache,
    };
    rc = jit_pool_new(&po, &g->pool);
    if (rc) {
        snprintf(err, errcap, "cannot start the compile pool: %s",
                 kevo_strerror(rc));
        ge_destroy(g);
        return rc;
    }
    g->own_pool = 1;
made:
    if (dev)
        *dev = g->dev;
    out->ops = &gpueval_ops;
    out->self = g;
    return KEVO_OK;
}

int gpueval_new(const struct gpueval_opts *o, struct evaluator *out,
                struct tpl_device *dev, char *err, size_t errcap)
{
    struct gpueval *g;
    int rc = gpueval_start(o, &g, err, errcap);
    return rc ? rc
              : gpueval_finish(g, o->pool, o->ccost, out, dev, err, errcap);
}

struct jit_pool *gpueval_pool(const struct evaluator *e)
{
    return ((const struct gpueval *)e->self)->pool;
}

int gpueval_remeasure_baseline(const struct evaluator *e, double *ns)
{
    struct gpueval *g = e->self;
    struct wclient_reply rep;
    memset(&rep, 0, sizeof rep);
    int rc = worker_call(g, WM_BASELINE, "{}", NULL, 0, &rep);
    if (rc)
        return rc;
    rc = KEVO_ECUDA;
    if (rep.status == WCLIENT_ANSWER && rep.type == WM_READY) {
        cJSON *j = rep.json ? cJSON_Parse(rep.json) : NULL;
        struct wire_ready m;
        int bad = wire_ready_parse(j, &m);
        cJSON_Delete(j);
        *ns = !bad && m.n_baselines ? m.baselines[0].median_ns : 0;
        rc = bad ? KEVO_EPARSE : *ns > 0 ? KEVO_OK : KEVO_ENOENT;
    }
    wclient_reply_release(&rep);
    return rc;
}

int gpueval_vs_baseline(const struct evaluator *e, const struct candidate *c,
                        int pairs, double *ratio, double *noise,
                        double *kernel_ns, double *baseline_ns, char *why,
                        size_t whycap)
{
    struct confirm_out o;
    int rc = confirm_request(e->self, c, NULL, pairs, &o, why, whycap);
    *ratio = o.ratio;
    *noise = o.noise;
    *kernel_ns = o.a_ns;
    *baseline_ns = o.b_ns;
    return !rc && !o.answered ? KEVO_ECUDA : rc;
}

struct ccost *gpueval_ccost(const struct evaluator *e)
{
    return ((const struct gpueval *)e->self)->cost;
}

int gpueval_device_count(const struct evaluator *e)
{
    const struct gpueval *g = e->self;
    cJSON *j = cJSON_Parse(wclient_ready_json(g->worker));
    struct wire_ready m;
    int n = !wire_ready_parse(j, &m) && m.device_count > 0 ? m.device_count
                                                           : 0;
    cJSON_Delete(j);
    return n;
}

int gpueval_order(void *self, const struct candidate *const *cands, int n,
                  int *order)
{
    struct gpueval *g = self;
    return ccost_order(g->cost, cands, n, order);
}

int gpueval_ready(void *self, const struct candidate *c)
{
    struct gpueval *g = self;
    return jit_pool_ready(g->pool, c->source) != 0;
}

int gpueval_poll(void *self)
{
    struct gpueval *g = self;
    return jit_pool_poll(g->pool, 0);
}

int gpueval_wait_ready(void *self, int max_ms)
{
    struct gpueval *g = self;
    return jit_pool_poll_ms(g->pool, max_ms);
}
