/*
 * llm.c - the LLM client (see llm.h): a queue of requests served by ONE
 * background thread that drives libcurl multi, with retries, backoff,
 * budgets and the transcript store. The caller's thread only queues
 * (llm_submit), answers from the store or the replay, and waits
 * (llm_wait); it never touches the network. Wire formats are in
 * llm_http.c, files in llm_store.c.
 *
 * Locking: one mutex guards the job table, the queue and the totals. The
 * worker holds it except while curl waits or transfers (curl_multi_poll,
 * curl_multi_perform); curl handles are only touched by the worker.
 */
#include "llm.h"
#include "hash.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "fsutil.h"
#include "llm_http.h"
#include "llm_store.h"
#include "rng.h"
#include "secret.h"

/* Backoff as in the vendors' SDKs: 0.5 s doubling to 8 s, minus up to 25%
 * jitter; a Retry-After (seconds or date) wins, capped at one minute. */
#define BACKOFF_BASE_MS 500.0
#define BACKOFF_MAX_MS 8000.0
#define RETRY_AFTER_MAX_S 60.0
#define ANSWER_CAP (16u << 20) /* bytes of one HTTP answer */
#define MALFORMED_RETRIES 1    /* a malformed 200 is asked again once */

/* J_NEW: being submitted (not yet a leader for its twins) */
enum job_state { J_NEW, J_QUEUED, J_ACTIVE, J_FOLLOW, J_DONE };

struct job {
    long ticket; /* index in llm.jobs */
    long seq;    /* line in the run's index */
    char *kind, *system, *user;
    enum job_state state;
    struct job *next;        /* in the queue (J_QUEUED), ticket order */
    long leader;             /* J_FOLLOW: the ticket with the same key */
    long long not_before_ns; /* backoff: no attempt before this */
    long long t0_ns;         /* first attempt started */
    int malformed;           /* malformed 200 answers so far */
    CURL *easy;              /* J_ACTIVE: the transfer */
    struct curl_slist *hdrs; /* its headers (hold the key) */
    char *body;              /* request JSON */
    char *resp;              /* answer bytes so far */
    size_t resp_len, resp_cap;
    int resp_overflow;    /* 1: answer passed ANSWER_CAP */
    double retry_after_s; /* from the last answer, -1 = none */
    char errbuf[CURL_ERROR_SIZE];
    struct llm_ans ans; /* the answer being built */
};

struct llm {
    struct llm_cfg cfg;
    const struct llm_api *api; /* NULL for replay */
    char base[512];            /* effective base URL */
    char url[600];             /* request URL */
    char key_env[64];          /* the variable named in messages */
    char *key;                 /* the API key, NULL = none */
    char describe[1200];
    char run_dir[1024];        /* "" = no transcripts */
    struct llm_store *store;   /* NULL without run_dir */
    struct llm_replay *replay; /* LLM_REPLAY */
    long seq0;                 /* index lines before this session */
    double prior_tokens;       /* spent by earlier sessions */
    double prior_cost;

    pthread_mutex_t mu;
    pthread_cond_t cv; /* a job became J_DONE */
    pthread_t thread;
    int thread_started;
    int stop; /* llm_free asked the thread to end */
    CURLM *multi;
    struct job **jobs; /* by ticket; NULL once collected */
    long n_jobs, cap_jobs;
    struct job *queue; /* J_QUEUED jobs in ticket order */
    int inflight;      /* J_ACTIVE jobs */
    int disabled;      /* 1 after a fatal error */
    char why[256];     /* and why */
    struct llm_usage usage;
    struct rng rng; /* jitter */
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static int curl_init_rc;

static void curl_init(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT) ? KEVO_ENOMEM : 0;
}

/* ---- configuration */

void llm_cfg_defaults(struct llm_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->provider = LLM_OPENAI;
    c->max_tokens = 8192;
    c->temperature = 0.7;
    c->connect_timeout_ms = 10000;
    c->timeout_ms = 300000;
    c->max_retries = 4;
    c->max_inflight = 4;
}

static int valid_url(const char *u)
{
    return (strncmp(u, "http://", 7) == 0 && u[7]) ||
           (strncmp(u, "https://", 8) == 0 && u[8]);
}

/* Splits "MODEL[@URL]" into c->model and c->base_url. */
static int parse_model_url(const char *prov, const char *rest,
                           struct llm_cfg *c, char *err, size_t errcap)
{
    const char *at = strchr(rest, '@');
    size_t n = at ? (size_t)(at - rest) : strlen(rest);
    if (n == 0) {
        snprintf(err, errcap, "--llm: no model in '%s:%s' (want %s:MODEL)",
                 prov, rest, prov);
        return KEVO_EINVAL;
    }
    if (n >= sizeof c->model) {
        snprintf(err, errcap, "--llm: model name too long (%zu chars)", n);
        return KEVO_EINVAL;
    }
    if (at && !valid_url(at + 1)) {
        char url[512];
        llm_redact(at + 1, url, sizeof url);
        snprintf(err, errcap,
                 "--llm: base URL '%s' must start with http:// or https://",
                 url);
        return KEVO_EINVAL;
    }
    if (at && strlen(at + 1) >= sizeof c->base_url) {
        snprintf(err, errcap, "--llm: base URL too long");
        return KEVO_EINVAL;
    }
    memcpy(c->model, rest, n);
    c->model[n] = '\0';
    snprintf(c->base_url, sizeof c->base_url, "%s", at ? at + 1 : "");
    return KEVO_OK;
}

int llm_cfg_parse(const char *text, struct llm_cfg *c, char *err, size_t errcap)
{
    if (strcmp(text, "none") == 0 || strcmp(text, "off") == 0)
        return KEVO_ENOENT;
    const char *colon = strchr(text, ':');
    size_t n = colon ? (size_t)(colon - text) : strlen(text);
    if (!colon) {
        snprintf(err, errcap,
                 "--llm: '%s' is not PROVIDER:MODEL (e.g. openai:gpt-5, "
                 "anthropic:claude-sonnet-4-5, replay:runs/old, none)",
                 text);
        return KEVO_EINVAL;
    }
    if (n == 6 && strncmp(text, "openai", 6) == 0) {
        c->provider = LLM_OPENAI;
    } else if (n == 9 && strncmp(text, "anthropic", 9) == 0) {
        c->provider = LLM_ANTHROPIC;
    } else if (n == 6 && strncmp(text, "replay", 6) == 0) {
        if (!colon[1] || strlen(colon + 1) >= sizeof c->replay_dir) {
            snprintf(err, errcap,
                     "--llm: replay wants a run directory "
                     "(replay:RUN_DIR)");
            return KEVO_EINVAL;
        }
        c->provider = LLM_REPLAY;
        snprintf(c->replay_dir, sizeof c->replay_dir, "%s", colon + 1);
        return KEVO_OK;
    } else {
        snprintf(err, errcap,
                 "--llm: unknown provider '%.*s' (openai, anthropic, replay)",
                 (int)n, text);
        return KEVO_EINVAL;
    }
    return parse_model_url(c->provider == LLM_OPENAI ? "openai" : "anthropic",
                           colon + 1, c, err, errcap);
}

void llm_redact(const char *text, char *out, size_t cap)
{
    char buf[4096];
    size_t n = 0;
    const char *p = text, *sch;
    while ((sch = strstr(p, "://"))) {
        const char *host = sch + 3;
        size_t auth = strcspn(host, "/?#"), keep = (size_t)(host - p);
        const char *at = memrchr(host, '@', auth);
        if (!at)
            keep += auth;
        n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0,
                              "%.*s%s", (int)keep, p, at ? "***" : "");
        p = at ? at : host + auth;
        if (n >= sizeof buf)
            break;
    }
    if (n < sizeof buf)
        snprintf(buf + n, sizeof buf - n, "%s", p);
    snprintf(out, cap, "%s", buf);
}

int llm_budget_parse(const char *text, struct llm_cfg *c, char *err,
                     size_t errcap)
{
    const char *p = text;
    int usd = *p == '$';
    p += usd;
    char *end;
    double v = strtod(p, &end);
    int ok = end != p && v > 0 && v < 1e15;
    double mult = 1;
    if (ok && !usd) {
        if (strcmp(end, "usd") == 0 || strcmp(end, "USD") == 0)
            usd = 1;
        else if (strcmp(end, "k") == 0 || strcmp(end, "K") == 0)
            mult = 1e3;
        else if (strcmp(end, "M") == 0 || strcmp(end, "m") == 0)
            mult = 1e6;
        else if (*end)
            ok = 0;
    } else if (ok && *end) {
        ok = 0;
    }
    if (!ok) {
        snprintf(err, errcap,
                 "--llm-budget: cannot read '%s' (want tokens like 200k or "
                 "2M, or dollars like $5 or 5usd, more than 0)",
                 text);
        return KEVO_EINVAL;
    }
    if (usd)
        c->budget_usd = v;
    else
        c->budget_tokens = v * mult;
    return KEVO_OK;
}

/* ---- small helpers */

static void ans_release(struct llm_ans *a)
{
    free(a->text);
    a->text = NULL;
}

void llm_ans_release(struct llm_ans *a)
{
    if (!a)
        return;
    ans_release(a);
    memset(a, 0, sizeof *a);
}

static void free_job(struct job *j)
{
    if (!j)
        return;
    free(j->kind);
    free(j->system);
    free(j->user);
    free(j->body);
    free(j->resp);
    ans_release(&j->ans);
    free(j);
}

/* ---- finishing a job (lock held) */

static void store_answer(struct llm *l, struct job *j)
{
    if (!l->store)
        return;
    struct llm_rec r = {
        .provider = l->api ? l->api->name : "replay",
        .base_url = l->base,
        .model = l->cfg.model,
        .max_tokens = l->cfg.max_tokens,
        .temperature = l->cfg.temperature,
        .kind = j->kind,
        .system = j->system,
        .user = j->user,
        .seq = j->seq,
        .ans = &j->ans,
        .replayed_from = l->replay ? l->cfg.replay_dir : NULL,
    };
    /* a transcript that cannot be written costs the cache, not the run */
    if (llm_store_put(l->store, &r) && !j->ans.detail[0])
        snprintf(j->ans.detail, sizeof j->ans.detail,
                 "answer not stored in '%s/llm'", l->run_dir);
}

static void count_answer(struct llm *l, const struct llm_ans *a)
{
    if (a->cached)
        l->usage.cached++;
    else if (a->attempts > 0)
        l->usage.requests++;
    if (a->status == LLM_FAILED || a->status == LLM_FATAL)
        l->usage.failed++;
    if (!a->cached) {
        l->usage.tokens_in += a->tokens_in;
        l->usage.tokens_out += a->tokens_out;
        l->usage.cost_usd += a->cost_usd;
    }
}

static void finish_followers(struct llm *l, const struct job *lead)
{
    for (long t = lead->ticket + 1; t < l->n_jobs; t++) {
        struct job *f = l->jobs[t];
        if (!f || f->state != J_FOLLOW || f->leader != lead->ticket)
            continue;
        f->ans = lead->ans;
        f->ans.text = lead->ans.text ? strdup(lead->ans.text) : NULL;
        if (lead->ans.text && !f->ans.text) {
            f->ans.status = LLM_FAILED;
            snprintf(f->ans.detail, sizeof f->ans.detail, "out of memory");
        }
        f->ans.cached = 1;
        f->ans.attempts = 0;
        f->ans.cost_usd = 0;
        f->ans.latency_ms = (double)(fs_now_ns() - f->t0_ns) / 1e6;
        f->state = J_DONE;
        count_answer(l, &f->ans);
    }
}

/* Makes j's answer final: stores, counts, wakes waiters. */
static void finish(struct llm *l, struct job *j, enum llm_status st)
{
    struct llm_ans *a = &j->ans;
    a->status = st;
    if (st != LLM_OK)
        ans_release(a);
    a->latency_ms = (double)(fs_now_ns() - j->t0_ns) / 1e6;
    if (!a->cached)
        a->cost_usd = (double)a->tokens_in * l->cfg.price_in / 1e6 +
                      (double)a->tokens_out * l->cfg.price_out / 1e6;
    secret_scrub(a->detail); /* a server may echo the key (secret.h) */
    store_answer(l, j);
    j->state = J_DONE;
    count_answer(l, a);
    finish_followers(l, j);
    pthread_cond_broadcast(&l->cv);
}

static void disable(struct llm *l, const char *why)
{
    if (l->disabled)
        return;
    l->disabled = 1;
    snprintf(l->why, sizeof l->why, "%s", why);
}

/* ---- the queue (lock held) */

static void enqueue(struct llm *l, struct job *j)
{
    struct job **pp = &l->queue;
    while (*pp && (*pp)->ticket < j->ticket)
        pp = &(*pp)->next;
    j->next = *pp;
    *pp = j;
    j->state = J_QUEUED;
}

/* 1 (and a reason in *a) when the budget forbids another request. */
static int over_budget(struct llm *l, struct llm_ans *a)
{
    double tok = l->prior_tokens + (double)l->usage.tokens_in +
                 (double)l->usage.tokens_out;
    double usd = l->prior_cost + l->usage.cost_usd;
    if (l->cfg.budget_tokens > 0 && tok >= l->cfg.budget_tokens) {
        snprintf(a->detail, sizeof a->detail,
                 "token budget spent: %.0f of %.0f tokens", tok,
                 l->cfg.budget_tokens);
        return 1;
    }
    if (l->cfg.budget_usd > 0 && usd >= l->cfg.budget_usd) {
        snprintf(a->detail, sizeof a->detail,
                 "cost budget spent: $%.4f of $%.2f", usd, l->cfg.budget_usd);
        return 1;
    }
    return 0;
}

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
    struct job *j = arg;
    size_t k = size * n;
    if (j->resp_len + k + 1 > ANSWER_CAP) {
        j->resp_overflow = 1;
        return 0; /* curl ends the transfer with CURLE_WRITE_ERROR */
    }
    if (j->resp_len + k + 1 > j->resp_cap) {
        size_t cap = j->resp_cap ? j->resp_cap : 16384;
        while (cap < j->resp_len + k + 1)
            cap *= 2;
        char *nb = realloc(j->resp, cap);
        if (!nb)
            return 0;
        j->resp = nb;
        j->resp_cap = cap;
    }
    memcpy(j->resp + j->resp_len, p, k);
    j->resp_len += k;
    j->resp[j->resp_len] = '\0';
    return k;
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
    struct job *j = arg;
    size_t k = size * n;
    char line[256];
    if (k >= sizeof line)
        return k;
    memcpy(line, p, k);
    line[k] = '\0';
    if (strncasecmp(line, "HTTP/", 5) == 0) {
        j->retry_after_s = -1; /* a new response (after 100, redirect) */
    } else if (strncasecmp(line, "retry-after-ms:", 15) == 0) {
        double ms = atof(line + 15);
        if (ms >= 0)
            j->retry_after_s = ms / 1000;
    } else if (strncasecmp(line, "retry-after:", 12) == 0 &&
               j->retry_after_s < 0) {
        j->retry_after_s = llm_http_retry_after(line + 12, fs_wall_s());
    }
    return k;
}

static void wipe_headers(struct curl_slist *h)
{
    for (struct curl_slist *p = h; p; p = p->next)
        memset(p->data, 0, strlen(p->data));
    curl_slist_free_all(h);
}

static int start_attempt(struct llm *l, struct job *j)
{
    const struct llm_cfg *c = &l->cfg;
    if (!j->body && !(j->body = l->api->body(c, l->base, j->system, j->user)))
        return KEVO_ENOMEM;
    CURL *e = curl_easy_init();
    struct curl_slist *h = NULL;
    if (!e || l->api->headers(&h, l->key)) {
        curl_easy_cleanup(e);
        wipe_headers(h);
        return KEVO_ENOMEM;
    }
    j->resp_len = 0;
    j->resp_overflow = 0;
    j->retry_after_s = -1;
    j->errbuf[0] = '\0';
    curl_easy_setopt(e, CURLOPT_URL, l->url);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, j->body);
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                     (curl_off_t)strlen(j->body));
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)c->connect_timeout_ms);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)c->timeout_ms);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(e, CURLOPT_USERAGENT, "kevo");
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, j);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, j);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, j->errbuf);
    curl_easy_setopt(e, CURLOPT_PRIVATE, j);
    if (curl_multi_add_handle(l->multi, e) != CURLM_OK) {
        curl_easy_cleanup(e);
        wipe_headers(h);
        return KEVO_ENOMEM;
    }
    if (j->ans.attempts == 0)
        j->t0_ns = fs_now_ns();
    j->ans.attempts++;
    j->easy = e;
    j->hdrs = h;
    j->state = J_ACTIVE;
    l->inflight++;
    return KEVO_OK;
}

/* Starts queued jobs whose backoff is over, up to max_inflight. Returns ms
 * until the next backoff ends (-1: none waiting). */
static long start_ready(struct llm *l)
{
    long long now = fs_now_ns(), next = -1;
    struct job **pp = &l->queue;
    while (*pp) {
        struct job *j = *pp;
        if (j->not_before_ns > now) {
            if (next < 0 || j->not_before_ns < next)
                next = j->not_before_ns;
            pp = &j->next;
            continue;
        }
        if (l->inflight >= l->cfg.max_inflight)
            break;
        *pp = j->next;
        if (l->disabled) {
            snprintf(j->ans.detail, sizeof j->ans.detail,
                     "provider disabled: %s", l->why);
            finish(l, j, LLM_FATAL);
        } else if (j->ans.attempts == 0 && over_budget(l, &j->ans)) {
            finish(l, j, LLM_BUDGET);
        } else if (start_attempt(l, j)) {
            snprintf(j->ans.detail, sizeof j->ans.detail,
                     "out of memory starting a request");
            finish(l, j, LLM_FAILED);
        }
    }
    if (next < 0)
        return -1;
    return (long)((next - now) / 1000000) + 1;
}

/* ---- one attempt's outcome (lock held) */

enum verdict { V_OK, V_RETRY, V_FAILED, V_FATAL };

static double backoff_s(struct llm *l, const struct job *j)
{
    double ms = BACKOFF_BASE_MS;
    for (int i = 1; i < j->ans.attempts && ms < BACKOFF_MAX_MS; i++)
        ms *= 2;
    if (ms > BACKOFF_MAX_MS)
        ms = BACKOFF_MAX_MS;
    ms *= 1.0 - 0.25 * rng_unit(&l->rng);
    double s = ms / 1000;
    if (j->retry_after_s >= 0)
        s = j->retry_after_s > RETRY_AFTER_MAX_S ? RETRY_AFTER_MAX_S
                                                 : j->retry_after_s;
    return s;
}

/* Tokens of n bytes of text, roughly (about 4 bytes a token in English
 * and code for the vendors' tokenizers). */
static long estimate_tokens(size_t n)
{
    return (long)((n + 3) / 4);
}

static const char *fatal_advice(const struct llm *l, int code, char *buf,
                                size_t cap)
{
    int nokey = !l->key;
    if (code == 404)
        snprintf(buf, cap, "check the model '%s' and the base URL '%s'",
                 l->cfg.model, l->base);
    else if (nokey)
        snprintf(buf, cap,
                 "the server wants a key: name its variable "
                 "(key_env)");
    else if (code == 403)
        snprintf(buf, cap, "check %s and its access to model '%s'", l->key_env,
                 l->cfg.model);
    else
        snprintf(buf, cap, "check %s", l->key_env);
    return buf;
}

static enum verdict judge_http(struct llm *l, struct job *j, long code)
{
    struct llm_ans *a = &j->ans;
    char msg[160], adv[300];
    if (code == 200) {
        struct llm_reply r = {0};
        char why[160];
        int rc = l->api->parse(j->resp ? j->resp : "", &r, why, sizeof why);
        if (!rc) {
            /* an echoed key never gets further: not into the template,
             * sources/, best.cu or the transcript (secret.h) */
            secret_scrub(r.text);
            a->text = r.text;
            a->truncated = r.truncated;
            /* no usable usage: count what was sent and received, so a
             * budget holds against a server that reports none */
            a->tokens_in = r.tokens_in >= 0 ? r.tokens_in
                           : estimate_tokens(strlen(j->system) +
                                             strlen(j->user));
            a->tokens_out = r.tokens_out >= 0 ? r.tokens_out
                            : estimate_tokens(strlen(r.text));
            return V_OK;
        }
        if (rc == KEVO_ENOMEM)
            snprintf(why, sizeof why, "out of memory");
        snprintf(a->detail, sizeof a->detail, "%s: malformed answer: %s",
                 l->api->name, why);
        return rc != KEVO_ENOMEM && ++j->malformed <= MALFORMED_RETRIES
                   ? V_RETRY
                   : V_FAILED;
    }
    llm_http_error_message(j->resp, msg, sizeof msg);
    if (code == 401 || code == 403 || code == 404) {
        snprintf(a->detail, sizeof a->detail, "%s: HTTP %ld (%s): %s",
                 l->api->name, code, msg[0] ? msg : "no reason given",
                 fatal_advice(l, (int)code, adv, sizeof adv));
        return V_FATAL;
    }
    snprintf(a->detail, sizeof a->detail, "%s: HTTP %ld%s%s%s", l->api->name,
             code, msg[0] ? " (" : "", msg, msg[0] ? ")" : "");
    /* rate limits, overload (529), server errors, request timeout */
    return code == 429 || code == 408 || code >= 500 ? V_RETRY : V_FAILED;
}

static enum verdict judge(struct llm *l, struct job *j, CURLcode res)
{
    struct llm_ans *a = &j->ans;
    long code = 0;
    curl_easy_getinfo(j->easy, CURLINFO_RESPONSE_CODE, &code);
    if (res == CURLE_OK) {
        a->http_status = (int)code;
        return judge_http(l, j, code);
    }
    snprintf(a->detail, sizeof a->detail, "%s: %s", l->api->name,
             j->errbuf[0] ? j->errbuf : curl_easy_strerror(res));
    if (code)
        a->http_status = (int)code;
    if (j->resp_overflow) {
        snprintf(a->detail, sizeof a->detail, "%s: answer larger than %u bytes",
                 l->api->name, ANSWER_CAP);
        return V_FAILED;
    }
    switch (res) {
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
        return V_FATAL; /* every later request would fail the same way */
    case CURLE_OUT_OF_MEMORY:
    case CURLE_WRITE_ERROR:
        return V_FAILED;
    default:
        return V_RETRY; /* timeouts, refused or dropped connections, TLS */
    }
}

static void end_transfer(struct llm *l, struct job *j)
{
    curl_multi_remove_handle(l->multi, j->easy);
    curl_easy_cleanup(j->easy);
    wipe_headers(j->hdrs);
    j->easy = NULL;
    j->hdrs = NULL;
    l->inflight--;
}

static void attempt_done(struct llm *l, struct job *j, CURLcode res)
{
    enum verdict v = judge(l, j, res);
    end_transfer(l, j);
    if (v == V_OK) {
        j->ans.detail[0] = '\0';
        finish(l, j, LLM_OK);
    } else if (v == V_FATAL) {
        secret_scrub(j->ans.detail);
        disable(l, j->ans.detail);
        finish(l, j, LLM_FATAL);
    } else if (v == V_RETRY && j->ans.attempts <= l->cfg.max_retries) {
        j->not_before_ns = fs_now_ns() + (long long)(backoff_s(l, j) * 1e9);
        enqueue(l, j);
    } else {
        size_t n = strlen(j->ans.detail);
        if (v == V_RETRY && n + 24 < sizeof j->ans.detail)
            snprintf(j->ans.detail + n, sizeof j->ans.detail - n,
                     " after %d attempts", j->ans.attempts);
        finish(l, j, LLM_FAILED);
    }
}

static void collect_done(struct llm *l)
{
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(l->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        char *priv = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &priv);
        CURLcode res = m->data.result; /* m dies with the handle */
        attempt_done(l, (struct job *)priv, res);
    }
}

/* Ends every transfer and answers what is left (llm_free): a request
 * that was sent or waiting is recorded as abandoned (its transcript says
 * so, and the store never serves it: a resume asks again). */
static void cancel_all(struct llm *l)
{
    for (long t = 0; t < l->n_jobs; t++) {
        struct job *j = l->jobs[t];
        if (!j || j->state == J_DONE)
            continue;
        int stored = j->state == J_ACTIVE || j->state == J_QUEUED;
        if (j->state == J_ACTIVE)
            end_transfer(l, j);
        snprintf(j->ans.detail, sizeof j->ans.detail,
                 "abandoned after %.1f s and %d attempts: the run stopped "
                 "before the answer came",
                 (double)(fs_now_ns() - j->t0_ns) / 1e9, j->ans.attempts);
        j->state = J_DONE;
        ans_release(&j->ans);
        j->ans.status = LLM_ABANDONED;
        j->ans.latency_ms = (double)(fs_now_ns() - j->t0_ns) / 1e6;
        if (stored)
            store_answer(l, j);
    }
    l->queue = NULL;
    pthread_cond_broadcast(&l->cv);
}

static void *worker(void *arg)
{
    struct llm *l = arg;
    pthread_mutex_lock(&l->mu);
    while (!l->stop) {
        long wait_ms = start_ready(l);
        pthread_mutex_unlock(&l->mu);
        int running;
        if (wait_ms < 0 || wait_ms > 1000)
            wait_ms = 1000;
        curl_multi_poll(l->multi, NULL, 0, (int)wait_ms, NULL);
        curl_multi_perform(l->multi, &running);
        pthread_mutex_lock(&l->mu);
        collect_done(l);
    }
    cancel_all(l);
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

/* ---- the client */

/* Registers the credential of a base URL ("user:secret@host") as a
 * secret (secret.h): the password, and the whole user:password. */
static int add_url_secret(const char *url)
{
    const char *sch = strstr(url, "://");
    if (!sch)
        return KEVO_OK;
    const char *host = sch + 3;
    size_t auth = strcspn(host, "/?#");
    const char *at = memrchr(host, '@', auth);
    if (!at)
        return KEVO_OK;
    char info[512];
    snprintf(info, sizeof info, "%.*s", (int)(at - host), host);
    char *colon = strchr(info, ':');
    int rc = secret_add(info);
    if (!rc && colon)
        rc = secret_add(colon + 1);
    memset(info, 0, sizeof info);
    return rc;
}

static int setup_provider(struct llm *l, char *err, size_t errcap)
{
    const struct llm_cfg *c = &l->cfg;
    l->api = c->provider == LLM_OPENAI ? &llm_api_openai : &llm_api_anthropic;
    if (!c->model[0]) {
        snprintf(err, errcap, "%s: no model given (%s:MODEL)", l->api->name,
                 l->api->name);
        return KEVO_EINVAL;
    }
    snprintf(l->base, sizeof l->base, "%s",
             c->base_url[0] ? c->base_url : l->api->default_base);
    if (add_url_secret(l->base))
        return KEVO_ENOMEM;
    if (!valid_url(l->base) ||
        llm_http_url(l->api, l->base, l->url, sizeof l->url)) {
        llm_redact(l->base, l->base, sizeof l->base);
        snprintf(err, errcap, "%s: bad base URL '%s'", l->api->name, l->base);
        return KEVO_EINVAL;
    }
    /* the request URL keeps any credential; what is shown, stored and
     * hashed does not */
    llm_redact(l->base, l->base, sizeof l->base);
    snprintf(l->key_env, sizeof l->key_env, "%s",
             c->key_env[0] ? c->key_env : l->api->default_key_env);
    if (strcmp(l->key_env, "-") != 0) {
        const char *k = getenv(l->key_env);
        if (!k || !*k) {
            snprintf(err, errcap,
                     "%s: %s is not set (export the API key "
                     "there; a key is never read from a file "
                     "or the command line)",
                     l->api->name, l->key_env);
            return KEVO_ENOENT;
        }
        if (!(l->key = strdup(k)) || secret_add(k))
            return KEVO_ENOMEM;
    }
    snprintf(l->describe, sizeof l->describe, "%s:%s @ %s", l->api->name,
             c->model, l->base);
    return KEVO_OK;
}

static int check_cfg(const struct llm_cfg *c, char *err, size_t errcap)
{
    const char *bad = c->max_tokens < 1           ? "max_tokens"
                      : c->connect_timeout_ms < 1 ? "connect_timeout_ms"
                      : c->timeout_ms < 1         ? "timeout_ms"
                      : c->max_retries < 0        ? "max_retries"
                      : c->max_inflight < 1       ? "max_inflight"
                      : c->price_in < 0           ? "price_in"
                      : c->price_out < 0          ? "price_out"
                      : c->budget_tokens < 0      ? "budget_tokens"
                      : c->budget_usd < 0         ? "budget_usd"
                      : c->temperature < 0        ? "temperature"
                                                  : NULL;
    if (!bad)
        return KEVO_OK;
    snprintf(err, errcap, "llm: %s out of range", bad);
    return KEVO_EINVAL;
}

static int open_files(struct llm *l, const char *run_dir, char *err,
                      size_t errcap)
{
    int rc;
    if (l->cfg.provider == LLM_REPLAY) {
        rc = llm_replay_open(l->cfg.replay_dir, &l->replay, err, errcap);
        if (rc)
            return rc;
        snprintf(l->describe, sizeof l->describe, "replay:%s",
                 l->cfg.replay_dir);
    }
    if (!run_dir)
        return KEVO_OK;
    snprintf(l->run_dir, sizeof l->run_dir, "%s", run_dir);
    rc = llm_store_open(run_dir, &l->store, err, errcap);
    if (rc)
        return rc;
    l->seq0 = llm_store_count(l->store);
    if (l->api)
        llm_store_spent(l->store, &l->prior_tokens, &l->prior_cost);
    return KEVO_OK;
}

int llm_new(const struct llm_cfg *cfg, const char *run_dir, struct llm **out,
            char *err, size_t errcap)
{
    int rc = check_cfg(cfg, err, errcap);
    if (rc)
        return rc;
    pthread_once(&curl_once, curl_init);
    if (curl_init_rc) {
        snprintf(err, errcap, "llm: libcurl failed to initialise");
        return curl_init_rc;
    }
    if (secret_add_defaults()) /* every configured key, used or not */
        return KEVO_ENOMEM;
    struct llm *l = calloc(1, sizeof *l);
    if (!l)
        return KEVO_ENOMEM;
    l->cfg = *cfg;
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
    rng_seed(&l->rng, (uint64_t)fs_now_ns());
    if (cfg->provider != LLM_REPLAY)
        rc = setup_provider(l, err, errcap);
    if (!rc)
        rc = open_files(l, run_dir, err, errcap);
    if (!rc && l->api && !(l->multi = curl_multi_init()))
        rc = KEVO_ENOMEM;
    if (!rc && l->api) {
        if (pthread_create(&l->thread, NULL, worker, l)) {
            snprintf(err, errcap, "llm: cannot start the request thread");
            rc = KEVO_ENOMEM;
        } else {
            l->thread_started = 1;
        }
    }
    if (rc) {
        llm_free(l);
        return rc;
    }
    *out = l;
    return KEVO_OK;
}

static int grow_jobs(struct llm *l)
{
    if (l->n_jobs < l->cap_jobs)
        return KEVO_OK;
    long cap = l->cap_jobs ? l->cap_jobs * 2 : 64;
    struct job **nj = realloc(l->jobs, (size_t)cap * sizeof *nj);
    if (!nj)
        return KEVO_ENOMEM;
    l->jobs = nj;
    l->cap_jobs = cap;
    return KEVO_OK;
}

static struct job *new_job(const struct llm_req *r)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->kind = strdup(r->kind ? r->kind : "");
    j->system = strdup(r->system ? r->system : "");
    j->user = strdup(r->user ? r->user : "");
    if (!j->kind || !j->system || !j->user) {
        free_job(j);
        return NULL;
    }
    /* no key is sent (a prompt may quote a compile log) */
    secret_scrub(j->system);
    secret_scrub(j->user);
    j->t0_ns = fs_now_ns();
    return j;
}

/* A not yet answered job with the same key, or NULL. */
static struct job *find_leader(struct llm *l, const char *key)
{
    for (long t = l->n_jobs - 1; t >= 0; t--) {
        struct job *j = l->jobs[t];
        if (j && (j->state == J_QUEUED || j->state == J_ACTIVE) &&
            strcmp(j->ans.key, key) == 0)
            return j;
    }
    return NULL;
}

/* Answers j at once if it can be (lock held): disabled, replay, cache, a
 * twin in flight. Otherwise queues it. */
static int dispatch(struct llm *l, struct job *j)
{
    struct job *lead;
    struct llm_ans *a = &j->ans, got;
    char key[17];
    memcpy(key, a->key, sizeof key);
    if (l->replay) { /* answer n of the recorded run, whatever the prompt */
        int rc = llm_replay_get(l->replay, j->seq, a);
        memcpy(a->key, key, sizeof key);
        if (rc)
            return rc;
        finish(l, j, a->status);
    } else if (l->disabled) {
        snprintf(a->detail, sizeof a->detail, "provider disabled: %s", l->why);
        finish(l, j, LLM_FATAL);
    } else if (l->store && llm_store_get(l->store, key, &got) == KEVO_OK) {
        *a = got;
        j->state = J_DONE; /* already stored: no rewrite */
        a->latency_ms = (double)(fs_now_ns() - j->t0_ns) / 1e6;
        count_answer(l, a);
        pthread_cond_broadcast(&l->cv);
    } else if ((lead = find_leader(l, key))) {
        j->state = J_FOLLOW;
        j->leader = lead->ticket;
    } else {
        enqueue(l, j);
        curl_multi_wakeup(l->multi);
    }
    return KEVO_OK;
}

int llm_submit(struct llm *l, const struct llm_req *r, long *ticket)
{
    struct job *j = new_job(r);
    if (!j)
        return KEVO_ENOMEM;
    const struct llm_cfg *c = &l->cfg;
    llm_store_key(l->api ? l->api->name : "replay", l->base, c->model,
                  c->max_tokens, c->temperature, j->system, j->user,
                  j->ans.key);
    pthread_mutex_lock(&l->mu);
    int rc = grow_jobs(l);
    j->ticket = l->n_jobs;
    j->seq = r->seq >= 0 ? r->seq : l->seq0 + j->ticket;
    if (l->replay) { /* the answer is request seq's, whatever the prompt:
                        two equal prompts keep two transcripts */
        char num[32];
        snprintf(num, sizeof num, "#%ld", j->seq);
        hash_hex(hash_final(hash_str(hash_str(HASH_SEED, j->ans.key), num)),
                 j->ans.key);
    }
    if (!rc && l->store)
        rc = llm_store_index(l->store, j->seq, j->ans.key, j->kind);
    if (!rc) {
        l->jobs[l->n_jobs++] = j;
        rc = dispatch(l, j);
        if (rc)
            finish(l, j, LLM_FAILED);
        *ticket = j->ticket;
        rc = KEVO_OK;
    } else {
        free_job(j);
    }
    pthread_mutex_unlock(&l->mu);
    return rc;
}

int llm_wait(struct llm *l, long ticket, struct llm_ans *out)
{
    return llm_wait_until(l, ticket, NULL, NULL, out);
}

/* Waits on l->cv (lock held) until the next poll of give_up. */
static void wait_poll(struct llm *l)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += LLM_GIVE_UP_POLL_MS * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&l->cv, &l->mu, &ts);
}

int llm_wait_until(struct llm *l, long ticket, int (*give_up)(void *),
                   void *ud, struct llm_ans *out)
{
    pthread_mutex_lock(&l->mu);
    struct job *j = ticket >= 0 && ticket < l->n_jobs ? l->jobs[ticket] : NULL;
    if (!j) {
        pthread_mutex_unlock(&l->mu);
        return KEVO_EINVAL; /* never issued, or already collected */
    }
    while (j->state != J_DONE) {
        if (!give_up) {
            pthread_cond_wait(&l->cv, &l->mu);
            continue;
        }
        pthread_mutex_unlock(&l->mu); /* give_up may take its time */
        int stop = give_up(ud);
        pthread_mutex_lock(&l->mu);
        if (stop && j->state != J_DONE) {
            pthread_mutex_unlock(&l->mu);
            return KEVO_ESTOPPED;
        }
        if (j->state != J_DONE)
            wait_poll(l);
    }
    l->jobs[ticket] = NULL;
    pthread_mutex_unlock(&l->mu);
    *out = j->ans;
    j->ans.text = NULL;
    free_job(j);
    return KEVO_OK;
}

int llm_disabled(const struct llm *l, char *why, size_t whycap)
{
    struct llm *m = (struct llm *)l; /* the lock is not the value */
    pthread_mutex_lock(&m->mu);
    int d = l->disabled;
    if (d && why && whycap)
        snprintf(why, whycap, "%s", l->why);
    pthread_mutex_unlock(&m->mu);
    return d;
}

void llm_usage(const struct llm *l, struct llm_usage *u)
{
    struct llm *m = (struct llm *)l;
    pthread_mutex_lock(&m->mu);
    *u = l->usage;
    pthread_mutex_unlock(&m->mu);
}

const char *llm_describe(const struct llm *l)
{
    return l->describe;
}

void llm_free(struct llm *l)
{
    if (!l)
        return;
    if (l->thread_started) {
        pthread_mutex_lock(&l->mu);
        l->stop = 1;
        pthread_mutex_unlock(&l->mu);
        curl_multi_wakeup(l->multi);
        pthread_join(l->thread, NULL);
    }
    for (long t = 0; t < l->n_jobs; t++)
        free_job(l->jobs[t]);
    free(l->jobs);
    if (l->multi)
        curl_multi_cleanup(l->multi);
    llm_store_free(l->store);
    llm_replay_free(l->replay);
    if (l->key) {
        memset(l->key, 0, strlen(l->key));
        free(l->key);
    }
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
    free(l);
}
