/*
 * llm_http.c - request bodies and answer parsing of the OpenAI chat
 * completions API and the Anthropic Messages API (see llm_http.h).
 *
 * Shapes as documented by the vendors (2025): OpenAI POST
 * {base}/chat/completions, "Authorization: Bearer", answer
 * choices[0].message.content, usage.prompt_tokens/completion_tokens,
 * finish_reason "length" when cut; api.openai.com wants
 * max_completion_tokens (max_tokens is deprecated there and refused by
 * reasoning models, which also accept only the default temperature).
 * Anthropic POST {base}/v1/messages, "x-api-key", "anthropic-version:
 * 2023-06-01", top-level system, answer content[] blocks of type "text",
 * usage.input_tokens/output_tokens, stop_reason "max_tokens" when cut,
 * temperature in [0, 1]. Error bodies: {"error":{"message":...}} (OpenAI)
 * and {"type":"error","error":{"type":...,"message":...}} (Anthropic).
 */
#include "llm_http.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

/* ---- common */

static int add_header(struct curl_slist **h, const char *line)
{
    struct curl_slist *n = curl_slist_append(*h, line);
    if (!n)
        return KEVO_ENOMEM;
    *h = n;
    return KEVO_OK;
}

/* Appends "name: key" without leaving the key in a buffer of ours. */
static int add_key_header(struct curl_slist **h, const char *name,
                          const char *key)
{
    size_t n = strlen(name) + strlen(key) + 1;
    char *line = malloc(n);
    if (!line)
        return KEVO_ENOMEM;
    snprintf(line, n, "%s%s", name, key);
    int rc = add_header(h, line);
    memset(line, 0, n);
    free(line);
    return rc;
}

static int add_common_headers(struct curl_slist **h)
{
    /* "Expect:" stops curl from waiting for 100-continue on big bodies */
    if (add_header(h, "Content-Type: application/json") ||
        add_header(h, "Accept: application/json") || add_header(h, "Expect:"))
        return KEVO_ENOMEM;
    return KEVO_OK;
}

static cJSON *message(const char *role, const char *content)
{
    cJSON *m = cJSON_CreateObject();
    if (!m || !cJSON_AddStringToObject(m, "role", role) ||
        !cJSON_AddStringToObject(m, "content", content)) {
        cJSON_Delete(m);
        return NULL;
    }
    return m;
}

static char *print_and_delete(cJSON *root, int ok)
{
    char *s = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return s;
}

/* A token count of the answer's usage: absent is absent (0 for optional
 * counts, -1 for required ones); a value that is not a number >= 0 (a
 * string, -5, NaN) is -1, which the caller replaces by an estimate; a huge
 * one (1e308, 1e999) is clamped to LLM_TOKENS_MAX, and so spends any
 * budget, instead of overflowing a cast. */
static long json_tokens(const cJSON *obj, const char *name, long absent)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!v || cJSON_IsNull(v))
        return absent;
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
    if (!(d >= 0))
        return -1;
    return d > LLM_TOKENS_MAX ? (long)LLM_TOKENS_MAX : (long)d;
}

/* The sum of counts a and b, -1 if either is -1. */
static long tokens_sum(long a, long b)
{
    return a < 0 || b < 0 ? -1 : a + b;
}

static int parse_root(const char *body, cJSON **root, char *err, size_t errcap)
{
    *root = cJSON_Parse(body);
    if (*root && cJSON_IsObject(*root))
        return KEVO_OK;
    cJSON_Delete(*root);
    *root = NULL;
    snprintf(err, errcap, "answer is not a JSON object");
    return KEVO_EPARSE;
}

/* ---- OpenAI-compatible chat completions */

/* OpenAI's reasoning models accept only the default temperature. */
static int openai_fixed_temperature(const char *model)
{
    return (model[0] == 'o' && isdigit((unsigned char)model[1])) ||
           strncmp(model, "gpt-5", 5) == 0;
}

static char *openai_body(const struct llm_cfg *c, const char *base,
                         const char *system, const char *user)
{
    int official = llm_http_is_openai_com(base);
    cJSON *root = cJSON_CreateObject();
    cJSON *msgs = cJSON_AddArrayToObject(root, "messages");
    int ok = root && msgs && cJSON_AddStringToObject(root, "model", c->model);
    if (ok && system[0]) {
        cJSON *m = message("system", system);
        ok = m && cJSON_AddItemToArray(msgs, m);
    }
    cJSON *m = ok ? message("user", user) : NULL;
    ok = m && cJSON_AddItemToArray(msgs, m);
    ok = ok && cJSON_AddNumberToObject(
                   root, official ? "max_completion_tokens" : "max_tokens",
                   c->max_tokens);
    if (ok && !(official && openai_fixed_temperature(c->model)))
        ok = cJSON_AddNumberToObject(root, "temperature", c->temperature) !=
             NULL;
    return print_and_delete(root, ok);
}

static int openai_headers(struct curl_slist **h, const char *key)
{
    if (add_common_headers(h))
        return KEVO_ENOMEM;
    return key ? add_key_header(h, "Authorization: Bearer ", key) : KEVO_OK;
}

static int openai_parse(const char *body, struct llm_reply *out, char *err,
                        size_t errcap)
{
    cJSON *root;
    int rc = parse_root(body, &root, err, errcap);
    if (rc)
        return rc;
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(root, "choices");
    const cJSON *c0 = cJSON_GetArrayItem(choices, 0);
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(c0, "message");
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
    const cJSON *refusal = cJSON_GetObjectItemCaseSensitive(msg, "refusal");
    if (!cJSON_IsArray(choices) || !cJSON_IsObject(c0)) {
        snprintf(err, errcap, "answer has no choices[0]");
        rc = KEVO_EPARSE;
    } else if (!cJSON_IsString(content)) {
        if (cJSON_IsString(refusal))
            snprintf(err, errcap, "model refused: %.120s",
                     refusal->valuestring);
        else
            snprintf(err, errcap, "answer has no choices[0].message.content");
        rc = KEVO_EPARSE;
    } else if (!(out->text = strdup(content->valuestring))) {
        rc = KEVO_ENOMEM;
    } else {
        const cJSON *fr = cJSON_GetObjectItemCaseSensitive(c0, "finish_reason");
        const cJSON *usage = cJSON_GetObjectItemCaseSensitive(root, "usage");
        out->truncated =
            cJSON_IsString(fr) && strcmp(fr->valuestring, "length") == 0;
        out->tokens_in = json_tokens(usage, "prompt_tokens", -1);
        out->tokens_out = json_tokens(usage, "completion_tokens", -1);
    }
    cJSON_Delete(root);
    return rc;
}

const struct llm_api llm_api_openai = {
    .name = "openai",
    .default_base = "https://api.openai.com/v1",
    .default_key_env = "OPENAI_API_KEY",
    .path = "/chat/completions",
    .body = openai_body,
    .headers = openai_headers,
    .parse = openai_parse,
};

/* ---- Anthropic Messages */

static char *anthropic_body(const struct llm_cfg *c, const char *base,
                            const char *system, const char *user)
{
    double t = c->temperature < 0 ? 0 : c->temperature > 1 ? 1 : c->temperature;
    cJSON *root = cJSON_CreateObject();
    cJSON *msgs = cJSON_CreateArray();
    int ok = root && msgs && cJSON_AddStringToObject(root, "model", c->model) &&
             cJSON_AddNumberToObject(root, "max_tokens", c->max_tokens) &&
             cJSON_AddNumberToObject(root, "temperature", t);
    if (ok && system[0])
        ok = cJSON_AddStringToObject(root, "system", system) != NULL;
    cJSON *m = ok ? message("user", user) : NULL;
    ok = m && cJSON_AddItemToArray(msgs, m);
    if (ok) {
        ok = cJSON_AddItemToObject(root, "messages", msgs);
        msgs = NULL;
    }
    cJSON_Delete(msgs);
    return print_and_delete(root, ok);
}

static int anthropic_headers(struct curl_slist **h, const char *key)
{
    if (add_common_headers(h) || add_header(h, "anthropic-version: 2023-06-01"))
        return KEVO_ENOMEM;
    return key ? add_key_header(h, "x-api-key: ", key) : KEVO_OK;
}

/* Joins the text blocks of content[] into a new string. */
static char *join_text(const cJSON *content)
{
    size_t n = 1;
    const cJSON *b;
    cJSON_ArrayForEach(b, content)
    {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "text");
        if (cJSON_IsString(t))
            n += strlen(t->valuestring);
    }
    char *s = malloc(n), *p = s;
    if (!s)
        return NULL;
    cJSON_ArrayForEach(b, content)
    {
        const cJSON *ty = cJSON_GetObjectItemCaseSensitive(b, "type");
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "text");
        if (cJSON_IsString(ty) && strcmp(ty->valuestring, "text") == 0 &&
            cJSON_IsString(t)) {
            size_t k = strlen(t->valuestring);
            memcpy(p, t->valuestring, k);
            p += k;
        }
    }
    *p = '\0';
    return s;
}

static int anthropic_parse(const char *body, struct llm_reply *out, char *err,
                           size_t errcap)
{
    cJSON *root;
    int rc = parse_root(body, &root, err, errcap);
    if (rc)
        return rc;
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(root, "content");
    if (!cJSON_IsArray(content)) {
        snprintf(err, errcap, "answer has no content[]");
        rc = KEVO_EPARSE;
    } else if (!(out->text = join_text(content))) {
        rc = KEVO_ENOMEM;
    } else {
        const cJSON *sr = cJSON_GetObjectItemCaseSensitive(root, "stop_reason");
        const cJSON *usage = cJSON_GetObjectItemCaseSensitive(root, "usage");
        out->truncated =
            cJSON_IsString(sr) && strcmp(sr->valuestring, "max_tokens") == 0;
        /* cached prompt tokens are billed input too */
        out->tokens_in = tokens_sum(
            tokens_sum(json_tokens(usage, "input_tokens", -1),
                       json_tokens(usage, "cache_creation_input_tokens", 0)),
            json_tokens(usage, "cache_read_input_tokens", 0));
        out->tokens_out = json_tokens(usage, "output_tokens", -1);
    }
    cJSON_Delete(root);
    return rc;
}

const struct llm_api llm_api_anthropic = {
    .name = "anthropic",
    .default_base = "https://api.anthropic.com",
    .default_key_env = "ANTHROPIC_API_KEY",
    .path = "/v1/messages",
    .body = anthropic_body,
    .headers = anthropic_headers,
    .parse = anthropic_parse,
};

/* ---- helpers */

int llm_http_url(const struct llm_api *api, const char *base, char *out,
                 size_t cap)
{
    size_t n = strlen(base);
    while (n > 0 && base[n - 1] == '/')
        n--;
    const char *path = api->path;
    /* "https://api.anthropic.com/v1" + "/v1/messages": keep one "/v1" */
    if (n >= 3 && strncmp(base + n - 3, "/v1", 3) == 0 &&
        strncmp(path, "/v1/", 4) == 0)
        path += 3;
    if (snprintf(out, cap, "%.*s%s", (int)n, base, path) >= (int)cap)
        return KEVO_EINVAL;
    return KEVO_OK;
}

int llm_http_is_openai_com(const char *base)
{
    const char *p = strstr(base, "://api.openai.com");
    if (!p)
        return 0;
    char next = p[strlen("://api.openai.com")];
    return next == '\0' || next == '/' || next == ':';
}

static void copy_oneline(const char *s, char *out, size_t cap)
{
    size_t k = 0;
    int space = 0;
    for (; *s && k + 4 < cap && k < 120; s++) {
        if (isspace((unsigned char)*s)) {
            space = k > 0;
            continue;
        }
        if (space)
            out[k++] = ' ';
        space = 0;
        out[k++] = isprint((unsigned char)*s) ? *s : '?';
    }
    if (*s && k + 4 <= cap)
        out[k++] = '.', out[k++] = '.', out[k++] = '.';
    out[k] = '\0';
}

void llm_http_error_message(const char *body, char *out, size_t cap)
{
    if (cap == 0)
        return;
    out[0] = '\0';
    cJSON *root = body ? cJSON_Parse(body) : NULL;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "error");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
    if (!cJSON_IsString(m))
        m = cJSON_IsString(e) ? e : NULL;
    if (!m)
        m = cJSON_GetObjectItemCaseSensitive(root, "message");
    if (!cJSON_IsString(m))
        m = cJSON_GetObjectItemCaseSensitive(root, "detail");
    if (cJSON_IsString(m))
        copy_oneline(m->valuestring, out, cap);
    cJSON_Delete(root);
}

double llm_http_retry_after(const char *value, double now_s)
{
    while (isspace((unsigned char)*value))
        value++;
    if (isdigit((unsigned char)*value)) {
        char *end;
        double s = strtod(value, &end);
        while (isspace((unsigned char)*end))
            end++;
        return *end ? -1 : s;
    }
    time_t t = curl_getdate(value, NULL);
    if (t == (time_t)-1)
        return -1;
    double d = (double)t - now_s;
    return d > 0 ? d : 0;
}

void llm_reply_release(struct llm_reply *r)
{
    free(r->text);
    memset(r, 0, sizeof *r);
}
