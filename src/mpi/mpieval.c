/*
 * mpieval.c - the proxies of one serving rank (see mpieval.h). One
 * connection per rank owns the set of template hashes already shipped,
 * the rank's environment text and one inbox per proxy; the proxies of a
 * rank are its queue slots, each with at most one batch in flight, and
 * the messages of a batch carry the slot's number as "id". Whichever
 * proxy thread waits first receives for all of them and files each
 * message in its slot's inbox (leader/followers), so one MPI stream
 * serves every slot. The messages are JSON (mpx.h tags):
 *   BATCH  {"id": slot, "best_ns": x, "left_ns": y (with a deadline:
 *          the ns left to it, at least 1), "c": [{"t": name, "th": hex,
 *          "text": (first time only), "v": [values], "g": hex, "sh": hex,
 *          "src": text}]}
 *   RESULT {"id": slot, "i": index, result members as in the journal;
 *          or "deferred": kind (eval_result.deferred), nothing else}
 *   END    {"id": slot, "rc": code, "err": reason, "n": results sent}
 *   CANCEL {"id": slot}
 */
#include "mpieval.h"

#include <cJSON.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "hash.h"
#include "mpx.h"
#include "record.h"
#include "version.h"

struct inbox {
    cJSON **msg;           /* received, not yet taken (owned) */
    int *tag;
    int n, cap;
};

struct conn {
    int rank;              /* the serving rank */
    char host[256];        /* its host name */
    char *env;             /* its evaluator's environment JSON (owned) */
    int depth;             /* slots (proxies) */
    int refs;              /* proxies not yet destroyed */
    pthread_mutex_t mu;    /* everything below, and refs */
    pthread_cond_t cv;     /* a message was filed, or the rank failed */
    pthread_mutex_t send_mu; /* one BATCH at a time, so a template's text
                                goes before any use of it */
    uint64_t *sent;        /* template hashes the rank has (send_mu) */
    int n_sent, cap_sent;
    int receiving;         /* 1: a proxy thread is in mpx_recv */
    struct inbox *box;     /* [depth] */
    int failed;            /* 1: reported; every later batch fails */
    int dead;              /* 1: MPI itself failed: no quit is sent */
    int fail_rc;           /* what it failed with */
    char err[512];         /* why */
};

struct slot {
    struct conn *c;
    int id;                /* its slot number */
    double best_ns;        /* for its next batch (set_best) */
    long long deadline_ns; /* for its next batch (set_deadline; 0: none) */
    pthread_mutex_t back_mu; /* the two below; held while give_back sends
                                its CANCEL, so that it goes before the
                                slot's next BATCH */
    int in_flight;         /* 1: a BATCH sent, its END not yet read */
    int gave_back;         /* 1: give_back cancelled the batch in flight */
};

void mpieval_quit(int rank)
{
    char err[256];
    if (mpx_send(rank, MPX_QUIT, "{}", 2, err, sizeof err))
        fprintf(stderr, "kevo: rank %d: %s\n", rank, err);
}

int mpieval_hello(int rank, const struct spec *s, char *err, size_t errcap)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *sj = spec_to_json(s);
    if (!o || !sj) {
        cJSON_Delete(o);
        cJSON_Delete(sj);
        return KEVO_ENOMEM;
    }
    cJSON_AddItemToObject(o, "spec", sj);
    cJSON_AddNumberToObject(o, "rank", rank);
    cJSON_AddStringToObject(o, "commit", kevo_git_commit());
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text)
        return KEVO_ENOMEM;
    int rc = mpx_send(rank, MPX_HELLO, text, strlen(text), err, errcap);
    free(text);
    return rc;
}

/* ---------------------------------------------------------- the rank */

/* Marks the connection failed (under c->mu); reported once. */
static int conn_fail(struct conn *c, int rc, const char *why)
{
    if (!c->failed) {
        snprintf(c->err, sizeof c->err, "rank %d (%s): %s", c->rank, c->host,
                 why);
        fprintf(stderr, "kevo: %s; its work goes to the other ranks\n",
                c->err);
    }
    c->failed = 1;
    c->dead |= rc == KEVO_EIO;
    c->fail_rc = rc ? rc : KEVO_EIO;
    pthread_cond_broadcast(&c->cv);
    return c->fail_rc;
}

static int fail(struct conn *c, int rc, const char *why)
{
    pthread_mutex_lock(&c->mu);
    rc = conn_fail(c, rc, why);
    pthread_mutex_unlock(&c->mu);
    return rc;
}

static int box_put(struct inbox *b, cJSON *m, int tag)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 4;
        cJSON **pm = realloc(b->msg, (size_t)cap * sizeof *pm);
        if (pm)
            b->msg = pm;
        int *pt = pm ? realloc(b->tag, (size_t)cap * sizeof *pt) : NULL;
        if (!pt)
            return KEVO_ENOMEM;
        b->tag = pt;
        b->cap = cap;
    }
    b->msg[b->n] = m;
    b->tag[b->n++] = tag;
    return KEVO_OK;
}

/* Receives one message for anyone and files it (called without c->mu,
 * as the one receiving thread). */
static int receive_one(struct conn *c)
{
    int tag, rc;
    char *text, why[512];
    if ((rc = mpx_recv(c->rank, &tag, &text, NULL, -1, why, sizeof why)))
        return fail(c, rc, why);
    cJSON *m = cJSON_Parse(text);
    free(text);
    int id = record_int(m, "id", -1);
    pthread_mutex_lock(&c->mu);
    if (!m || id < 0 || id >= c->depth ||
        (tag != MPX_RESULT && tag != MPX_END)) {
        cJSON_Delete(m);
        snprintf(why, sizeof why, "unexpected message %d", tag);
        rc = conn_fail(c, KEVO_EPARSE, why);
    } else if ((rc = box_put(&c->box[id], m, tag))) {
        cJSON_Delete(m);
        rc = conn_fail(c, rc, "out of memory");
    }
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return rc;
}

/* The next message for slot s: from its inbox, or received by this
 * thread if no other one is receiving. *m is owned by the caller. */
static int next_msg(struct slot *s, cJSON **m, int *tag)
{
    struct conn *c = s->c;
    struct inbox *b = &c->box[s->id];
    pthread_mutex_lock(&c->mu);
    for (;;) {
        if (b->n > 0) {
            *m = b->msg[0];
            *tag = b->tag[0];
            b->n--;
            memmove(b->msg, b->msg + 1, (size_t)b->n * sizeof *b->msg);
            memmove(b->tag, b->tag + 1, (size_t)b->n * sizeof *b->tag);
            pthread_mutex_unlock(&c->mu);
            return KEVO_OK;
        }
        if (c->failed) {
            int rc = c->fail_rc;
            pthread_mutex_unlock(&c->mu);
            return rc;
        }
        if (c->receiving) {
            pthread_cond_wait(&c->cv, &c->mu);
            continue;
        }
        c->receiving = 1;
        pthread_mutex_unlock(&c->mu);
        receive_one(c); /* a failure is in c->failed */
        pthread_mutex_lock(&c->mu);
        c->receiving = 0;
        pthread_cond_broadcast(&c->cv);
    }
}

/* ---------------------------------------------------------- the batch */

static int was_sent(const struct conn *c, uint64_t h)
{
    for (int i = 0; i < c->n_sent; i++)
        if (c->sent[i] == h)
            return 1;
    return 0;
}

static int note_sent(struct conn *c, uint64_t h)
{
    if (c->n_sent == c->cap_sent) {
        int cap = c->cap_sent ? 2 * c->cap_sent : 16;
        uint64_t *p = realloc(c->sent, (size_t)cap * sizeof *p);
        if (!p)
            return KEVO_ENOMEM;
        c->sent = p;
        c->cap_sent = cap;
    }
    c->sent[c->n_sent++] = h;
    return KEVO_OK;
}

static void add_hex(cJSON *o, const char *k, uint64_t h)
{
    char hex[17];
    hash_hex(h, hex);
    cJSON_AddStringToObject(o, k, hex);
}

/* One candidate; the template's text goes with the first candidate of
 * that template the rank gets (*fresh: it went now). */
static cJSON *cand_json(const struct conn *c, const struct candidate *cd,
                        int *fresh)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "t", cd->tpl->name);
    add_hex(o, "th", cd->tpl->hash);
    *fresh = !was_sent(c, cd->tpl->hash);
    if (*fresh)
        cJSON_AddStringToObject(o, "text", cd->tpl->text);
    cJSON *v = cJSON_AddArrayToObject(o, "v");
    for (int i = 0; i < cd->tpl->n_params; i++)
        cJSON_AddItemToArray(v, cJSON_CreateNumber((double)cd->vals[i]));
    add_hex(o, "g", cd->genome_hash);
    add_hex(o, "sh", cd->source_hash);
    cJSON_AddStringToObject(o, "src", cd->source);
    return o;
}

/* Builds and sends the BATCH (under send_mu: the templates it marks as
 * sent are on their way before any later batch can count on them). */
static int send_batch(struct slot *s, const struct candidate *const *cd,
                      int n, char *why, size_t whycap)
{
    struct conn *c = s->c;
    int rc = KEVO_OK;
    pthread_mutex_lock(&c->send_mu);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", s->id);
    cJSON_AddNumberToObject(o, "best_ns", s->best_ns);
    if (s->deadline_ns > 0) { /* as time left: the rank's clock is its own */
        long long left = s->deadline_ns - fs_now_ns();
        cJSON_AddNumberToObject(o, "left_ns", (double)(left > 0 ? left : 1));
    }
    cJSON *arr = cJSON_AddArrayToObject(o, "c");
    for (int i = 0; i < n && !rc; i++) {
        int fresh = 0;
        cJSON_AddItemToArray(arr, cand_json(c, cd[i], &fresh));
        if (fresh)
            rc = note_sent(c, cd[i]->tpl->hash);
    }
    char *text = rc ? NULL : cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!rc && !text)
        rc = KEVO_ENOMEM;
    if (!rc)
        rc = mpx_send(c->rank, MPX_BATCH, text, strlen(text), why, whycap);
    else
        snprintf(why, whycap, "out of memory");
    free(text);
    pthread_mutex_unlock(&c->send_mu);
    return rc;
}

/* One RESULT: checks it is the next index and hands it on. Returns 1 if
 * cb asked to stop, 0 to go on, < 0 on a bad message. */
static int take_result(const cJSON *m, int want, eval_cb cb, void *ud)
{
    struct eval_result r;
    eval_result_init(&r);
    int i = record_int(m, "i", -1);
    double d = record_num(m, "deferred", 0);
    if (d != 0) { /* (eval.h: 1 to 3) */
        if (i != want || (d != 1 && d != 2 && d != 3))
            return -1;
        r.deferred = (int)d;
    } else if (i != want || record_get_result(m, &r)) {
        eval_result_release(&r);
        return -1;
    }
    int stop = cb(ud, i, &r) != 0;
    eval_result_release(&r);
    return stop;
}

/* The END of a batch: its status, with the rank's reason. */
static int take_end(struct slot *s, const cJSON *m, int got, int n,
                    int stopped)
{
    char why[512];
    int erc = record_int(m, "rc", KEVO_EPARSE);
    const char *e = record_str(m, "err");
    snprintf(why, sizeof why, "%s", e && *e ? e : kevo_strerror(erc));
    if (stopped)
        return KEVO_ESTOPPED;
    if (erc)
        return fail(s->c, erc, why);
    if (got != n) {
        snprintf(why, sizeof why, "%d results for %d candidates", got, n);
        return fail(s->c, KEVO_EPARSE, why);
    }
    return KEVO_OK;
}

/* The END of a batch that give_back cancelled: the candidates without a
 * result come back unmeasured, deferred (1; past the slot's deadline, 2). */
static int take_given_back(struct slot *s, const cJSON *m, int got, int n,
                           eval_cb cb, void *ud)
{
    int erc = record_int(m, "rc", KEVO_EPARSE);
    if (erc != KEVO_ESTOPPED) /* ended before the CANCEL, or failed */
        return take_end(s, m, got, n, 0);
    int kind = s->deadline_ns > 0 && fs_now_ns() >= s->deadline_ns ? 2 : 1;
    for (int i = got; i < n; i++) {
        struct eval_result r;
        eval_result_init(&r);
        r.deferred = kind;
        if (cb(ud, i, &r))
            return KEVO_ESTOPPED;
    }
    return KEVO_OK;
}

/* Reads this slot's RESULTs up to its END. After cb asks to stop, sends
 * CANCEL and drops what still comes. */
static int collect(struct slot *s, int n, eval_cb cb, void *ud)
{
    int got = 0, stopped = 0, tag, rc;
    char why[512];
    for (;;) {
        cJSON *m = NULL;
        if ((rc = next_msg(s, &m, &tag)))
            return rc;
        if (tag == MPX_END) {
            pthread_mutex_lock(&s->back_mu);
            int back = s->gave_back;
            pthread_mutex_unlock(&s->back_mu);
            rc = back && !stopped ? take_given_back(s, m, got, n, cb, ud)
                                  : take_end(s, m, got, n, stopped);
            cJSON_Delete(m);
            return rc;
        }
        int st = stopped ? 0 : take_result(m, got, cb, ud);
        cJSON_Delete(m);
        if (stopped)
            continue;
        if (st < 0 || got >= n) {
            snprintf(why, sizeof why, "result %d of %d is malformed or out "
                     "of order", got, n);
            return fail(s->c, KEVO_EPARSE, why);
        }
        got++;
        if (st) {
            char cancel[32];
            stopped = 1;
            snprintf(cancel, sizeof cancel, "{\"id\":%d}", s->id);
            if ((rc = mpx_send(s->c->rank, MPX_CANCEL, cancel, strlen(cancel),
                               why, sizeof why)))
                return fail(s->c, rc, why);
        }
    }
}

static int me_batch(void *self, const struct candidate *const *cd, int n,
                    eval_cb cb, void *ud)
{
    struct slot *s = self;
    struct conn *c = s->c;
    char why[512];
    pthread_mutex_lock(&c->mu);
    int rc = c->failed ? c->fail_rc : KEVO_OK;
    pthread_mutex_unlock(&c->mu);
    if (rc || n <= 0)
        return rc;
    if ((rc = send_batch(s, cd, n, why, sizeof why)))
        return fail(c, rc, why);
    pthread_mutex_lock(&s->back_mu);
    s->in_flight = 1;
    pthread_mutex_unlock(&s->back_mu);
    rc = collect(s, n, cb, ud);
    /* (on every path: a give_back from now on finds nothing in flight) */
    pthread_mutex_lock(&s->back_mu);
    s->in_flight = s->gave_back = 0;
    pthread_mutex_unlock(&s->back_mu);
    return rc;
}

static void me_set_best(void *self, double best_median_ns)
{
    ((struct slot *)self)->best_ns = best_median_ns;
}

/* Cancels the batch in flight (eval.h give_back): the rank answers at once
 * if it has not started it, else after the candidate it is measuring;
 * collect hands back the rest deferred. */
static void me_give_back(void *self)
{
    struct slot *s = self;
    pthread_mutex_lock(&s->back_mu);
    if (s->in_flight && !s->gave_back) {
        char cancel[32], why[256];
        s->gave_back = 1;
        snprintf(cancel, sizeof cancel, "{\"id\":%d}", s->id);
        if (mpx_send(s->c->rank, MPX_CANCEL, cancel, strlen(cancel), why,
                     sizeof why))
            s->gave_back = 0; /* (its rank is failing: collect says so) */
    }
    pthread_mutex_unlock(&s->back_mu);
}

/* Passed on with each batch: the rank's evaluator measures nothing after
 * it and hands back the rest unmeasured (eval.h). */
static void me_set_deadline(void *self, long long at_ns)
{
    ((struct slot *)self)->deadline_ns = at_ns > 0 ? at_ns : 0;
}

/* The first slot speaks for the rank; the others add no entry of their
 * own to the manifest's environment. */
static char *me_environment(void *self)
{
    struct slot *s = self;
    return s->id == 0 && s->c->env ? strdup(s->c->env) : NULL;
}

static void conn_free(struct conn *c)
{
    for (int i = 0; i < c->depth; i++) {
        for (int k = 0; k < c->box[i].n; k++)
            cJSON_Delete(c->box[i].msg[k]);
        free(c->box[i].msg);
        free(c->box[i].tag);
    }
    free(c->box);
    free(c->env);
    free(c->sent);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    pthread_mutex_destroy(&c->send_mu);
    free(c);
}

/* The last proxy of a rank tells it to quit. */
static void me_destroy(void *self)
{
    struct slot *s = self;
    struct conn *c = s->c;
    pthread_mutex_lock(&c->mu);
    int last = --c->refs == 0;
    pthread_mutex_unlock(&c->mu);
    pthread_mutex_destroy(&s->back_mu);
    free(s);
    if (!last)
        return;
    if (!c->dead)
        mpieval_quit(c->rank);
    conn_free(c);
}

static const struct evaluator_ops me_ops = {
    .name = "mpi",
    .eval_batch = me_batch,
    .set_best = me_set_best,
    .set_deadline = me_set_deadline,
    .give_back = me_give_back,
    .environment = me_environment,
    .destroy = me_destroy,
};

/* ------------------------------------------------------------ the proxy */

/* The rank's environment with its rank, host and CUDA_VISIBLE_DEVICES in
 * the device object (which the fan-out lists per sub), so the manifest
 * says which host and GPU measured with what. */
static char *rank_env(const cJSON *ready, int rank, const char *host)
{
    const char *env = record_str(ready, "env");
    cJSON *e = env ? cJSON_Parse(env) : NULL;
    if (!cJSON_IsObject(e)) {
        cJSON_Delete(e);
        e = cJSON_CreateObject();
    }
    cJSON *d = cJSON_GetObjectItemCaseSensitive(e, "device");
    if (!cJSON_IsObject(d)) {
        cJSON_DeleteItemFromObjectCaseSensitive(e, "device");
        d = cJSON_AddObjectToObject(e, "device");
    }
    cJSON_AddNumberToObject(d, "mpi_rank", rank);
    cJSON_AddStringToObject(d, "host", host);
    const char *vis = record_str(ready, "cuda_visible_devices");
    if (vis)
        cJSON_AddStringToObject(d, "cuda_visible_devices", vis);
    char *text = cJSON_PrintUnformatted(e);
    cJSON_Delete(e);
    return text;
}

/* The same GPU as rank 0: device facts and name. */
static int same_gpu(const cJSON *ready, int rank, const char *host,
                    const struct tpl_device *dev, const char *device,
                    char *err, size_t errcap)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(ready, "dev");
    struct tpl_device r = {record_i64(d, "sms", 0),
                           record_i64(d, "smem_optin", 0),
                           record_i64(d, "l2_bytes", 0)};
    const char *env = record_str(ready, "env");
    cJSON *e = env ? cJSON_Parse(env) : NULL;
    const char *name =
        record_str(cJSON_GetObjectItemCaseSensitive(e, "device"), "name");
    int rc = KEVO_OK;
    if (r.sms != dev->sms || r.smem_optin != dev->smem_optin ||
        r.l2_bytes != dev->l2_bytes ||
        (device && name && strcmp(device, name))) {
        snprintf(err, errcap, "rank %d (%s) has another GPU (%s: %lld SMs, "
                 "%lld B shared memory, %lld B L2) than rank 0 (%s: %lld, "
                 "%lld, %lld): fitness is comparable on one GPU model only",
                 rank, host, name ? name : "?", (long long)r.sms,
                 (long long)r.smem_optin, (long long)r.l2_bytes,
                 device ? device : "?", (long long)dev->sms,
                 (long long)dev->smem_optin, (long long)dev->l2_bytes);
        rc = KEVO_EINVAL;
    }
    cJSON_Delete(e);
    return rc;
}

/* Reads the rank's READY; *host is borrowed from *o (caller deletes). */
static int read_ready(int rank, cJSON **o, const char **host,
                      const struct tpl_device *dev, const char *device,
                      char *err, size_t errcap)
{
    int tag, rc;
    char *text;
    if ((rc = mpx_recv(rank, &tag, &text, NULL, -1, err, errcap)))
        return rc;
    *o = cJSON_Parse(text);
    free(text);
    const char *e = record_str(*o, "err");
    *host = record_str(*o, "host");
    rc = record_int(*o, "rc", KEVO_EPARSE);
    if (tag != MPX_READY || !*host) {
        snprintf(err, errcap, "rank %d: unexpected answer to hello", rank);
        return KEVO_EPARSE;
    }
    if (rc) {
        snprintf(err, errcap, "rank %d (%s): %s", rank, *host,
                 e && *e ? e : kevo_strerror(rc));
        return rc;
    }
    return same_gpu(*o, rank, *host, dev, device, err, errcap);
}

static struct conn *conn_new(int rank, int depth, const char *host,
                             char *env)
{
    struct conn *c = calloc(1, sizeof *c);
    struct inbox *box = calloc((size_t)depth, sizeof *box);
    if (!c || !box || !env) {
        free(c);
        free(box);
        free(env);
        return NULL;
    }
    c->rank = rank;
    c->depth = depth;
    c->box = box;
    c->env = env;
    snprintf(c->host, sizeof c->host, "%s", host);
    pthread_mutex_init(&c->mu, NULL);
    pthread_mutex_init(&c->send_mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    return c;
}

int mpieval_new(int rank, int depth, const struct tpl_device *dev,
                const char *device, struct evaluator *out, char *err,
                size_t errcap)
{
    cJSON *o = NULL;
    const char *host = NULL;
    int rc = read_ready(rank, &o, &host, dev, device, err, errcap);
    struct conn *c = NULL;
    if (!rc && !(c = conn_new(rank, depth, host, rank_env(o, rank, host))))
        rc = KEVO_ENOMEM;
    cJSON_Delete(o);
    for (int k = 0; !rc && k < depth; k++) {
        struct slot *s = calloc(1, sizeof *s);
        if (!s) {
            rc = KEVO_ENOMEM;
            break;
        }
        *s = (struct slot){c, k, 0, 0, PTHREAD_MUTEX_INITIALIZER, 0, 0};
        out[k] = (struct evaluator){&me_ops, s};
        c->refs++;
    }
    if (rc && c) { /* what was made goes; the caller quits the rank */
        int k = c->refs;
        c->dead = 1;
        if (k == 0)
            conn_free(c);
        while (k-- > 0)
            me_destroy(out[k].self);
    }
    return rc;
}
