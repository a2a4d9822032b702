/*
 * records.c - the journal's record types and their one JSON codec.
 */
#include "records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "llm.h"
#include "record.h"

static const char *const type_names[] = {"eval", "confirm", "gen", "llm",
                                          "profile", "defer"};

/* members that are accounting, not decisions */
static const char *const accounting[] = {
    "t", "latency_ms", "cached", "tokens_in", "tokens_out", "cost_usd",
    "key", "gpu", "rank", "evals_budget", "cost_ms", "compilers",
    "engine_ms"};

const char *rec_type_name(enum rec_type t)
{
    return t < REC_UNKNOWN ? type_names[t] : "?";
}

enum rec_type rec_type_of(const cJSON *o)
{
    const char *s = record_str(o, "type");
    for (int i = 0; s && i < REC_UNKNOWN; i++)
        if (!strcmp(s, type_names[i]))
            return (enum rec_type)i;
    return REC_UNKNOWN;
}

/* ------------------------------------------------------------ writing */

static void put_hash(cJSON *o, const char *k, uint64_t h)
{
    char hex[17];
    hash_hex(h, hex);
    cJSON_AddStringToObject(o, k, hex);
}

static void put_parents(cJSON *o, int n, const uint64_t *par)
{
    char hex[17];
    cJSON *a = cJSON_AddArrayToObject(o, "parents");
    for (int i = 0; i < n; i++) {
        hash_hex(par[i], hex);
        cJSON_AddItemToArray(a, cJSON_CreateString(hex));
    }
}

/* cJSON reports allocation failures only by NULL members; a record is
 * complete when its last member exists */
static cJSON *done(cJSON *o)
{
    if (o && !cJSON_GetObjectItemCaseSensitive(o, "t")) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cJSON *rec_eval_json(const struct rec_eval *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "type", "eval");
    cJSON_AddNumberToObject(o, "gen", r->gen);
    cJSON_AddNumberToObject(o, "idx", r->idx);
    cJSON_AddNumberToObject(o, "island", r->island);
    put_hash(o, "hash", r->hash);
    cJSON_AddStringToObject(o, "template", r->tpl);
    cJSON *p = cJSON_AddObjectToObject(o, "params");
    for (int i = 0; p && i < r->n_params; i++)
        cJSON_AddNumberToObject(p, r->names[i], (double)r->vals[i]);
    cJSON_AddStringToObject(o, "mutator", r->mutator);
    put_parents(o, r->n_par, r->par);
    put_hash(o, "source", r->source);
    /* its evidence is one JSON object: read from a journal, or checked
     * when the result came (runlog.c canonical) */
    record_put_result_text(o, &r->r);
    cJSON_AddNumberToObject(o, "t", r->t);
    return done(o);
}

cJSON *rec_confirm_json(const struct rec_confirm *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "type", "confirm");
    cJSON_AddNumberToObject(o, "gen", r->gen);
    put_hash(o, "challenger", r->challenger);
    put_hash(o, "incumbent", r->incumbent);
    cJSON_AddBoolToObject(o, "accept", r->accept);
    cJSON_AddNumberToObject(o, "ratio", r->ratio);
    cJSON_AddNumberToObject(o, "noise", r->noise);
    cJSON_AddNumberToObject(o, "t", r->t);
    return done(o);
}

cJSON *rec_gen_json(const struct rec_gen *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "type", "gen");
    cJSON_AddNumberToObject(o, "gen", r->gen);
    cJSON_AddNumberToObject(o, "evals", (double)r->evals);
    cJSON_AddNumberToObject(o, "children", r->children);
    if (r->has_best) {
        put_hash(o, "best", r->best);
        cJSON_AddNumberToObject(o, "best_fitness", r->best_fitness);
    }
    cJSON *isl = cJSON_AddArrayToObject(o, "islands");
    char hex[17];
    for (int i = 0, at = 0; isl && i < r->n_islands; i++) {
        cJSON *a = cJSON_CreateArray();
        for (int k = 0; a && k < r->island_n[i]; k++) {
            hash_hex(r->members[at++], hex);
            cJSON_AddItemToArray(a, cJSON_CreateString(hex));
        }
        cJSON_AddItemToArray(isl, a);
    }
    cJSON_AddNumberToObject(o, "archive_cells", r->archive_cells);
    if (r->evals_budget > 0)
        cJSON_AddNumberToObject(o, "evals_budget", (double)r->evals_budget);
    if (r->compilers > 0)
        cJSON_AddNumberToObject(o, "compilers", r->compilers);
    cJSON_AddNumberToObject(o, "t", r->t);
    return done(o);
}

cJSON *rec_llm_json(const struct rec_llm *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "type", "llm");
    cJSON_AddNumberToObject(o, "gen", r->gen);
    cJSON_AddNumberToObject(o, "seq", (double)r->seq);
    cJSON_AddStringToObject(o, "op", r->op);
    cJSON_AddNumberToObject(o, "island", r->island);
    put_parents(o, r->n_par, r->par);
    put_hash(o, "prompt", r->prompt);
    cJSON_AddStringToObject(o, "key", r->key);
    cJSON_AddStringToObject(o, "status", r->status);
    cJSON_AddStringToObject(o, "verdict", r->verdict);
    cJSON_AddStringToObject(o, "why", r->why);
    if (r->has_tpl) {
        cJSON_AddStringToObject(o, "template", r->tpl);
        put_hash(o, "template_hash", r->tpl_hash);
    }
    cJSON_AddNumberToObject(o, "tokens_in", (double)r->tokens_in);
    cJSON_AddNumberToObject(o, "tokens_out", (double)r->tokens_out);
    cJSON_AddNumberToObject(o, "cost_usd", r->cost_usd);
    cJSON_AddBoolToObject(o, "cached", r->cached);
    cJSON_AddNumberToObject(o, "latency_ms", r->latency_ms);
    cJSON_AddNumberToObject(o, "t", r->t);
    return done(o);
}

cJSON *rec_profile_json(const struct rec_profile *r)
{
    cJSON *o = cJSON_CreateObject(), *p = prof_json(&r->p);
    if (!o || !p) {
        cJSON_Delete(o);
        cJSON_Delete(p);
        return NULL;
    }
    cJSON_AddStringToObject(o, "type", "profile");
    cJSON_AddNumberToObject(o, "gen", r->gen);
    put_hash(o, "hash", r->hash);
    cJSON_AddStringToObject(o, "why", r->why);
    cJSON_AddItemToObject(o, "profile", p);
    cJSON_AddNumberToObject(o, "t", r->t);
    return done(o);
}

cJSON *rec_defer_json(const struct rec_defer *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "type", "defer");
    cJSON_AddNumberToObject(o, "gen", r->gen);
    cJSON_AddNumberToObject(o, "idx", r->idx);
    put_hash(o, "hash", r->hash);
    if (r->end)
        cJSON_AddBoolToObject(o, "end", 1);
    if (r->dropped)
        cJSON_AddBoolToObject(o, "dropped", 1);
    cJSON_AddNumberToObject(o, "t", r->t);
    return done(o);
}

cJSON *rec_json(const struct record *r)
{
    switch (r->type) {
    case REC_EVAL: return rec_eval_json(&r->u.eval);
    case REC_CONFIRM: return rec_confirm_json(&r->u.confirm);
    case REC_GEN: return rec_gen_json(&r->u.gen);
    case REC_LLM: return rec_llm_json(&r->u.llm);
    case REC_PROFILE: return rec_profile_json(&r->u.profile);
    case REC_DEFER: return rec_defer_json(&r->u.defer);
    default: return NULL;
    }
}

cJSON *rec_best_json(const struct rec_best *b)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    put_hash(o, "hash", b->hash);
    cJSON_AddStringToObject(o, "template", b->tpl);
    cJSON *p = cJSON_AddObjectToObject(o, "params");
    for (int i = 0; p && i < b->n_params; i++)
        cJSON_AddNumberToObject(p, b->names[i], (double)b->vals[i]);
    cJSON_AddNumberToObject(o, "fitness", b->fitness);
    cJSON_AddStringToObject(o, "unit", b->unit);
    cJSON_AddNumberToObject(o, "median_ns", b->median_ns);
    cJSON_AddNumberToObject(o, "ratio", b->ratio);
    if (!cJSON_AddNumberToObject(o, "generation", b->gen)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* ------------------------------------------------------------ reading */

static int bad(char *err, size_t cap, const char *type, const char *k)
{
    snprintf(err, cap, "%s record has no valid '%s'", type, k);
    return KEVO_EPARSE;
}

static int get_num(const cJSON *o, const char *k, double *v)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(it))
        return -1;
    *v = it->valuedouble;
    return 0;
}

static int get_int(const cJSON *o, const char *k, int *v)
{
    double d;
    if (get_num(o, k, &d) || d < -2147483648.0 || d > 2147483647.0)
        return -1;
    *v = (int)d;
    return 0;
}

static int get_long(const cJSON *o, const char *k, long *v)
{
    double d;
    if (get_num(o, k, &d))
        return -1;
    *v = (long)d;
    return 0;
}

static int get_hash(const cJSON *o, const char *k, uint64_t *h)
{
    const char *s = record_str(o, k);
    return s && strlen(s) == 16 && !hash_parse(s, h) ? 0 : -1;
}

static int get_str(const cJSON *o, const char *k, char *out, size_t cap)
{
    const char *s = record_str(o, k);
    if (!s || strlen(s) >= cap)
        return -1;
    memcpy(out, s, strlen(s) + 1);
    return 0;
}

static int get_parents(const cJSON *o, int *n, uint64_t *par)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "parents"), *it;
    *n = 0;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > 2)
        return -1;
    cJSON_ArrayForEach(it, a)
    {
        if (!cJSON_IsString(it) || strlen(it->valuestring) != 16 ||
            hash_parse(it->valuestring, &par[*n]))
            return -1;
        (*n)++;
    }
    return 0;
}

static double opt_num(const cJSON *o, const char *k)
{
    return record_num(o, k, 0);
}

/* A token count of an LLM record: 0..LLM_TOKENS_MAX whatever the file
 * says (a hostile 1e308 must not overflow the cast). */
static long tokens_num(const cJSON *o, const char *k)
{
    double v = opt_num(o, k);
    return v > 0 ? (long)(v < LLM_TOKENS_MAX ? v : LLM_TOKENS_MAX) : 0;
}

/* The numeric members of object p into names/vals. */
static int get_params(const cJSON *p, int *n,
                      char (*names)[REC_NAME_MAX], int64_t *vals)
{
    const cJSON *it;
    *n = 0;
    if (!cJSON_IsObject(p))
        return -1;
    cJSON_ArrayForEach(it, p)
    {
        if (!cJSON_IsNumber(it) || *n >= TPL_MAX_PARAMS ||
            strlen(it->string) >= REC_NAME_MAX)
            return -1;
        memcpy(names[*n], it->string, strlen(it->string) + 1);
        vals[(*n)++] = (int64_t)it->valuedouble;
    }
    return 0;
}

int rec_eval_parse(const cJSON *o, struct rec_eval *r, char *err,
                   size_t errcap)
{
    memset(r, 0, sizeof *r);
    eval_result_init(&r->r);
    if (rec_type_of(o) != REC_EVAL)
        return bad(err, errcap, "eval", "type");
    if (get_int(o, "gen", &r->gen))
        return bad(err, errcap, "eval", "gen");
    if (get_hash(o, "hash", &r->hash))
        return bad(err, errcap, "eval", "hash");
    if (get_str(o, "template", r->tpl, sizeof r->tpl))
        return bad(err, errcap, "eval", "template");
    if (get_params(cJSON_GetObjectItemCaseSensitive(o, "params"),
                   &r->n_params, r->names, r->vals))
        return bad(err, errcap, "eval", "params");
    if (record_get_result(o, &r->r))
        return bad(err, errcap, "eval", "outcome");
    /* members that runs before them lack */
    r->idx = record_int(o, "idx", -1);
    r->island = record_int(o, "island", 0);
    const char *m = record_str(o, "mutator");
    snprintf(r->mutator, sizeof r->mutator, "%s", m ? m : "");
    if (cJSON_GetObjectItemCaseSensitive(o, "parents") &&
        get_parents(o, &r->n_par, r->par))
        return bad(err, errcap, "eval", "parents");
    if (cJSON_GetObjectItemCaseSensitive(o, "source") &&
        get_hash(o, "source", &r->source))
        return bad(err, errcap, "eval", "source");
    r->t = opt_num(o, "t");
    return KEVO_OK;
}

int rec_best_parse(const cJSON *o, struct rec_best *b, char *err,
                   size_t errcap)
{
    memset(b, 0, sizeof *b);
    if (get_hash(o, "hash", &b->hash))
        return bad(err, errcap, "best", "hash");
    if (get_str(o, "template", b->tpl, sizeof b->tpl))
        return bad(err, errcap, "best", "template");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "params");
    if (p && get_params(p, &b->n_params, b->names, b->vals))
        return bad(err, errcap, "best", "params");
    const char *u = record_str(o, "unit");
    snprintf(b->unit, sizeof b->unit, "%s", u ? u : "");
    b->fitness = opt_num(o, "fitness");
    b->median_ns = opt_num(o, "median_ns");
    b->ratio = opt_num(o, "ratio");
    b->gen = record_int(o, "generation", 0);
    return KEVO_OK;
}

void rec_best_from_eval(const struct rec_eval *e, struct rec_best *b)
{
    memset(b, 0, sizeof *b);
    b->hash = e->hash;
    memcpy(b->tpl, e->tpl, sizeof b->tpl);
    b->n_params = e->n_params;
    memcpy(b->names, e->names, sizeof b->names);
    memcpy(b->vals, e->vals, sizeof b->vals);
    b->fitness = e->r.fitness;
    b->median_ns = e->r.median_ns;
    b->ratio = e->r.ratio;
    b->gen = e->gen;
}

int rec_confirm_parse(const cJSON *o, struct rec_confirm *r, char *err,
                      size_t errcap)
{
    memset(r, 0, sizeof *r);
    if (rec_type_of(o) != REC_CONFIRM)
        return bad(err, errcap, "confirm", "type");
    if (get_int(o, "gen", &r->gen))
        return bad(err, errcap, "confirm", "gen");
    if (get_hash(o, "challenger", &r->challenger))
        return bad(err, errcap, "confirm", "challenger");
    if (get_hash(o, "incumbent", &r->incumbent))
        return bad(err, errcap, "confirm", "incumbent");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "accept");
    if (!cJSON_IsBool(a))
        return bad(err, errcap, "confirm", "accept");
    r->accept = cJSON_IsTrue(a);
    r->ratio = opt_num(o, "ratio");
    r->noise = opt_num(o, "noise");
    r->t = opt_num(o, "t");
    return KEVO_OK;
}

int rec_gen_parse(const cJSON *o, struct rec_gen *r, char *err,
                  size_t errcap)
{
    memset(r, 0, sizeof *r);
    if (rec_type_of(o) != REC_GEN)
        return bad(err, errcap, "gen", "type");
    if (get_int(o, "gen", &r->gen))
        return bad(err, errcap, "gen", "gen");
    if (get_long(o, "evals", &r->evals))
        return bad(err, errcap, "gen", "evals");
    r->children = record_int(o, "children", 0);
    if (cJSON_GetObjectItemCaseSensitive(o, "best")) {
        if (get_hash(o, "best", &r->best))
            return bad(err, errcap, "gen", "best");
        r->has_best = 1;
        r->best_fitness = opt_num(o, "best_fitness");
    }
    const cJSON *isl = cJSON_GetObjectItemCaseSensitive(o, "islands"), *a,
                *it;
    if (!cJSON_IsArray(isl))
        return bad(err, errcap, "gen", "islands");
    int n = cJSON_GetArraySize(isl), total = 0;
    cJSON_ArrayForEach(a, isl)
    {
        if (!cJSON_IsArray(a))
            return bad(err, errcap, "gen", "islands");
        total += cJSON_GetArraySize(a);
    }
    r->island_n = calloc((size_t)n + 1, sizeof *r->island_n);
    r->members = calloc((size_t)total + 1, sizeof *r->members);
    if (!r->island_n || !r->members) {
        rec_gen_release(r);
        return KEVO_ENOMEM;
    }
    int at = 0;
    cJSON_ArrayForEach(a, isl)
    {
        cJSON_ArrayForEach(it, a)
        {
            if (!cJSON_IsString(it) || strlen(it->valuestring) != 16 ||
                hash_parse(it->valuestring, &r->members[at])) {
                rec_gen_release(r);
                return bad(err, errcap, "gen", "islands");
            }
            at++;
            r->island_n[r->n_islands]++;
        }
        r->n_islands++;
    }
    r->archive_cells = record_int(o, "archive_cells", 0);
    r->evals_budget = (long)record_i64(o, "evals_budget", 0);
    /* a count no pool has (an edited journal's) reads as not recorded */
    r->compilers = record_int(o, "compilers", 0);
    if (r->compilers < 0 || r->compilers > 1024)
        r->compilers = 0;
    r->t = opt_num(o, "t");
    return KEVO_OK;
}

int rec_llm_parse(const cJSON *o, struct rec_llm *r, char *err,
                  size_t errcap)
{
    memset(r, 0, sizeof *r);
    if (rec_type_of(o) != REC_LLM)
        return bad(err, errcap, "llm", "type");
    if (get_int(o, "gen", &r->gen))
        return bad(err, errcap, "llm", "gen");
    if (get_hash(o, "prompt", &r->prompt))
        return bad(err, errcap, "llm", "prompt");
    if (get_str(o, "key", r->key, sizeof r->key))
        return bad(err, errcap, "llm", "key");
    if (get_str(o, "status", r->status, sizeof r->status))
        return bad(err, errcap, "llm", "status");
    if (get_str(o, "op", r->op, sizeof r->op))
        return bad(err, errcap, "llm", "op");
    r->seq = (long)record_i64(o, "seq", -1);
    r->island = record_int(o, "island", 0);
    if (cJSON_GetObjectItemCaseSensitive(o, "parents") &&
        get_parents(o, &r->n_par, r->par))
        return bad(err, errcap, "llm", "parents");
    const char *v = record_str(o, "verdict"), *w = record_str(o, "why");
    snprintf(r->verdict, sizeof r->verdict, "%s", v ? v : "");
    snprintf(r->why, sizeof r->why, "%s", w ? w : "");
    if (cJSON_GetObjectItemCaseSensitive(o, "template")) {
        if (get_str(o, "template", r->tpl, sizeof r->tpl) ||
            get_hash(o, "template_hash", &r->tpl_hash))
            return bad(err, errcap, "llm", "template");
        r->has_tpl = 1;
    }
    r->tokens_in = tokens_num(o, "tokens_in");
    r->tokens_out = tokens_num(o, "tokens_out");
    r->cost_usd = opt_num(o, "cost_usd");
    r->cached = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "cached"));
    r->latency_ms = opt_num(o, "latency_ms");
    r->t = opt_num(o, "t");
    return KEVO_OK;
}

int rec_profile_parse(const cJSON *o, struct rec_profile *r, char *err,
                      size_t errcap)
{
    memset(r, 0, sizeof *r);
    if (rec_type_of(o) != REC_PROFILE)
        return bad(err, errcap, "profile", "type");
    if (get_int(o, "gen", &r->gen))
        return bad(err, errcap, "profile", "gen");
    if (get_hash(o, "hash", &r->hash))
        return bad(err, errcap, "profile", "hash");
    const char *w = record_str(o, "why");
    snprintf(r->why, sizeof r->why, "%s", w ? w : "");
    r->t = opt_num(o, "t");
    return prof_parse(cJSON_GetObjectItemCaseSensitive(o, "profile"), &r->p,
                      err, errcap);
}

int rec_defer_kind(const cJSON *o)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "end"))       ? 2
           : cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "dropped")) ? 3
                                                                          : 1;
}

int rec_defer_parse(const cJSON *o, struct rec_defer *r, char *err,
                    size_t errcap)
{
    memset(r, 0, sizeof *r);
    if (rec_type_of(o) != REC_DEFER)
        return bad(err, errcap, "defer", "type");
    if (get_int(o, "gen", &r->gen) || r->gen < 0)
        return bad(err, errcap, "defer", "gen");
    if (get_int(o, "idx", &r->idx) || r->idx < 0)
        return bad(err, errcap, "defer", "idx");
    if (get_hash(o, "hash", &r->hash))
        return bad(err, errcap, "defer", "hash");
    const cJSON *end = cJSON_GetObjectItemCaseSensitive(o, "end");
    if (end && !cJSON_IsBool(end))
        return bad(err, errcap, "defer", "end");
    r->end = cJSON_IsTrue(end);
    const cJSON *dr = cJSON_GetObjectItemCaseSensitive(o, "dropped");
    if (dr && !cJSON_IsBool(dr))
        return bad(err, errcap, "defer", "dropped");
    r->dropped = cJSON_IsTrue(dr);
    if (r->end && r->dropped)
        return bad(err, errcap, "defer", "end and dropped");
    r->t = opt_num(o, "t");
    return KEVO_OK;
}

int rec_parse(const cJSON *o, struct record *r, char *err, size_t errcap)
{
    memset(r, 0, sizeof *r);
    r->type = rec_type_of(o);
    switch (r->type) {
    case REC_EVAL: return rec_eval_parse(o, &r->u.eval, err, errcap);
    case REC_CONFIRM: return rec_confirm_parse(o, &r->u.confirm, err, errcap);
    case REC_GEN: return rec_gen_parse(o, &r->u.gen, err, errcap);
    case REC_LLM: return rec_llm_parse(o, &r->u.llm, err, errcap);
    case REC_PROFILE:
        return rec_profile_parse(o, &r->u.profile, err, errcap);
    case REC_DEFER: return rec_defer_parse(o, &r->u.defer, err, errcap);
    default:
        snprintf(err, errcap, "record has no known 'type' (eval, confirm, "
                 "gen, llm, profile, defer)");
        return KEVO_EPARSE;
    }
}

int rec_parse_text(const char *line, struct record *r, char *err,
                   size_t errcap)
{
    cJSON *o = cJSON_Parse(line);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        memset(r, 0, sizeof *r);
        r->type = REC_UNKNOWN;
        snprintf(err, errcap, "not a JSON object (a truncated line?)");
        return KEVO_EPARSE;
    }
    int rc = rec_parse(o, r, err, errcap);
    cJSON_Delete(o);
    return rc;
}

int rec_parse_all(const cJSON *a, int strict, struct record **recs, int *n,
                  int *bad, char *err, size_t errcap)
{
    const cJSON *o;
    int i = 0;
    *n = 0;
    *recs = calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof **recs);
    if (!*recs)
        return KEVO_ENOMEM;
    cJSON_ArrayForEach(o, a)
    {
        int rc = rec_parse(o, &(*recs)[*n], err, errcap);
        if (!rc) {
            (*n)++;
        } else {
            rec_release(&(*recs)[*n]);
            if (rc == KEVO_ENOMEM || strict) {
                *bad = i;
                return rc;
            }
        }
        i++;
    }
    return KEVO_OK;
}

void rec_release_all(struct record *recs, int n)
{
    for (int i = 0; recs && i < n; i++)
        rec_release(&recs[i]);
    free(recs);
}

double rec_time(const struct record *r)
{
    switch (r->type) {
    case REC_EVAL: return r->u.eval.t;
    case REC_CONFIRM: return r->u.confirm.t;
    case REC_GEN: return r->u.gen.t;
    case REC_LLM: return r->u.llm.t;
    case REC_PROFILE: return r->u.profile.t;
    case REC_DEFER: return r->u.defer.t;
    default: return 0;
    }
}

int rec_generation(const struct record *r)
{
    switch (r->type) {
    case REC_EVAL: return r->u.eval.gen;
    case REC_CONFIRM: return r->u.confirm.gen;
    case REC_GEN: return r->u.gen.gen;
    case REC_LLM: return r->u.llm.gen;
    case REC_PROFILE: return r->u.profile.gen;
    case REC_DEFER: return r->u.defer.gen;
    default: return -1;
    }
}

void rec_eval_release(struct rec_eval *r)
{
    eval_result_release(&r->r);
}

void rec_gen_release(struct rec_gen *r)
{
    free(r->island_n);
    free(r->members);
    r->island_n = NULL;
    r->members = NULL;
}

void rec_release(struct record *r)
{
    if (r->type == REC_EVAL)
        rec_eval_release(&r->u.eval);
    else if (r->type == REC_GEN)
        rec_gen_release(&r->u.gen);
}

static int64_t param_of(int n, const char (*names)[REC_NAME_MAX],
                        const int64_t *vals, const char *name, int64_t dflt)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return vals[i];
    return dflt;
}

int64_t rec_eval_param(const struct rec_eval *r, const char *name,
                       int64_t dflt)
{
    return param_of(r->n_params, r->names, r->vals, name, dflt);
}

int64_t rec_best_param(const struct rec_best *b, const char *name,
                       int64_t dflt)
{
    return param_of(b->n_params, b->names, b->vals, name, dflt);
}

/* ------------------------------------------------------- comparing */

int rec_is_accounting(const char *k)
{
    for (size_t i = 0; i < sizeof accounting / sizeof *accounting; i++)
        if (!strcmp(k, accounting[i]))
            return 1;
    return 0;
}

/* x and y alike; a raw item (record_put_result_text) as what it parses
 * to. */
static int same_item(const cJSON *x, const cJSON *y)
{
    if (!cJSON_IsRaw(x) && !cJSON_IsRaw(y))
        return cJSON_Compare(x, y, 1);
    cJSON *px = cJSON_IsRaw(x) ? cJSON_Parse(x->valuestring) : NULL,
          *py = cJSON_IsRaw(y) ? cJSON_Parse(y->valuestring) : NULL;
    int same = (!cJSON_IsRaw(x) || px) && (!cJSON_IsRaw(y) || py) &&
               cJSON_Compare(px ? px : x, py ? py : y, 1);
    cJSON_Delete(px);
    cJSON_Delete(py);
    return same;
}

const char *rec_first_difference(const cJSON *a, const cJSON *b)
{
    const cJSON *x;
    cJSON_ArrayForEach(x, a)
    {
        if (rec_is_accounting(x->string))
            continue;
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
        if (!y || !same_item(x, y))
            return x->string;
    }
    cJSON_ArrayForEach(x, b)
        if (!rec_is_accounting(x->string) &&
            !cJSON_GetObjectItemCaseSensitive(a, x->string))
            return x->string;
    return NULL;
}

void rec_describe(const cJSON *o, char *out, size_t cap)
{
    const char *h = record_str(o, "hash"), *t = record_str(o, "template");
    const char *c = record_str(o, "challenger"), *i = record_str(o,
                                                                "incumbent");
    switch (rec_type_of(o)) {
    case REC_EVAL:
        snprintf(out, cap, "the evaluation of %s (%s)", h ? h : "?",
                 t ? t : "?");
        break;
    case REC_CONFIRM:
        snprintf(out, cap, "a confirmation of %s against %s", c ? c : "?",
                 i ? i : "?");
        break;
    case REC_PROFILE:
        snprintf(out, cap, "the profile of %s (%s)", h ? h : "?",
                 record_str(o, "why") ? record_str(o, "why") : "?");
        break;
    case REC_LLM:
        snprintf(out, cap, "the answer to LLM request %.0f (%s)",
                 record_num(o, "seq", -1),
                 record_str(o, "op") ? record_str(o, "op") : "?");
        break;
    case REC_DEFER:
        snprintf(out, cap, "the %s of %s (%s)",
                 rec_defer_kind(o) == 3 ? "drop" : "deferral", h ? h : "?",
                 rec_defer_kind(o) == 2 ? "not measured by the time budget"
                 : rec_defer_kind(o) == 3
                     ? "optional, not measured when the rest was"
                     : "its compile had not ended");
        break;
    default: {
        const char *ty = record_str(o, "type");
        snprintf(out, cap, "a '%s' record (generation %.0f)", ty ? ty : "?",
                 record_num(o, "gen", -1));
    }
    }
}
