/*
 * runlog.c - recorded or live: see runlog.h.
 */
#include "runlog.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "genome.h"
#include "hash.h"
#include "llm_store.h"
#include "record.h"
#include "records.h"
#include "secret.h"

#define SHOW_CHARS 240 /* of a JSON value in a message */

struct runlog {
    struct runlog_cfg c;
    const cJSON **rec;      /* recorded records by index */
    long n_rec;
    long pos;
    int has_confirm;        /* the recording holds a confirmation */
    int ended;
    int defer_max;          /* runlog_set_defer's: the batch's allowance */
    int (*give_up)(void *); /* ends a wait for a live LLM answer */
    void *give_up_ud;
    struct runlog_divergence div;
    char err[512];
};

int runlog_new(const struct runlog_cfg *cfg, struct runlog **out)
{
    struct runlog *rl = calloc(1, sizeof *rl);
    if (!rl)
        return KEVO_ENOMEM;
    rl->c = *cfg;
    rl->div.index = -1;
    rl->n_rec = cfg->records ? cJSON_GetArraySize(cfg->records) : 0;
    rl->rec = calloc((size_t)rl->n_rec + 1, sizeof *rl->rec);
    if (!rl->rec) {
        free(rl);
        return KEVO_ENOMEM;
    }
    const cJSON *it;
    long i = 0;
    if (cfg->records)
        cJSON_ArrayForEach(it, cfg->records)
        {
            rl->rec[i++] = it;
            rl->has_confirm |= rec_type_of(it) == REC_CONFIRM;
        }
    *out = rl;
    return KEVO_OK;
}

void runlog_free(struct runlog *rl)
{
    if (!rl)
        return;
    cJSON_Delete(rl->div.recorded);
    cJSON_Delete(rl->div.produced);
    free(rl->rec);
    free(rl);
}

long runlog_pos(const struct runlog *rl) { return rl->pos; }
int runlog_replaying(const struct runlog *rl) { return rl->pos < rl->n_rec; }
int runlog_writes(const struct runlog *rl) { return rl->c.jnl != NULL; }
int runlog_ended(const struct runlog *rl) { return rl->ended; }

const struct runlog_divergence *runlog_divergence(const struct runlog *rl)
{
    return &rl->div;
}

const char *runlog_error(const struct runlog *rl) { return rl->err; }

int runlog_seek(struct runlog *rl, long pos)
{
    if (pos < 0 || pos > rl->n_rec)
        return KEVO_EINVAL;
    rl->pos = pos;
    return KEVO_OK;
}

const cJSON *runlog_recorded(const struct runlog *rl, long i)
{
    return i >= 0 && i < rl->n_rec ? rl->rec[i] : NULL;
}

static int diverge(struct runlog *rl, const char *fmt, ...) KEVO_PRINTF(2, 3);
static int diverge(struct runlog *rl, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rl->div.index = rl->pos;
    vsnprintf(rl->div.what, sizeof rl->div.what, fmt, ap);
    va_end(ap);
    return KEVO_EDIVERGE;
}

int runlog_refuse(struct runlog *rl, const char *what)
{
    return diverge(rl, "%s", what);
}

/* The live side is asked for something: a recording-only log ends. */
static int live_needed(struct runlog *rl)
{
    if (rl->c.live)
        return KEVO_OK;
    rl->ended = 1;
    return KEVO_ESTOPPED;
}

/* "<hash> (<template> BM=128 ...)" of a candidate. */
static void describe(const struct candidate *c, char *out, size_t cap)
{
    char hex[17], params[300];
    struct genome g = {.tpl = 0};
    memcpy(g.vals, c->vals, sizeof g.vals[0] * (size_t)c->tpl->n_params);
    genome_format(&g, c->tpl, params, sizeof params);
    hash_hex(c->genome_hash, hex);
    snprintf(out, cap, "%s (%s %s)", hex, c->tpl->name, params);
}

/* ------------------------------------------------------- evaluations */

struct live_ctx {
    struct runlog *rl;
    eval_cb cb;
    void *ud;
    int base;
    int rc;
};

/* A copy of evidence text e to keep: as it is, or printed again by cJSON
 * where it holds a line break (the journal is a record a line) or an
 * escape cJSON would not write for a printable character (\u, \/: a key
 * written so would pass secret_scrub). Text that is not one JSON object
 * comes back as it is, for the caller to drop; NULL only out of
 * memory. */
static char *evidence_text(const char *e)
{
    if (!strpbrk(e, "\r\n") && !strstr(e, "\\u") && !strstr(e, "\\/"))
        return strdup(e);
    cJSON *o = cJSON_ParseWithOpts(e, NULL, 1);
    char *t = cJSON_IsObject(o) ? cJSON_PrintUnformatted(o) : strdup(e);
    cJSON_Delete(o);
    return t;
}

/* The result as the journal will hold it: one trip through its text.
 * The evidence keeps its text (the journal copies it, record_put_result_
 * text), scrubbed; evidence that is not one JSON object is dropped, as
 * the trip through its text would drop it. */
static int canonical(const struct eval_result *r, struct eval_result *out)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return KEVO_ENOMEM;
    struct eval_result bare = *r;
    bare.evidence_json = NULL;
    record_put_result(o, &bare);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    secret_scrub(text); /* a compile log may carry a key (secret.h) */
    o = text ? cJSON_Parse(text) : NULL;
    free(text);
    eval_result_init(out);
    int rc = !o ? KEVO_ENOMEM
                : record_get_result(o, out) ? KEVO_EINTERNAL : KEVO_OK;
    secret_scrub(out->detail); /* and a key cut short at its end */
    cJSON_Delete(o);
    if (!rc && r->evidence_json) {
        char *ev = evidence_text(r->evidence_json);
        if (!ev)
            return KEVO_ENOMEM;
        secret_scrub(ev);
        if (record_evidence_ok(ev))
            out->evidence_json = ev;
        else
            free(ev);
    }
    return rc;
}

static int on_live(void *ud, int index, const struct eval_result *r)
{
    struct live_ctx *x = ud;
    if (r->deferred) { /* nothing measured: nothing to canonicalise */
        struct eval_result d;
        eval_result_init(&d);
        d.deferred = r->deferred;
        return x->cb(x->ud, x->base + index, &d);
    }
    struct eval_result c;
    if ((x->rc = canonical(r, &c))) {
        eval_result_release(&c);
        return 1;
    }
    int stop = x->cb(x->ud, x->base + index, &c);
    eval_result_release(&c);
    return stop;
}

int runlog_evaluate(struct runlog *rl, const struct candidate *const *cands,
                    int n, eval_cb cb, void *ud)
{
    int i = 0, deferred = 0;
    for (; i < n && rl->pos < rl->n_rec; i++) {
        const cJSON *rec = rl->rec[rl->pos];
        const char *h = record_str(rec, "hash");
        uint64_t hash;
        enum rec_type ty = rec_type_of(rec);
        if ((ty != REC_EVAL && ty != REC_DEFER) || !h ||
            hash_parse(h, &hash) || hash != cands[i]->genome_hash) {
            char want[400], have[400];
            describe(cands[i], want, sizeof want);
            rec_describe(rec, have, sizeof have);
            return diverge(rl, "the journal holds %s here, but the engine "
                           "evaluates %s", have, want);
        }
        struct eval_result r;
        eval_result_init(&r);
        if (ty == REC_DEFER) {
            r.deferred = rec_defer_kind(rec);
            deferred += r.deferred == 1;
        } else if (record_get_result(rec, &r)) {
            eval_result_release(&r);
            return diverge(rl, "malformed evaluation record");
        }
        long at = rl->pos;
        int stop = cb(ud, i, &r);
        eval_result_release(&r);
        if (stop)
            return KEVO_ESTOPPED;
        if (rl->pos != at + 1) {
            snprintf(rl->err, sizeof rl->err, "internal: a result was taken "
                     "without its record");
            return KEVO_EINTERNAL;
        }
    }
    if (i >= n)
        return KEVO_OK;
    int rc = live_needed(rl);
    if (rc)
        return rc;
    /* a batch resumed inside: what it deferred before counts */
    if (deferred && rl->c.ev.ops->set_defer)
        rl->c.ev.ops->set_defer(rl->c.ev.self, rl->defer_max > deferred
                                                   ? rl->defer_max - deferred
                                                   : 0);
    struct live_ctx x = {rl, cb, ud, i, KEVO_OK};
    rc = rl->c.ev.ops->eval_batch(rl->c.ev.self, cands + i, n - i, on_live,
                                  &x);
    return x.rc ? x.rc : rc;
}

void runlog_set_defer(struct runlog *rl, int max_n)
{
    rl->defer_max = max_n > 0 ? max_n : 0;
    if (rl->c.live && rl->c.ev.ops && rl->c.ev.ops->set_defer)
        rl->c.ev.ops->set_defer(rl->c.ev.self, rl->defer_max);
}

void runlog_set_deadline(struct runlog *rl, long long at_ns)
{
    if (rl->c.live && rl->c.ev.ops && rl->c.ev.ops->set_deadline)
        rl->c.ev.ops->set_deadline(rl->c.ev.self, at_ns);
}

void runlog_set_drop(struct runlog *rl, int on)
{
    if (rl->c.live && rl->c.ev.ops && rl->c.ev.ops->set_drop)
        rl->c.ev.ops->set_drop(rl->c.ev.self, on);
}

int runlog_can_end_on_time(const struct runlog *rl)
{
    return rl->c.live && rl->c.ev.ops && rl->c.ev.ops->set_deadline &&
           rl->c.ev.ops->set_defer;
}

void runlog_prefetch(struct runlog *rl, const struct candidate *const *cands,
                     int n)
{
    if (n > 0 && rl->c.live && rl->pos >= rl->n_rec && rl->c.ev.ops &&
        rl->c.ev.ops->prefetch)
        rl->c.ev.ops->prefetch(rl->c.ev.self, cands, n);
}

static void show(const cJSON *v, char *out, size_t cap)
{
    char *s = v ? cJSON_PrintUnformatted(v) : NULL;
    snprintf(out, cap, "%s", s ? s : "(absent)");
    if (strlen(out) >= SHOW_CHARS)
        strcpy(out + SHOW_CHARS - 4, "...");
    free(s);
}

int runlog_put(struct runlog *rl, const cJSON *rec, int sync)
{
    if (rl->pos < rl->n_rec) {
        const cJSON *old = rl->rec[rl->pos];
        const char *k = rec_first_difference(old, rec);
        if (k) {
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(old, k),
                        *b = cJSON_GetObjectItemCaseSensitive(rec, k);
            char sa[SHOW_CHARS + 8], sb[SHOW_CHARS + 8];
            show(a, sa, sizeof sa);
            show(b, sb, sizeof sb);
            cJSON_Delete(rl->div.recorded);
            cJSON_Delete(rl->div.produced);
            rl->div.recorded = a ? cJSON_Duplicate(a, 1) : NULL;
            rl->div.produced = b ? cJSON_Duplicate(b, 1) : NULL;
            return diverge(rl, "'%s' differs: the journal has %s, the engine "
                           "produced %s", k, sa, sb);
        }
        rl->pos++;
        return KEVO_OK;
    }
    int rc = live_needed(rl);
    if (!rc && rl->c.jnl && (rc = jnl_append(rl->c.jnl, rec, sync)))
        snprintf(rl->err, sizeof rl->err, "cannot append to '%.300s': %s",
                 jnl_path(rl->c.jnl), kevo_strerror(rc));
    if (!rc)
        rl->pos++;
    return rc;
}

/* ---------------------------------------------------- confirmations */

int runlog_confirms(const struct runlog *rl)
{
    if (rl->c.live)
        return rl->c.ev.ops && rl->c.ev.ops->confirm;
    return rl->has_confirm;
}

int runlog_confirm(struct runlog *rl, int gen, double t,
                   const struct candidate *ch, const struct candidate *in,
                   int *accept)
{
    if (rl->pos < rl->n_rec) {
        struct rec_confirm c;
        char err[128];
        const cJSON *rec = rl->rec[rl->pos];
        if (rec_confirm_parse(rec, &c, err, sizeof err) ||
            c.challenger != ch->genome_hash ||
            c.incumbent != in->genome_hash) {
            char a[400], b[400], have[400];
            describe(ch, a, sizeof a);
            describe(in, b, sizeof b);
            rec_describe(rec, have, sizeof have);
            return diverge(rl, "the journal holds %s here, but the engine "
                           "confirms the new best %s against %s", have, a, b);
        }
        *accept = c.accept;
        rl->pos++;
        return KEVO_OK;
    }
    int rc = live_needed(rl);
    if (rc)
        return rc;
    struct rec_confirm c = {.gen = gen, .challenger = ch->genome_hash,
                            .incumbent = in->genome_hash, .t = t};
    rc = rl->c.ev.ops->confirm(rl->c.ev.self, ch, in, &c.accept, &c.ratio,
                               &c.noise);
    if (rc)
        return rc;
    *accept = c.accept;
    cJSON *o = rec_confirm_json(&c);
    if (!o)
        return KEVO_ENOMEM;
    rc = runlog_put(rl, o, 0);
    cJSON_Delete(o);
    return rc;
}

/* ---------------------------------------------------------- profiles */

int runlog_profiles(const struct runlog *rl)
{
    return rl->c.live && rl->c.ev.ops && rl->c.ev.ops->profile;
}

void runlog_profile_soon(struct runlog *rl)
{
    if (runlog_profiles(rl) && rl->c.ev.ops->profile_soon)
        rl->c.ev.ops->profile_soon(rl->c.ev.self);
}

int runlog_profile(struct runlog *rl, int gen, double t,
                   const struct candidate *c, const char *why,
                   struct kprof *out, int *taken)
{
    *taken = 0;
    prof_init(out);
    if (rl->pos < rl->n_rec) {
        struct rec_profile r;
        char err[128];
        const cJSON *rec = rl->rec[rl->pos];
        if (rec_type_of(rec) != REC_PROFILE)
            return KEVO_OK; /* not profiled here when it was recorded */
        if (rec_profile_parse(rec, &r, err, sizeof err))
            return diverge(rl, "malformed profile record: %s", err);
        if (r.hash != c->genome_hash)
            return KEVO_OK; /* a later candidate's */
        *out = r.p;
        *taken = 1;
        rl->pos++;
        return KEVO_OK;
    }
    if (!runlog_profiles(rl))
        return KEVO_OK;
    struct rec_profile r = {.gen = gen, .hash = c->genome_hash, .t = t};
    snprintf(r.why, sizeof r.why, "%s", why);
    int rc = rl->c.ev.ops->profile(rl->c.ev.self, c, &r.p);
    if (rc)
        return rc;
    cJSON *o = rec_profile_json(&r);
    if (!o)
        return KEVO_ENOMEM;
    /* the journal's values, as a resume would read them */
    char err[128];
    rc = prof_parse(cJSON_GetObjectItemCaseSensitive(o, "profile"), out, err,
                    sizeof err);
    if (!rc)
        rc = runlog_put(rl, o, 0);
    cJSON_Delete(o);
    *taken = !rc;
    return rc;
}

void runlog_set_best(struct runlog *rl, double best_median_ns)
{
    if (rl->c.live && rl->c.ev.ops && rl->c.ev.ops->set_best)
        rl->c.ev.ops->set_best(rl->c.ev.self, best_median_ns);
}

int runlog_has_admit(const struct runlog *rl)
{
    return rl->c.ev.ops && rl->c.ev.ops->admit;
}

int runlog_admit(const struct runlog *rl, const struct tpl *t,
                 const int64_t *vals)
{
    return !runlog_has_admit(rl) || rl->c.ev.ops->admit(rl->c.ev.self, t,
                                                        vals);
}

/* -------------------------------------------------------- LLM answers */

int runlog_ask(struct runlog *rl, const struct llm_req *q, long *ticket)
{
    *ticket = -1;
    return rl->c.live && rl->c.llm ? llm_submit(rl->c.llm, q, ticket)
                                   : KEVO_OK;
}

static int parse_status(const char *s, enum llm_status *out)
{
    for (int i = LLM_OK; i <= LLM_BUDGET; i++)
        if (s && !strcmp(s, llm_status_name((enum llm_status)i))) {
            *out = (enum llm_status)i;
            return 0;
        }
    return -1;
}

int runlog_transcript(const struct runlog *rl, const char *key,
                      struct llm_ans *a)
{
    memset(a, 0, sizeof *a);
    int rc = rl->c.llm_dir ? llm_store_read(rl->c.llm_dir, key, a)
                           : KEVO_ENOENT;
    if (!rc && a->status != LLM_OK)
        rc = KEVO_EPARSE;
    if (rc)
        llm_ans_release(a);
    return rc;
}

/* The recorded answer of record rec: status and accounting from the
 * record, the text of an ok answer from the run's transcript store. */
static int recorded_answer(struct runlog *rl, const struct rec_llm *r,
                           struct llm_ans *a)
{
    enum llm_status st = LLM_FAILED;
    memset(a, 0, sizeof *a);
    if (parse_status(r->status, &st))
        return diverge(rl, "LLM record with an unknown status '%s'",
                       r->status);
    if (st == LLM_OK) {
        int rc = runlog_transcript(rl, r->key, a);
        if (rc) {
            snprintf(rl->err, sizeof rl->err, "cannot read the recorded "
                     "answer %s in '%s/llm'", r->key,
                     rl->c.llm_dir ? rl->c.llm_dir : "?");
            return rc;
        }
    }
    a->status = st;
    a->cached = 1;
    snprintf(a->key, sizeof a->key, "%s", r->key);
    snprintf(a->detail, sizeof a->detail, "%s", r->why);
    a->tokens_in = r->tokens_in;
    a->tokens_out = r->tokens_out;
    a->cost_usd = r->cost_usd;
    a->latency_ms = r->latency_ms;
    return KEVO_OK;
}

void runlog_set_give_up(struct runlog *rl, int (*give_up)(void *), void *ud)
{
    rl->give_up = give_up;
    rl->give_up_ud = ud;
}

static int now(void *ud)
{
    (void)ud;
    return 1;
}

int runlog_answer(struct runlog *rl, uint64_t prompt, long ticket,
                  struct llm_ans *a)
{
    memset(a, 0, sizeof *a);
    if (rl->pos < rl->n_rec) {
        struct rec_llm r;
        char err[128];
        const cJSON *rec = rl->rec[rl->pos];
        if (rec_llm_parse(rec, &r, err, sizeof err) || r.prompt != prompt) {
            char have[400];
            rec_describe(rec, have, sizeof have);
            return diverge(rl, "the journal holds %s here, but the engine "
                           "takes the answer to another LLM request", have);
        }
        int rc = recorded_answer(rl, &r, a);
        if (!rc && ticket >= 0) { /* asked again on resume: collect it if
                                     it is there, never wait for it */
            struct llm_ans b;
            if (!llm_wait_until(rl->c.llm, ticket, now, NULL, &b))
                llm_ans_release(&b);
        }
        return rc;
    }
    int rc = live_needed(rl);
    if (rc)
        return rc;
    if (ticket >= 0)
        return llm_wait_until(rl->c.llm, ticket, rl->give_up,
                              rl->give_up_ud, a);
    snprintf(rl->err, sizeof rl->err, "an LLM answer is needed but no "
             "provider is configured and the journal has none");
    return KEVO_ENOENT;
}
