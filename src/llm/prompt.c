/*
 * prompt.c - prompt files and placeholder filling (see prompt.h): a
 * bounded string builder, a small table of named values, and one pass
 * over a prompt file that replaces {{NAME}} by its value. Reading the
 * prompts directory is the only I/O; what the values say is the callers'.
 */
#include "prompt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"

/* ---- the string builder */

void prompt_buf_init(struct prompt_buf *b, size_t limit)
{
    memset(b, 0, sizeof *b);
    b->limit = limit ? limit : PROMPT_TEXT_MAX;
}

/* Makes room for n more bytes plus the NUL; 0 or -1 (then b failed). */
static int grow(struct prompt_buf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (n > b->limit - b->len) {
        b->failed = 1;
        return -1;
    }
    if (b->len + n + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
}

void prompt_buf_add(struct prompt_buf *b, const char *s, size_t n)
{
    if (grow(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void prompt_buf_adds(struct prompt_buf *b, const char *s)
{
    prompt_buf_add(b, s, strlen(s));
}

void prompt_buf_addf(struct prompt_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || grow(b, (size_t)n)) {
        b->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *prompt_buf_take(struct prompt_buf *b)
{
    char *s = b->failed ? NULL : b->s ? b->s : strdup("");
    if (b->failed)
        free(b->s);
    prompt_buf_init(b, b->limit);
    return s;
}

void prompt_buf_release(struct prompt_buf *b)
{
    free(b->s);
    prompt_buf_init(b, b->limit);
}

/* ---- named values */

void prompt_vars_init(struct prompt_vars *pv)
{
    memset(pv, 0, sizeof *pv);
}

void prompt_vars_release(struct prompt_vars *pv)
{
    for (int i = 0; i < pv->n; i++)
        free(pv->v[i].value);
    prompt_vars_init(pv);
}

static int valid_name(const char *s, size_t n)
{
    if (n == 0 || n >= PROMPT_NAME_MAX || s[0] < 'A' || s[0] > 'Z')
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '_'))
            return 0;
    return 1;
}

/* The entry of name s[0..n), or NULL. */
static struct prompt_var *find(const struct prompt_vars *pv, const char *s,
                               size_t n)
{
    for (int i = 0; i < pv->n; i++)
        if (strlen(pv->v[i].name) == n && !memcmp(pv->v[i].name, s, n))
            return (struct prompt_var *)&pv->v[i];
    return NULL;
}

void prompt_vars_take(struct prompt_vars *pv, const char *name, char *value)
{
    size_t n = strlen(name);
    struct prompt_var *v = find(pv, name, n);
    if (!value || !valid_name(name, n) || (!v && pv->n == PROMPT_MAX_VARS) ||
        strlen(value) > PROMPT_TEXT_MAX) {
        free(value);
        pv->failed = 1;
        return;
    }
    if (!v) {
        v = &pv->v[pv->n++];
        memcpy(v->name, name, n + 1);
        v->value = NULL;
    }
    free(v->value);
    v->value = value;
}

void prompt_vars_set(struct prompt_vars *pv, const char *name,
                     const char *value)
{
    prompt_vars_take(pv, name, strdup(value ? value : ""));
}

void prompt_vars_setf(struct prompt_vars *pv, const char *name, const char *fmt,
                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    prompt_vars_take(pv, name, s);
}

const char *prompt_vars_get(const struct prompt_vars *pv, const char *name)
{
    const struct prompt_var *v = find(pv, name, strlen(name));
    return v ? v->value : NULL;
}

/* ---- files */

int prompt_load(const char *dir, const char *file, char **out, char *err,
                size_t errcap)
{
    char path[4096];
    size_t len;
    *out = NULL;
    if (fs_join(path, sizeof path, dir, file)) {
        snprintf(err, errcap, "prompt path too long: '%s/%s'", dir, file);
        return KEVO_EINVAL;
    }
    int rc = fs_read_file(path, out, &len);
    if (rc) {
        snprintf(err, errcap, "cannot read '%s': %s", path, kevo_strerror(rc));
        return rc;
    }
    if (strlen(*out) != len || len > PROMPT_FILE_MAX) {
        snprintf(err, errcap, "%s: %s", path,
                 len > PROMPT_FILE_MAX ? "longer than 256 KiB"
                                       : "contains a NUL byte");
        free(*out);
        *out = NULL;
        return KEVO_EPARSE;
    }
    return KEVO_OK;
}

/* 1-based line of p in text. */
static int line_of(const char *text, const char *p)
{
    int line = 1;
    for (const char *q = text; q < p; q++)
        line += *q == '\n';
    return line;
}

int prompt_fill(const char *where, const char *text,
                const struct prompt_vars *pv, char **out, char *err,
                size_t errcap)
{
    struct prompt_buf b;
    *out = NULL;
    if (pv->failed) {
        snprintf(err, errcap, "%s: out of memory for prompt values", where);
        return KEVO_ENOMEM;
    }
    prompt_buf_init(&b, PROMPT_TEXT_MAX);
    const char *p = text, *open;
    while ((open = strstr(p, "{{"))) {
        const char *name = open + 2, *close = strstr(name, "}}");
        size_t n = close ? (size_t)(close - name) : 0;
        if (!close || !valid_name(name, n)) {
            snprintf(err, errcap, "%s:%d: malformed placeholder '%.*s'", where,
                     line_of(text, open),
                     (int)strcspn(open, "\n") > 40 ? 40
                                                   : (int)strcspn(open, "\n"),
                     open);
            prompt_buf_release(&b);
            return KEVO_EPARSE;
        }
        const struct prompt_var *v = find(pv, name, n);
        if (!v) {
            snprintf(err, errcap, "%s:%d: unknown placeholder '{{%.*s}}'",
                     where, line_of(text, open), (int)n, name);
            prompt_buf_release(&b);
            return KEVO_EPARSE;
        }
        prompt_buf_add(&b, p, (size_t)(open - p));
        prompt_buf_adds(&b, v->value);
        p = close + 2;
    }
    prompt_buf_adds(&b, p);
    *out = prompt_buf_take(&b);
    if (!*out) {
        snprintf(err, errcap, "%s: filled prompt too long or out of memory",
                 where);
        return KEVO_ENOMEM;
    }
    return KEVO_OK;
}

int prompt_render(const char *dir, const char *file,
                  const struct prompt_vars *pv, char **out, char *err,
                  size_t errcap)
{
    char *text, where[4096];
    int rc = prompt_load(dir, file, &text, err, errcap);
    if (rc)
        return rc;
    snprintf(where, sizeof where, "%s/%s", dir, file);
    rc = prompt_fill(where, text, pv, out, err, errcap);
    free(text);
    return rc;
}
