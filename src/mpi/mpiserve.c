/*
 * mpiserve.c - a serving rank (see mpiserve.h). Owns its evaluator, the
 * templates rank 0 has shipped (parsed from their text, checked against
 * their hash, kept for the life of the run) and the queue of batches
 * rank 0's proxies sent (one per proxy slot at most). A batch is read and
 * handed to the GPU evaluator's compile pool (gpueval_prefetch) as soon
 * as it arrives, and measured in arrival order, one batch at a time: the
 * queued candidates compile while the GPU measures. Reads the message
 * formats mpieval.c writes.
 */
#include "mpiserve.h"

#include <cJSON.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fsutil.h"
#include "gpueval.h"
#include "hash.h"
#include "mpx.h"
#include "record.h"
#include "spec.h"
#include "tpl.h"
#include "version.h"

/* How long the loop sleeps between looks at the compiles and messages
 * when none of the queued batches is ready: the GPU may wait that long
 * (localq.c's LQ_POLL_NS says why it is short). */
#define SERVE_POLL_NS 200000L

/* A batch of one proxy slot, read and waiting for (or in) evaluation. */
struct req {
    int id;                    /* the slot it answers */
    cJSON *b;                  /* the BATCH (owned; cands borrow from it) */
    struct candidate *cands;   /* [n] */
    const struct candidate **ptrs;
    int64_t *vals;             /* [n * TPL_MAX_PARAMS] */
    int n;
    double best_ns;            /* the cascade reference it came with */
    long long deadline_ns;     /* this rank's clock (fs_now_ns) past which
                                  nothing of it is measured (0: none) */
    int rc;                    /* it could not be read: why */
    char why[512];
    int cancelled;             /* 1: rank 0 sent CANCEL for it */
    struct req *next;
};

struct server {
    struct spec spec;          /* rank 0's, compilers shared on this host */
    struct evaluator ev;       /* this rank's own evaluator */
    int have_ev;
    int said_hello;
    int prefetch;              /* 1: ev is a GPU evaluator (gpueval_prefetch) */
    struct tpl_device dev;     /* its device facts (sent back in READY) */
    struct tpl **tpls;         /* shipped templates, owned */
    int n_tpls, cap_tpls;
    struct req *head, *tail;   /* the queue, in arrival order */
    struct req *cur;           /* the batch being measured */
    int quit;                  /* 1: rank 0 said quit */
    int send_rc;               /* a RESULT could not be sent */
    char err[512];
};

static void req_free(struct req *r)
{
    if (!r)
        return;
    cJSON_Delete(r->b);
    free(r->cands);
    free(r->ptrs);
    free(r->vals);
    free(r);
}

static void server_release(struct server *sv)
{
    while (sv->head) {
        struct req *r = sv->head;
        sv->head = r->next;
        req_free(r);
    }
    if (sv->have_ev)
        sv->ev.ops->destroy(sv->ev.self);
    for (int i = 0; i < sv->n_tpls; i++)
        tpl_free(sv->tpls[i]);
    free(sv->tpls);
}

static int send_json(int tag, cJSON *o, char *err, size_t errcap)
{
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text)
        return KEVO_ENOMEM;
    int rc = mpx_send(0, tag, text, strlen(text), err, errcap);
    free(text);
    return rc;
}

/* ------------------------------------------------------------ hello */

/* Makes the evaluator the spec names; *why says what failed. */
static int make_evaluator(struct server *sv, const char *text,
                          const struct evaluator_factory *f, char *why,
                          size_t whycap)
{
    cJSON *o = cJSON_Parse(text);
    const char *commit = record_str(o, "commit");
    cJSON *sj = cJSON_GetObjectItemCaseSensitive(o, "spec");
    char *st = sj ? cJSON_PrintUnformatted(sj) : NULL;
    int rc = KEVO_EPARSE;
    spec_defaults(&sv->spec);
    if (!st)
        snprintf(why, whycap, "malformed hello from rank 0");
    else if (!commit || strcmp(commit, kevo_git_commit()))
        snprintf(why, whycap, "this rank runs kevo %s, rank 0 runs %s: "
                 "every rank must run the same build", kevo_git_commit(),
                 commit ? commit : "?");
    else
        rc = spec_parse_json(&sv->spec, st, "rank 0's spec", why, whycap);
    free(st);
    cJSON_Delete(o);
    if (rc)
        return rc;
    const struct problem *p = problem_find(sv->spec.problem);
    while (f && f->name && strcmp(f->name, sv->spec.evaluator))
        f++;
    if (!p || !f || !f->name) {
        snprintf(why, whycap, "no %s '%s' in this kevo", p ? "evaluator"
                 : "problem", p ? sv->spec.evaluator : sv->spec.problem);
        return KEVO_EINVAL;
    }
    sv->spec.compilers = mpx_compilers(sv->spec.compilers);
    sv->dev = tpl_device_default;
    rc = f->create(&sv->spec, p, &sv->ev, &sv->dev, why, whycap);
    sv->have_ev = rc == KEVO_OK;
    sv->prefetch = sv->have_ev && sv->ev.ops->name &&
                   !strcmp(sv->ev.ops->name, "gpu");
    return rc;
}

/* READY: {rc, err, host, cuda_visible_devices, env, dev}. An evaluator that cannot be made is
 * rank 0's to report (this rank then waits for its quit); the return is
 * whether the answer went. */
static int answer_hello(struct server *sv, const char *text,
                        const struct evaluator_factory *f)
{
    char why[512] = "";
    int rc = make_evaluator(sv, text, f, why, sizeof why);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rc", rc);
    cJSON_AddStringToObject(o, "err", why);
    cJSON_AddStringToObject(o, "host", mpx_host());
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    if (vis)
        cJSON_AddStringToObject(o, "cuda_visible_devices", vis);
    if (!rc) {
        char *env = sv->ev.ops->environment
                        ? sv->ev.ops->environment(sv->ev.self)
                        : NULL;
        cJSON_AddStringToObject(o, "env", env ? env : "{}");
        free(env);
        cJSON *d = cJSON_AddObjectToObject(o, "dev");
        cJSON_AddNumberToObject(d, "sms", (double)sv->dev.sms);
        cJSON_AddNumberToObject(d, "smem_optin", (double)sv->dev.smem_optin);
        cJSON_AddNumberToObject(d, "l2_bytes", (double)sv->dev.l2_bytes);
    }
    return send_json(MPX_READY, o, sv->err, sizeof sv->err);
}

/* ------------------------------------------------------------ a batch */

static const struct tpl *find_tpl(const struct server *sv, uint64_t h)
{
    for (int i = 0; i < sv->n_tpls; i++)
        if (sv->tpls[i]->hash == h)
            return sv->tpls[i];
    return NULL;
}

/* The template of a candidate: known, or parsed from the text it
 * carries (the first time) and checked against its hash. */
static int get_tpl(struct server *sv, const cJSON *c, const struct tpl **out,
                   char *why, size_t whycap)
{
    const char *name = record_str(c, "t"), *th = record_str(c, "th");
    const char *text = record_str(c, "text");
    uint64_t h;
    if (!name || !th || hash_parse(th, &h)) {
        snprintf(why, whycap, "a candidate without its template");
        return KEVO_EPARSE;
    }
    if ((*out = find_tpl(sv, h)))
        return KEVO_OK;
    if (!text) {
        snprintf(why, whycap, "template '%s' (%s) was never sent", name, th);
        return KEVO_EPARSE;
    }
    struct tpl *t;
    int rc = tpl_parse(name, NULL, text, &t, why, whycap);
    if (rc)
        return rc;
    if (t->hash != h) {
        snprintf(why, whycap, "template '%s' arrived with another text", name);
        tpl_free(t);
        return KEVO_EPARSE;
    }
    if (sv->n_tpls == sv->cap_tpls) {
        int cap = sv->cap_tpls ? 2 * sv->cap_tpls : 16;
        struct tpl **p = realloc(sv->tpls, (size_t)cap * sizeof *p);
        if (!p) {
            tpl_free(t);
            return KEVO_ENOMEM;
        }
        sv->tpls = p;
        sv->cap_tpls = cap;
    }
    sv->tpls[sv->n_tpls++] = t;
    *out = t;
    return KEVO_OK;
}

/* One candidate from its JSON (strings borrowed from c; vals[] filled). */
static int get_cand(struct server *sv, const cJSON *c, struct candidate *out,
                    int64_t *vals, char *why, size_t whycap)
{
    const struct tpl *t;
    int rc = get_tpl(sv, c, &t, why, whycap);
    if (rc)
        return rc;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "v"), *x;
    const char *g = record_str(c, "g"), *sh = record_str(c, "sh");
    const char *src = record_str(c, "src");
    int n = 0;
    cJSON_ArrayForEach(x, v)
    {
        if (!cJSON_IsNumber(x) || n >= t->n_params)
            break;
        vals[n++] = (int64_t)x->valuedouble;
    }
    uint64_t gh, shh;
    if (n != t->n_params || cJSON_GetArraySize(v) != n || !g || !sh ||
        !src || hash_parse(g, &gh) || hash_parse(sh, &shh)) {
        snprintf(why, whycap, "malformed candidate of template '%s'", t->name);
        return KEVO_EPARSE;
    }
    if (hash_final(hash_str(HASH_SEED, src)) != shh) {
        snprintf(why, whycap, "a source of template '%s' arrived changed",
                 t->name);
        return KEVO_EPARSE;
    }
    *out = (struct candidate){t, vals, gh, src, shh, 0};
    return KEVO_OK;
}

/* Reads a BATCH into a request (r->rc and r->why if it cannot be read)
 * and starts compiling its candidates. */
static struct req *read_batch(struct server *sv, const char *text)
{
    struct req *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->b = cJSON_Parse(text);
    r->id = record_int(r->b, "id", -1);
    r->best_ns = record_num(r->b, "best_ns", 0);
    double left = record_num(r->b, "left_ns", 0);
    if (left > 0)
        r->deadline_ns = fs_now_ns() + (long long)left;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(r->b, "c"), *c;
    int n = cJSON_GetArraySize(arr), k = 0;
    r->cands = calloc((size_t)n + 1, sizeof *r->cands);
    r->ptrs = calloc((size_t)n + 1, sizeof *r->ptrs);
    r->vals = calloc(((size_t)n + 1) * TPL_MAX_PARAMS, sizeof *r->vals);
    if (!r->b || r->id < 0) {
        snprintf(r->why, sizeof r->why, "malformed batch from rank 0");
        r->rc = KEVO_EPARSE;
    } else if (!r->cands || !r->ptrs || !r->vals) {
        r->rc = KEVO_ENOMEM;
    }
    cJSON_ArrayForEach(c, arr)
    {
        if (r->rc)
            break;
        r->rc = get_cand(sv, c, &r->cands[k],
                         r->vals + (size_t)k * TPL_MAX_PARAMS, r->why,
                         sizeof r->why);
        r->ptrs[k] = &r->cands[k];
        k++;
    }
    r->n = r->rc ? 0 : n;
    if (r->n > 0 && sv->prefetch)
        gpueval_prefetch(sv->ev.self, r->ptrs, r->n);
    return r;
}

/* CANCEL {id}: for the batch being measured or a queued one. */
static void cancel(struct server *sv, const char *text)
{
    cJSON *o = cJSON_Parse(text);
    int id = record_int(o, "id", -1);
    cJSON_Delete(o);
    if (sv->cur && sv->cur->id == id)
        sv->cur->cancelled = 1;
    for (struct req *r = sv->head; r; r = r->next)
        if (r->id == id)
            r->cancelled = 1;
}

/* Receives one message from rank 0 (waiting for it if wait, else only
 * one already there: returns 0 with nothing done when none is) and acts
 * on it. Returns 1 if it took one, 0 if none waited, < 0 on an error
 * (sv->err). */
static int take_message(struct server *sv, const struct evaluator_factory *f,
                        int wait)
{
    int tag = 0, rc;
    char *text;
    if (!wait) {
        int p = mpx_pending(0, &tag);
        if (p <= 0)
            return p < 0 ? -KEVO_EIO : 0;
    }
    if ((rc = mpx_recv(0, &tag, &text, NULL, -1, sv->err, sizeof sv->err)))
        return -rc;
    rc = KEVO_OK;
    if (tag == MPX_QUIT) {
        sv->quit = 1;
    } else if (tag == MPX_HELLO && !sv->said_hello) {
        sv->said_hello = 1;
        rc = answer_hello(sv, text, f);
    } else if (tag == MPX_BATCH && sv->have_ev) {
        struct req *r = read_batch(sv, text);
        if (!r) {
            rc = KEVO_ENOMEM;
        } else {
            if (sv->tail)
                sv->tail->next = r;
            else
                sv->head = r;
            sv->tail = r;
        }
    } else if (tag == MPX_CANCEL) {
        cancel(sv, text);
    } else {
        snprintf(sv->err, sizeof sv->err, "unexpected message %d", tag);
        rc = KEVO_EPARSE;
    }
    free(text);
    return rc ? -rc : 1;
}

struct batch_ctx {
    struct server *sv;
    const struct evaluator_factory *f;
};

/* Each result goes back at once; the messages that came meanwhile are
 * taken (a queued batch starts compiling), and a CANCEL for this batch
 * stops it. */
static int send_result(void *ud, int index, const struct eval_result *r)
{
    struct batch_ctx *b = ud;
    struct server *sv = b->sv;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", sv->cur->id);
    cJSON_AddNumberToObject(o, "i", index);
    if (r->deferred) /* not measured: nothing else to say */
        cJSON_AddNumberToObject(o, "deferred", r->deferred);
    else
        record_put_result(o, r);
    if ((sv->send_rc = send_json(MPX_RESULT, o, sv->err, sizeof sv->err)))
        return 1;
    int t;
    while ((t = take_message(sv, b->f, 0)) > 0)
        ;
    if (t < 0) {
        sv->send_rc = -t;
        return 1;
    }
    return sv->cur->cancelled;
}

/* 1 if r can be served without waiting for a compile: every candidate
 * compiled (always, for an evaluator that does not compile), or nothing
 * to measure (unreadable, or cancelled: its END goes back at once). */
static int req_ready(const struct server *sv, const struct req *r)
{
    if (r->cancelled)
        return 1;
    /* past its deadline: at once, its evaluator hands back the rest */
    if (r->deadline_ns > 0 && fs_now_ns() >= r->deadline_ns)
        return 1;
    for (int i = 0; sv->prefetch && !r->rc && i < r->n; i++)
        if (!gpueval_ready(sv->ev.self, r->ptrs[i]))
            return 0;
    return 1;
}

/* Unlinks and returns the first queued batch that is ready, or with
 * any_req the head if none is; NULL if none is taken. Every batch answers
 * its own slot, so the order they are measured in changes no decision of
 * rank 0. */
static struct req *take_req(struct server *sv, int any_req)
{
    struct req *prev = NULL, *r = sv->head;
    while (r && !req_ready(sv, r)) {
        prev = r;
        r = r->next;
    }
    if (!r && !any_req)
        return NULL;
    if (!r) {
        prev = NULL;
        r = sv->head;
    }
    if (prev)
        prev->next = r->next;
    else
        sv->head = r->next;
    if (sv->tail == r)
        sv->tail = prev;
    r->next = NULL;
    return r;
}

/* Measures batch r (unlinked): RESULTs, then one END {id, rc, err, n}. */
static int serve_next(struct server *sv, const struct evaluator_factory *f,
                      struct req *r)
{
    struct batch_ctx b = {sv, f};
    sv->cur = r;
    sv->send_rc = KEVO_OK;
    int rc = r->rc;
    if (!rc && r->best_ns > 0 && sv->ev.ops->set_best)
        sv->ev.ops->set_best(sv->ev.self, r->best_ns);
    if (!rc && sv->ev.ops->set_deadline)
        sv->ev.ops->set_deadline(sv->ev.self, r->deadline_ns);
    if (!rc && r->n > 0 && !r->cancelled)
        rc = sv->ev.ops->eval_batch(sv->ev.self, r->ptrs, r->n, send_result,
                                    &b);
    if (rc && !r->why[0])
        snprintf(r->why, sizeof r->why, "%s", kevo_strerror(rc));
    if (r->cancelled)
        rc = KEVO_ESTOPPED;
    int id = r->id, n = r->n;
    char why[512];
    snprintf(why, sizeof why, "%s", rc ? r->why : "");
    sv->cur = NULL;
    req_free(r);
    if (sv->send_rc) /* rank 0 is gone: nobody to tell */
        return sv->send_rc;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", id);
    cJSON_AddNumberToObject(o, "rc", rc);
    cJSON_AddStringToObject(o, "err", why);
    cJSON_AddNumberToObject(o, "n", n);
    return send_json(MPX_END, o, sv->err, sizeof sv->err);
}

/* ------------------------------------------------------------ the loop */

static void on_sigint(int sig)
{
    (void)sig;
}

int mpiserve_run(const struct evaluator_factory *factories, char *err,
                 size_t errcap)
{
    struct server sv;
    memset(&sv, 0, sizeof sv);
    /* Ctrl-C in a terminal reaches every rank: this one keeps serving
     * until rank 0, which stops after its current evaluation, says quit
     * (a handler, not SIG_IGN, which its workers would inherit) */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    int rc = KEVO_OK, broken = 0;
    while (!rc && !sv.quit) {
        /* idle: wait for a message; else take what waits, then measure
         * the first batch whose compiles are done. While none is, keep
         * taking messages (each new batch starts compiling) and noting
         * finished compiles, rather than block on the oldest one's: a
         * slow compile must not leave the compilers without work and the
         * GPU idle (measured on 2 H200s, bench/results/2026-11-24-h200x2-
         * scaling). */
        int t = take_message(&sv, factories, sv.head == NULL);
        while (t > 0 && sv.head && !sv.quit)
            t = take_message(&sv, factories, 0);
        if (t < 0) {
            rc = -t;
        } else if (sv.head && !sv.quit) {
            struct req *r = take_req(&sv, broken);
            if (r) {
                rc = serve_next(&sv, factories, r);
            } else {
                broken = gpueval_poll(sv.ev.self) != 0;
                nanosleep(&(struct timespec){0, SERVE_POLL_NS}, NULL);
            }
        }
    }
    if (rc)
        snprintf(err, errcap, "rank %d (%s): %s", mpx_rank(), mpx_host(),
                 sv.err[0] ? sv.err : kevo_strerror(rc));
    server_release(&sv);
    return rc;
}
