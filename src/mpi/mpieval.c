/*
 * mpieval.c - the proxy of one serving rank (see mpieval.h). Owns the
 * set of template hashes already shipped to that rank and the rank's
 * environment text; the messages are JSON (mpx.h tags):
 *   BATCH  {"best_ns": x, "c": [{"t": name, "th": hex, "text": (first
 *          time only), "v": [values], "g": hex, "sh": hex, "src": text}]}
 *   RESULT {"i": index, result members as in the journal}
 *   END    {"rc": code, "err": reason, "n": results sent}
 */
#include "mpieval.h"

#include <cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "mpx.h"
#include "record.h"
#include "version.h"

struct mpieval {
    int rank;              /* the serving rank */
    char host[256];        /* its host name */
    char *env;             /* its evaluator's environment JSON (owned) */
    uint64_t *sent;        /* template hashes it has */
    int n_sent, cap_sent;
    double best_ns;        /* for the next batch (set_best) */
    int failed;            /* 1: reported; every later batch fails */
    int dead;              /* 1: MPI itself failed: no quit is sent */
    int fail_rc;           /* what it failed with */
    char err[512];         /* why */
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

/* ---------------------------------------------------------- the batch */

static int was_sent(const struct mpieval *m, uint64_t h)
{
    for (int i = 0; i < m->n_sent; i++)
        if (m->sent[i] == h)
            return 1;
    return 0;
}

static int note_sent(struct mpieval *m, uint64_t h)
{
    if (m->n_sent == m->cap_sent) {
        int cap = m->cap_sent ? 2 * m->cap_sent : 16;
        uint64_t *p = realloc(m->sent, (size_t)cap * sizeof *p);
        if (!p)
            return KEVO_ENOMEM;
        m->sent = p;
        m->cap_sent = cap;
    }
    m->sent[m->n_sent++] = h;
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
static cJSON *cand_json(const struct mpieval *m, const struct candidate *c,
                        int *fresh)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "t", c->tpl->name);
    add_hex(o, "th", c->tpl->hash);
    *fresh = !was_sent(m, c->tpl->hash);
    if (*fresh)
        cJSON_AddStringToObject(o, "text", c->tpl->text);
    cJSON *v = cJSON_AddArrayToObject(o, "v");
    for (int i = 0; i < c->tpl->n_params; i++)
        cJSON_AddItemToArray(v, cJSON_CreateNumber((double)c->vals[i]));
    add_hex(o, "g", c->genome_hash);
    add_hex(o, "sh", c->source_hash);
    cJSON_AddStringToObject(o, "src", c->source);
    return o;
}

/* The BATCH text; marks the templates it carries as sent. */
static char *batch_text(struct mpieval *m, const struct candidate *const *c,
                        int n)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "best_ns", m->best_ns);
    cJSON *arr = cJSON_AddArrayToObject(o, "c");
    for (int i = 0; i < n; i++) {
        int fresh = 0;
        cJSON_AddItemToArray(arr, cand_json(m, c[i], &fresh));
        if (fresh && note_sent(m, c[i]->tpl->hash)) {
            cJSON_Delete(o);
            return NULL;
        }
    }
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

static int fail(struct mpieval *m, int rc, const char *why)
{
    if (!m->failed) {
        snprintf(m->err, sizeof m->err, "rank %d (%s): %s", m->rank, m->host,
                 why);
        fprintf(stderr, "kevo: %s; its work goes to the other ranks\n",
                m->err);
    }
    m->failed = 1;
    m->dead |= rc == KEVO_EIO;
    m->fail_rc = rc ? rc : KEVO_EIO;
    return m->fail_rc;
}

/* One RESULT: decodes it, checks it is the next index, hands it on.
 * Returns 1 if cb asked to stop, 0 to go on, < 0 on a bad message. */
static int take_result(struct mpieval *m, const char *text, int want,
                       eval_cb cb, void *ud)
{
    cJSON *o = cJSON_Parse(text);
    struct eval_result r;
    eval_result_init(&r);
    int i = (int)record_num(o, "i", -1);
    if (!o || i != want || record_get_result(o, &r)) {
        cJSON_Delete(o);
        eval_result_release(&r);
        return -1;
    }
    cJSON_Delete(o);
    int stop = cb(ud, i, &r) != 0;
    eval_result_release(&r);
    return stop;
}

/* Reads RESULTs up to END. After cb asks to stop, sends CANCEL and
 * drops what still comes. */
static int collect(struct mpieval *m, int n, eval_cb cb, void *ud)
{
    int got = 0, stopped = 0, tag, rc;
    char *text, why[512];
    for (;;) {
        if ((rc = mpx_recv(m->rank, &tag, &text, NULL, -1, why, sizeof why)))
            return fail(m, rc, why);
        if (tag == MPX_RESULT && !stopped) {
            int s = take_result(m, text, got, cb, ud);
            free(text);
            if (s < 0 || got >= n) {
                snprintf(why, sizeof why, "result %d of %d is malformed or "
                         "out of order", got, n);
                return fail(m, KEVO_EPARSE, why);
            }
            got++;
            if (s) {
                stopped = 1;
                if ((rc = mpx_send(m->rank, MPX_CANCEL, "{}", 2, why,
                                   sizeof why)))
                    return fail(m, rc, why);
            }
            continue;
        }
        if (tag == MPX_RESULT) { /* after the stop: dropped */
            free(text);
            continue;
        }
        if (tag != MPX_END) {
            free(text);
            snprintf(why, sizeof why, "unexpected message %d in a batch", tag);
            return fail(m, KEVO_EPARSE, why);
        }
        cJSON *o = cJSON_Parse(text);
        free(text);
        int erc = (int)record_num(o, "rc", KEVO_EPARSE);
        const char *e = record_str(o, "err");
        snprintf(why, sizeof why, "%s", e && *e ? e : kevo_strerror(erc));
        cJSON_Delete(o);
        if (stopped)
            return KEVO_ESTOPPED;
        if (erc == KEVO_ESTOPPED) /* the rank was asked to stop (signal) */
            return fail(m, KEVO_ESTOPPED, "stopped by a signal");
        if (erc)
            return fail(m, erc, why);
        if (got != n) {
            snprintf(why, sizeof why, "%d results for %d candidates", got, n);
            return fail(m, KEVO_EPARSE, why);
        }
        return KEVO_OK;
    }
}

static int me_batch(void *self, const struct candidate *const *c, int n,
                    eval_cb cb, void *ud)
{
    struct mpieval *m = self;
    char why[512];
    if (m->failed)
        return m->fail_rc;
    if (n <= 0)
        return KEVO_OK;
    char *text = batch_text(m, c, n);
    if (!text)
        return KEVO_ENOMEM;
    int rc = mpx_send(m->rank, MPX_BATCH, text, strlen(text), why, sizeof why);
    free(text);
    if (rc)
        return fail(m, rc, why);
    return collect(m, n, cb, ud);
}

static void me_set_best(void *self, double best_median_ns)
{
    ((struct mpieval *)self)->best_ns = best_median_ns;
}

static char *me_environment(void *self)
{
    struct mpieval *m = self;
    return m->env ? strdup(m->env) : NULL;
}

static void me_destroy(void *self)
{
    struct mpieval *m = self;
    if (!m->dead)
        mpieval_quit(m->rank);
    free(m->env);
    free(m->sent);
    free(m);
}

static const struct evaluator_ops me_ops = {
    .name = "mpi",
    .eval_batch = me_batch,
    .set_best = me_set_best,
    .environment = me_environment,
    .destroy = me_destroy,
};

/* ------------------------------------------------------------ the proxy */

/* The rank's environment with its rank and host added, so the manifest
 * says which host measured with what. */
static char *rank_env(const cJSON *ready, int rank, const char *host)
{
    const char *env = record_str(ready, "env");
    cJSON *e = env ? cJSON_Parse(env) : NULL;
    if (!cJSON_IsObject(e)) {
        cJSON_Delete(e);
        e = cJSON_CreateObject();
    }
    /* in the device object, which the fan-out lists per sub */
    cJSON *d = cJSON_GetObjectItemCaseSensitive(e, "device");
    if (!cJSON_IsObject(d)) {
        cJSON_DeleteItemFromObjectCaseSensitive(e, "device");
        d = cJSON_AddObjectToObject(e, "device");
    }
    cJSON_AddNumberToObject(d, "mpi_rank", rank);
    cJSON_AddStringToObject(d, "host", host);
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
    struct tpl_device r = {(int64_t)record_num(d, "sms", 0),
                           (int64_t)record_num(d, "smem_optin", 0),
                           (int64_t)record_num(d, "l2_bytes", 0)};
    const char *env = record_str(ready, "env");
    cJSON *e = env ? cJSON_Parse(env) : NULL;
    const char *name =
        record_str(cJSON_GetObjectItemCaseSensitive(e, "device"), "name");
    int rc = KEVO_OK;
    if (r.sms != dev->sms || r.smem_optin != dev->smem_optin ||
        r.l2_bytes != dev->l2_bytes || (device && name && strcmp(device, name))) {
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

int mpieval_new(int rank, const struct tpl_device *dev, const char *device,
                struct evaluator *out, char *err, size_t errcap)
{
    int tag, rc;
    char *text;
    if ((rc = mpx_recv(rank, &tag, &text, NULL, -1, err, errcap)))
        return rc;
    cJSON *o = cJSON_Parse(text);
    free(text);
    const char *host = record_str(o, "host"), *e = record_str(o, "err");
    rc = (int)record_num(o, "rc", KEVO_EPARSE);
    if (tag != MPX_READY || !host) {
        snprintf(err, errcap, "rank %d: unexpected answer to hello", rank);
        rc = KEVO_EPARSE;
    } else if (rc) {
        snprintf(err, errcap, "rank %d (%s): %s", rank, host,
                 e && *e ? e : kevo_strerror(rc));
    } else {
        rc = same_gpu(o, rank, host, dev, device, err, errcap);
    }
    struct mpieval *m = rc ? NULL : calloc(1, sizeof *m);
    if (!rc && !m)
        rc = KEVO_ENOMEM;
    if (!rc) {
        m->rank = rank;
        snprintf(m->host, sizeof m->host, "%s", host);
        if (!(m->env = rank_env(o, rank, host))) {
            free(m);
            rc = KEVO_ENOMEM;
        }
    }
    cJSON_Delete(o);
    if (rc)
        return rc;
    out->ops = &me_ops;
    out->self = m;
    return KEVO_OK;
}
