/*
 * secret.c - registered secrets and their scrubbing (see secret.h). Owns a
 * small fixed table of patterns (each key and its variants); knows nothing
 * of where keys come from beyond environment variable names.
 */
#include "secret.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define VARIANTS 5 /* raw, JSON form, base64 at three alignments */

struct pattern {
    char *text;
    size_t len;
    int edges; /* 1: also match a cut-off piece at the text's edges */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct pattern pats[SECRET_MAX * VARIANTS];
static atomic_int n_pats; /* published after the slots are filled */

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/*
 * The base64 characters of value that any encoding of a text holding value
 * at byte offset (pad mod 3) contains: those whose 6 bits all come from
 * value. New string, NULL without memory.
 */
static char *base64_core(const char *value, size_t n, int pad)
{
    size_t bytes = (size_t)pad + n, nbits = bytes * 8;
    unsigned char *buf = calloc(bytes + 3, 1);
    char *out = malloc(nbits / 6 + 2);
    if (!buf || !out) {
        free(buf);
        free(out);
        return NULL;
    }
    memcpy(buf + pad, value, n);
    size_t k = 0;
    for (size_t bit = 0; bit + 6 <= nbits; bit += 6) {
        if (bit < (size_t)pad * 8)
            continue; /* touches the bytes before value */
        size_t byte = bit / 8, shift = bit % 8;
        unsigned v = ((unsigned)buf[byte] << 8 | buf[byte + 1]) >>
                     (10 - shift);
        out[k++] = b64[v & 63];
    }
    out[k] = '\0';
    free(buf);
    return out;
}

/* value as it appears inside a JSON string. New string or NULL. */
static char *json_form(const char *value)
{
    size_t n = strlen(value);
    char *out = malloc(n * 6 + 1), *p = out;
    if (!out)
        return NULL;
    for (const unsigned char *s = (const unsigned char *)value; *s; s++) {
        if (*s == '"' || *s == '\\') {
            *p++ = '\\';
            *p++ = (char)*s;
        } else if (*s < 0x20) {
            static const char hex[] = "0123456789abcdef";
            memcpy(p, "\\u00", 4);
            p[4] = hex[*s >> 4];
            p[5] = hex[*s & 15];
            p += 6;
        } else {
            *p++ = (char)*s;
        }
    }
    *p = '\0';
    return out;
}

/* Appends pattern text (taken) unless it is short, known or the table is
 * full (lock held). */
static void add_pattern(char *text, int edges)
{
    int n = atomic_load(&n_pats);
    size_t len = strlen(text);
    int known = 0;
    for (int i = 0; i < n && !known; i++)
        known = strcmp(pats[i].text, text) == 0;
    if (known || len < SECRET_MIN_LEN || n >= SECRET_MAX * VARIANTS) {
        free(text);
        return;
    }
    pats[n] = (struct pattern){text, len, edges};
    atomic_store(&n_pats, n + 1);
}

int secret_add(const char *value)
{
    size_t n = value ? strlen(value) : 0;
    if (n < SECRET_MIN_LEN)
        return KEVO_OK;
    char *v[VARIANTS] = {strdup(value), json_form(value),
                         base64_core(value, n, 0), base64_core(value, n, 1),
                         base64_core(value, n, 2)};
    int rc = KEVO_OK;
    for (int i = 0; i < VARIANTS; i++)
        if (!v[i])
            rc = KEVO_ENOMEM;
    if (rc) {
        for (int i = 0; i < VARIANTS; i++)
            free(v[i]);
        return rc;
    }
    pthread_mutex_lock(&mu);
    for (int i = 0; i < VARIANTS; i++)
        add_pattern(v[i], i == 0);
    pthread_mutex_unlock(&mu);
    return KEVO_OK;
}

int secret_add_env(const char *name)
{
    return secret_add(getenv(name));
}

int secret_add_defaults(void)
{
    int rc = secret_add_env("OPENAI_API_KEY");
    return rc ? rc : secret_add_env("ANTHROPIC_API_KEY");
}

/* Replaces s[at, at+n) by "***" (n >= 3). */
static void replace(char *s, size_t at, size_t n)
{
    memmove(s + at + 3, s + at + n, strlen(s + at + n) + 1);
    memcpy(s + at, "***", 3);
}

/* A cut-off piece of p (SECRET_EDGE_MIN or more of its first characters)
 * at the end of s, or of its last ones at the start: replaced, counted. */
static int scrub_edges(char *s, const struct pattern *p)
{
    int hits = 0;
    size_t n = strlen(s);
    for (size_t k = p->len - 1; k >= SECRET_EDGE_MIN; k--)
        if (k <= n && memcmp(s + n - k, p->text, k) == 0) {
            replace(s, n - k, k);
            hits++;
            break;
        }
    n = strlen(s);
    for (size_t k = p->len - 1; k >= SECRET_EDGE_MIN; k--)
        if (k <= n && memcmp(s, p->text + p->len - k, k) == 0) {
            replace(s, 0, k);
            hits++;
            break;
        }
    return hits;
}

int secret_scrub(char *s)
{
    int n = atomic_load(&n_pats), hits = 0;
    if (!s)
        return 0;
    for (int i = 0; i < n; i++) {
        const struct pattern *p = &pats[i];
        char *q = s;
        while ((q = strstr(q, p->text))) {
            replace(s, (size_t)(q - s), p->len);
            q += 3;
            hits++;
        }
        if (p->edges)
            hits += scrub_edges(s, p);
    }
    return hits;
}

char *secret_scrub_dup(const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (!c)
        return NULL;
    memcpy(c, s, n);
    c[n] = '\0';
    secret_scrub(c);
    return c;
}

int secret_found(const char *s)
{
    char *c = s ? strdup(s) : NULL;
    int hit = c && secret_scrub(c) > 0;
    free(c);
    return hit;
}

void secret_clear(void)
{
    pthread_mutex_lock(&mu);
    int n = atomic_load(&n_pats);
    atomic_store(&n_pats, 0);
    for (int i = 0; i < n; i++) {
        memset(pats[i].text, 0, pats[i].len);
        free(pats[i].text);
        pats[i].text = NULL;
    }
    pthread_mutex_unlock(&mu);
}
