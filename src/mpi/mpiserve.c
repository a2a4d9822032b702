/*
 * mpiserve.c - a serving rank (see mpiserve.h). Owns its evaluator and
 * the templates rank 0 has shipped (parsed from their text, checked
 * against their hash, kept for the life of the run). Reads the message
 * formats mpieval.c writes.
 */
#include "mpiserve.h"

#include <cJSON.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "mpx.h"
#include "record.h"
#include "spec.h"
#include "tpl.h"
#include "version.h"

struct server {
    struct spec spec;          /* rank 0's, compilers shared on this host */
    struct evaluator ev;       /* this rank's own evaluator */
    int have_ev;
    struct tpl_device dev;     /* its device facts (sent back in READY) */
    struct tpl **tpls;         /* shipped templates, owned */
    int n_tpls, cap_tpls;
    int cancelled;             /* 1: rank 0 sent CANCEL mid-batch */
    int send_rc;               /* a RESULT could not be sent */
    char err[512];
};

static void server_release(struct server *sv)
{
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
    return rc;
}

/* READY: {rc, err, host, env, dev}. An evaluator that cannot be made is
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
    *out = (struct candidate){t, vals, gh, src, shh};
    return KEVO_OK;
}

/* Each result goes back at once; a CANCEL waiting stops the batch. */
static int send_result(void *ud, int index, const struct eval_result *r)
{
    struct server *sv = ud;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "i", index);
    record_put_result(o, r);
    if ((sv->send_rc = send_json(MPX_RESULT, o, sv->err, sizeof sv->err)))
        return 1;
    int tag = 0;
    if (mpx_pending(0, &tag) > 0 && tag == MPX_CANCEL) {
        char *text;
        if (!mpx_recv(0, &tag, &text, NULL, -1, sv->err, sizeof sv->err))
            free(text);
        sv->cancelled = 1;
        return 1;
    }
    return 0;
}

/* Evaluates a parsed BATCH; why says what failed. */
static int run_batch(struct server *sv, const cJSON *b, int *n_out, char *why,
                     size_t whycap)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(b, "c"), *c;
    int n = cJSON_GetArraySize(arr), k = 0, rc = KEVO_OK;
    struct candidate *cands = calloc((size_t)n + 1, sizeof *cands);
    const struct candidate **ptrs = calloc((size_t)n + 1, sizeof *ptrs);
    int64_t *vals = calloc(((size_t)n + 1) * TPL_MAX_PARAMS, sizeof *vals);
    *n_out = n;
    if (!cands || !ptrs || !vals)
        rc = KEVO_ENOMEM;
    cJSON_ArrayForEach(c, arr)
    {
        if (rc)
            break;
        rc = get_cand(sv, c, &cands[k], vals + (size_t)k * TPL_MAX_PARAMS,
                      why, whycap);
        ptrs[k] = &cands[k];
        k++;
    }
    double best = record_num(b, "best_ns", 0);
    if (!rc && best > 0 && sv->ev.ops->set_best)
        sv->ev.ops->set_best(sv->ev.self, best);
    if (!rc && n > 0)
        rc = sv->ev.ops->eval_batch(sv->ev.self, ptrs, n, send_result, sv);
    if (rc && !why[0])
        snprintf(why, whycap, "%s", kevo_strerror(rc));
    free(cands);
    free(ptrs);
    free(vals);
    return rc;
}

/* BATCH -> RESULTs and one END {rc, err, n}. */
static int serve_batch(struct server *sv, const char *text)
{
    char why[512] = "";
    int n = 0, rc;
    cJSON *b = cJSON_Parse(text);
    sv->cancelled = 0;
    sv->send_rc = KEVO_OK;
    if (!b) {
        snprintf(why, sizeof why, "malformed batch from rank 0");
        rc = KEVO_EPARSE;
    } else {
        rc = run_batch(sv, b, &n, why, sizeof why);
    }
    cJSON_Delete(b);
    if (sv->send_rc) /* rank 0 is gone: nobody to tell */
        return sv->send_rc;
    if (sv->cancelled)
        rc = KEVO_ESTOPPED;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "rc", rc);
    cJSON_AddStringToObject(o, "err", rc ? why : "");
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
    int rc = KEVO_OK, said_hello = 0;
    for (;;) {
        int tag;
        char *text;
        if ((rc = mpx_recv(0, &tag, &text, NULL, -1, sv.err, sizeof sv.err)))
            break;
        if (tag == MPX_QUIT) {
            free(text);
            break;
        }
        if (tag == MPX_HELLO && !said_hello) {
            said_hello = 1;
            rc = answer_hello(&sv, text, factories);
        } else if (tag == MPX_BATCH && sv.have_ev) {
            rc = serve_batch(&sv, text);
        } else if (tag != MPX_CANCEL) { /* a late cancel: already over */
            snprintf(sv.err, sizeof sv.err, "unexpected message %d", tag);
            rc = KEVO_EPARSE;
        }
        free(text);
        if (rc)
            break;
    }
    if (rc)
        snprintf(err, errcap, "rank %d (%s): %s", mpx_rank(), mpx_host(),
                 sv.err[0] ? sv.err : kevo_strerror(rc));
    server_release(&sv);
    return rc;
}
