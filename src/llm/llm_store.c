/*
 * llm_store.c - LLM transcripts, index, cache and replay reading (see
 * llm_store.h). Every file is JSON through cJSON; transcripts are replaced
 * atomically (fs_write_atomic) so a kill leaves the old one or the new one.
 */
#include "llm_store.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "fsutil.h"
#include "hash.h"
#include "jnl.h"
#include "secret.h"

struct llm_store {
    char dir[4096];  /* <run>/llm */
    struct jnl *idx; /* index.jsonl, appending */
};

struct llm_replay {
    char dir[4096]; /* the recorded run's llm/ */
    char run[4096]; /* the recorded run, for messages */
    cJSON *index;   /* its index records, in order */
};

static const char *const status_names[] = {"ok", "failed", "fatal", "budget",
                                           "abandoned"};
#define N_STATUS (int)(sizeof status_names / sizeof *status_names)

const char *llm_status_name(enum llm_status s)
{
    return (unsigned)s < N_STATUS ? status_names[s] : "?";
}

static int status_parse(const char *s, enum llm_status *out)
{
    for (int i = 0; i < N_STATUS; i++) {
        if (strcmp(s, status_names[i]) == 0) {
            *out = (enum llm_status)i;
            return KEVO_OK;
        }
    }
    return KEVO_EPARSE;
}

static uint64_t hash_field(uint64_t h, const char *s)
{
    /* the length first, so that ("ab","c") and ("a","bc") differ */
    return hash_str(hash_u64(h, strlen(s)), s);
}

void llm_store_key(const char *provider, const char *base_url,
                   const char *model, int max_tokens, double temperature,
                   const char *system, const char *user, char out[17])
{
    char t[64];
    snprintf(t, sizeof t, "%d %.17g", max_tokens, temperature);
    uint64_t h = hash_field(HASH_SEED, "kevo-llm-1");
    h = hash_field(h, provider);
    h = hash_field(h, base_url);
    h = hash_field(h, model);
    h = hash_field(h, t);
    h = hash_field(h, system);
    h = hash_field(h, user);
    hash_hex(hash_final(h), out);
}

/* ---- the store of this run */

int llm_store_open(const char *run_dir, struct llm_store **out, char *err,
                   size_t errcap)
{
    struct llm_store *s = calloc(1, sizeof *s);
    if (!s)
        return KEVO_ENOMEM;
    char path[4096 + 16];
    int rc = fs_join(s->dir, sizeof s->dir, run_dir, "llm");
    if (!rc && (rc = fs_mkdirs(s->dir)))
        snprintf(err, errcap, "cannot create '%s'", s->dir);
    if (!rc)
        rc = fs_join(path, sizeof path, s->dir, "index.jsonl");
    if (!rc && fs_exists(path)) {
        cJSON *recs = NULL;
        rc = jnl_open_resume(path, &s->idx, &recs, err, errcap);
        cJSON_Delete(recs);
    } else if (!rc && (rc = jnl_create(path, &s->idx))) {
        snprintf(err, errcap, "cannot create '%s': %s", path,
                 kevo_strerror(rc));
    }
    if (rc) {
        if (rc == KEVO_EINVAL)
            snprintf(err, errcap, "run directory path too long: '%s'", run_dir);
        free(s);
        return rc;
    }
    *out = s;
    return KEVO_OK;
}

void llm_store_free(struct llm_store *s)
{
    if (!s)
        return;
    jnl_close(s->idx);
    free(s);
}

long llm_store_count(const struct llm_store *s)
{
    return jnl_count(s->idx);
}

int llm_store_index(struct llm_store *s, long seq, const char *key,
                    const char *kind)
{
    cJSON *r = cJSON_CreateObject();
    int rc = KEVO_ENOMEM;
    if (r && cJSON_AddNumberToObject(r, "seq", (double)seq) &&
        cJSON_AddStringToObject(r, "key", key) &&
        cJSON_AddStringToObject(r, "kind", kind))
        rc = jnl_append(s->idx, r, 1);
    cJSON_Delete(r);
    return rc;
}

static int add_num(cJSON *o, const char *name, double v)
{
    return cJSON_AddNumberToObject(o, name, v) != NULL;
}

static int add_str(cJSON *o, const char *name, const char *v)
{
    return cJSON_AddStringToObject(o, name, v ? v : "") != NULL;
}

static cJSON *rec_json(const struct llm_rec *r)
{
    const struct llm_ans *a = r->ans;
    cJSON *o = cJSON_CreateObject();
    cJSON *p = cJSON_AddObjectToObject(o, "params");
    int ok = o && p && add_str(o, "key", a->key) &&
             add_num(o, "seq", (double)r->seq) &&
             add_str(o, "provider", r->provider) &&
             add_str(o, "base_url", r->base_url) &&
             add_str(o, "model", r->model) &&
             add_num(p, "max_tokens", r->max_tokens) &&
             add_num(p, "temperature", r->temperature) &&
             add_str(o, "kind", r->kind) && add_str(o, "system", r->system) &&
             add_str(o, "user", r->user) &&
             add_str(o, "status", llm_status_name(a->status)) &&
             add_num(o, "http_status", a->http_status) &&
             add_num(o, "attempts", a->attempts) &&
             add_num(o, "cached", a->cached) && add_str(o, "detail", a->detail);
    ok = ok && (a->text ? add_str(o, "text", a->text)
                        : cJSON_AddNullToObject(o, "text") != NULL);
    ok = ok && cJSON_AddBoolToObject(o, "truncated", a->truncated) &&
         add_num(o, "tokens_in", (double)a->tokens_in) &&
         add_num(o, "tokens_out", (double)a->tokens_out) &&
         add_num(o, "cost_usd", a->cost_usd) &&
         add_num(o, "latency_ms", a->latency_ms) &&
         add_num(o, "time", fs_wall_s());
    if (ok && r->replayed_from)
        ok = add_str(o, "replayed_from", r->replayed_from);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int llm_store_put(struct llm_store *s, const struct llm_rec *r)
{
    cJSON *o = rec_json(r);
    char *text = o ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    if (!text)
        return KEVO_ENOMEM;
    secret_scrub(text); /* no key in llm/ (secret.h), whoever echoed it */
    char name[32], path[4096 + 32];
    snprintf(name, sizeof name, "%s.json", r->ans->key);
    int rc = fs_join(path, sizeof path, s->dir, name);
    if (!rc)
        rc = fs_write_atomic(path, text, strlen(text));
    free(text);
    return rc;
}

static int read_json(const char *path, cJSON **out)
{
    char *buf;
    int rc = fs_read_file(path, &buf, NULL);
    if (rc)
        return rc;
    *out = cJSON_Parse(buf);
    free(buf);
    if (!*out || !cJSON_IsObject(*out)) {
        cJSON_Delete(*out);
        *out = NULL;
        return KEVO_EPARSE;
    }
    return KEVO_OK;
}

static double num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* A count or cost of a transcript someone else may have written: >= 0 and
 * at most max (a negative one would give budget back, a huge one overflow
 * a cast). */
static double amount(const cJSON *o, const char *name, double max)
{
    double v = num(o, name);
    return v >= 0 ? (v < max ? v : max) : 0;
}

/* Fills *ans from a transcript: the answer as recorded, served from the
 * store (cached, no attempts, no cost). */
static int ans_from_json(const cJSON *o, struct llm_ans *ans)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "status");
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(o, "text");
    const cJSON *detail = cJSON_GetObjectItemCaseSensitive(o, "detail");
    enum llm_status status;
    if (!cJSON_IsString(st) || status_parse(st->valuestring, &status))
        return KEVO_EPARSE;
    if (status == LLM_OK && !cJSON_IsString(text))
        return KEVO_EPARSE;
    memset(ans, 0, sizeof *ans);
    ans->status = status;
    ans->http_status = (int)amount(o, "http_status", 999);
    ans->cached = 1;
    ans->truncated =
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "truncated"));
    ans->tokens_in = (long)amount(o, "tokens_in", LLM_TOKENS_MAX);
    ans->tokens_out = (long)amount(o, "tokens_out", LLM_TOKENS_MAX);
    if (cJSON_IsString(detail))
        snprintf(ans->detail, sizeof ans->detail, "%s", detail->valuestring);
    if (cJSON_IsString(text) && !(ans->text = strdup(text->valuestring)))
        return KEVO_ENOMEM;
    return KEVO_OK;
}

/* llm_store_get on the transcript directory dir (<run>/llm). */
static int get_in(const char *dir, const char *key, struct llm_ans *ans)
{
    char name[32], path[4096 + 32];
    snprintf(name, sizeof name, "%s.json", key);
    if (fs_join(path, sizeof path, dir, name))
        return KEVO_ENOENT;
    cJSON *o;
    if (read_json(path, &o))
        return KEVO_ENOENT; /* absent or torn: ask again */
    int rc = ans_from_json(o, ans);
    cJSON_Delete(o);
    if (rc)
        return rc == KEVO_ENOMEM ? rc : KEVO_ENOENT;
    if (ans->status != LLM_OK && ans->status != LLM_FAILED) {
        free(ans->text);
        memset(ans, 0, sizeof *ans);
        return KEVO_ENOENT;
    }
    snprintf(ans->key, sizeof ans->key, "%s", key);
    return KEVO_OK;
}

int llm_store_get(const struct llm_store *s, const char *key,
                  struct llm_ans *ans)
{
    return get_in(s->dir, key, ans);
}

int llm_store_read(const char *run_dir, const char *key, struct llm_ans *ans)
{
    char dir[4096];
    if (fs_join(dir, sizeof dir, run_dir, "llm"))
        return KEVO_ENOENT;
    return get_in(dir, key, ans);
}

static int is_transcript_name(const char *name)
{
    uint64_t h;
    char hex[17];
    if (strlen(name) != 21 || strcmp(name + 16, ".json") != 0)
        return 0;
    memcpy(hex, name, 16);
    hex[16] = '\0';
    return hash_parse(hex, &h) == 0;
}

void llm_store_spent(const struct llm_store *s, double *tokens,
                     double *cost_usd)
{
    *tokens = *cost_usd = 0;
    DIR *d = opendir(s->dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[4096 + 300];
        cJSON *o;
        if (!is_transcript_name(e->d_name) ||
            fs_join(path, sizeof path, s->dir, e->d_name) ||
            read_json(path, &o))
            continue;
        if (num(o, "attempts") > 0) {
            *tokens += amount(o, "tokens_in", LLM_TOKENS_MAX) +
                       amount(o, "tokens_out", LLM_TOKENS_MAX);
            *cost_usd += amount(o, "cost_usd", 1e12);
        }
        cJSON_Delete(o);
    }
    closedir(d);
}

/* ---- replay */

int llm_replay_open(const char *dir, struct llm_replay **out, char *err,
                    size_t errcap)
{
    struct llm_replay *r = calloc(1, sizeof *r);
    if (!r)
        return KEVO_ENOMEM;
    char path[4096 + 16];
    snprintf(r->run, sizeof r->run, "%s", dir);
    int rc = fs_join(r->dir, sizeof r->dir, dir, "llm");
    if (!rc)
        rc = fs_join(path, sizeof path, r->dir, "index.jsonl");
    if (rc) {
        snprintf(err, errcap, "replay: run directory path too long: '%s'", dir);
    } else if (!fs_exists(path)) {
        snprintf(err, errcap,
                 "replay: no '%s' (was run '%s' made with an LLM?)", path, dir);
        rc = KEVO_ENOENT;
    } else {
        rc = jnl_read_all(path, &r->index, err, errcap);
    }
    if (rc) {
        free(r);
        return rc;
    }
    *out = r;
    return KEVO_OK;
}

static void replay_fail(struct llm_ans *ans, const char *fmt, const char *run,
                        long a, const char *b)
{
    memset(ans, 0, sizeof *ans);
    ans->status = LLM_FAILED;
    ans->cached = 1;
    snprintf(ans->detail, sizeof ans->detail, fmt, run, a, b);
}

/* The index record of request n: the last line whose "seq" is n (a
 * resumed run re-asks its pending requests under their own numbers, so a
 * number can appear twice, always with the same prompt); NULL if none. */
static const cJSON *replay_rec(const struct llm_replay *r, long n)
{
    const cJSON *rec, *hit = NULL;
    cJSON_ArrayForEach(rec, r->index) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(rec, "seq");
        if (cJSON_IsNumber(s) && (long)s->valuedouble == n)
            hit = rec;
    }
    return hit;
}

int llm_replay_get(const struct llm_replay *r, long n, struct llm_ans *ans)
{
    const cJSON *rec = n >= 0 ? replay_rec(r, n) : NULL;
    if (!rec) {
        char none[48];
        snprintf(none, sizeof none, " (none for request %ld)", n);
        replay_fail(ans, "replay: run '%s' recorded only %ld answers%s",
                    r->run, (long)cJSON_GetArraySize(r->index), none);
        return KEVO_OK;
    }
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(rec, "key");
    uint64_t h;
    char name[32], path[4096 + 32];
    cJSON *o = NULL;
    if (!cJSON_IsString(key) || hash_parse(key->valuestring, &h)) {
        replay_fail(ans, "replay: run '%s': index line %ld has no key%s",
                    r->run, n + 1, "");
        return KEVO_OK;
    }
    snprintf(name, sizeof name, "%s.json", key->valuestring);
    if (fs_join(path, sizeof path, r->dir, name) || read_json(path, &o)) {
        replay_fail(ans, "replay: run '%s' has no answer for request %ld (%s)",
                    r->run, n, key->valuestring);
        return KEVO_OK;
    }
    int rc = ans_from_json(o, ans);
    cJSON_Delete(o);
    if (rc == KEVO_EPARSE)
        replay_fail(ans, "replay: run '%s': answer %ld (%s) is malformed",
                    r->run, n, key->valuestring);
    else if (!rc && ans->status == LLM_ABANDONED)
        replay_fail(ans, "replay: run '%s' stopped before answer %ld came "
                    "(%s)", r->run, n, key->valuestring);
    return rc == KEVO_ENOMEM ? rc : KEVO_OK;
}

void llm_replay_free(struct llm_replay *r)
{
    if (!r)
        return;
    cJSON_Delete(r->index);
    free(r);
}
