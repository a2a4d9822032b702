/*
 * provenance.c - reads and strips a template's "// kevo: provenance"
 * lines (see provenance.h). Line-based and allocation-light; the writer
 * is cmd_promote.c, the readers kevo list and kevo promote's duplicate
 * check.
 */
#include "provenance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* p past the word w if s starts with it, else NULL. */
static const char *eat(const char *p, const char *end, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(end - p) >= n && !memcmp(p, w, n) ? p + n : NULL;
}

/* Start of the KEY of provenance line s[0..len), or NULL if it is none. */
static const char *args_of(const char *s, size_t len)
{
    const char *end = s + len, *p = skip_blanks(s, end);
    if (!(p = eat(p, end, "//")))
        return NULL;
    if (!(p = eat(skip_blanks(p, end), end, "kevo:")))
        return NULL;
    if (!(p = eat(skip_blanks(p, end), end, "provenance")))
        return NULL;
    if (p < end && *p != ' ' && *p != '\t' && *p != '\r')
        return NULL; /* "provenances", another word */
    return skip_blanks(p, end);
}

int prov_is_line(const char *s, size_t len)
{
    return args_of(s, len) != NULL;
}

/* Adds "KEY VALUE" (p..end, one line) to o; 0 without memory. */
static int add_line(cJSON *o, const char *p, const char *end)
{
    while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    const char *k = p;
    while (k < end && *k != ' ' && *k != '\t')
        k++;
    if (k == p)
        return 1; /* no key (tpl.c refuses the line): nothing to add */
    const char *v = skip_blanks(k, end);
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(k - p), p);
    const cJSON *was = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(was)) {
        char *val = strndup(v, (size_t)(end - v));
        int ok = val && cJSON_AddStringToObject(o, key, val);
        free(val);
        return ok;
    }
    size_t n = strlen(was->valuestring) + (size_t)(end - v) + 3;
    char *j = malloc(n);
    if (!j)
        return 0;
    snprintf(j, n, "%s; %.*s", was->valuestring, (int)(end - v), v);
    cJSON *s = cJSON_CreateString(j);
    free(j);
    return s && cJSON_ReplaceItemInObjectCaseSensitive(o, key, s);
}

cJSON *prov_read(const char *text)
{
    cJSON *o = cJSON_CreateObject();
    for (const char *s = text; o && s && *s;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        const char *a = args_of(s, len);
        if (a && !add_line(o, a, s + len)) {
            cJSON_Delete(o);
            return NULL;
        }
        s = nl ? nl + 1 : NULL;
    }
    return o;
}

char *prov_strip(const char *text)
{
    size_t n = strlen(text), k = 0;
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) + 1 : strlen(s);
        if (!prov_is_line(s, nl ? len - 1 : len)) {
            memcpy(out + k, s, len);
            k += len;
        }
        s += len;
    }
    out[k] = '\0';
    return out;
}

uint64_t prov_body_hash(const char *text)
{
    char *b = prov_strip(text);
    uint64_t h = b ? hash_final(hash_str(HASH_SEED, b)) : 0;
    free(b);
    return h;
}
