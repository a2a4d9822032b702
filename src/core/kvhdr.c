/*
 * kvhdr.c - the table of kevo-provided CUDA headers (see kvhdr.h): name
 * -> embedded text, a lookup, and the inlining that export uses. Adding a
 * header: put it in templates/include/ (embedded by the Makefile) and add
 * its name and text below.
 */
#include "kvhdr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kevo_sm90.cuh.h" /* generated from templates/include/ */

/* name as #included by a candidate, and the embedded text, row by row */
static const char *const names[] = {"kevo/sm90.cuh"};
static const char *const texts[] = {kevo_sm90};

#define N_HEADERS ((int)(sizeof names / sizeof names[0]))
_Static_assert(sizeof names == sizeof texts, "one text a name");

int kvhdr_count(void)
{
    return N_HEADERS;
}

const char *const *kvhdr_names(void)
{
    return names;
}

const char *const *kvhdr_texts(void)
{
    return texts;
}

const char *kvhdr_name(int i)
{
    return i >= 0 && i < N_HEADERS ? names[i] : NULL;
}

const char *kvhdr_text(int i)
{
    return i >= 0 && i < N_HEADERS ? texts[i] : NULL;
}

const char *kvhdr_find(const char *name)
{
    for (int i = 0; i < N_HEADERS; i++)
        if (!strcmp(names[i], name))
            return texts[i];
    return NULL;
}

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

const char *kvhdr_included(const char *line)
{
    const char *p = skip_blanks(line);
    if (*p != '#')
        return NULL;
    p = skip_blanks(p + 1);
    if (strncmp(p, "include", 7))
        return NULL;
    p = skip_blanks(p + 7);
    char close = *p == '"' ? '"' : *p == '<' ? '>' : 0;
    if (!close)
        return NULL;
    p++;
    for (int i = 0; i < N_HEADERS; i++) {
        size_t n = strlen(names[i]);
        if (!strncmp(p, names[i], n) && p[n] == close)
            return names[i];
    }
    return NULL;
}

/* Appends n bytes of s to the buffer *b (length *len, capacity *cap). */
static int append(char **b, size_t *len, size_t *cap, const char *s,
                  size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = (*len + n + 1) * 2;
        char *nb = realloc(*b, c);
        if (!nb)
            return -1;
        *b = nb;
        *cap = c;
    }
    memcpy(*b + *len, s, n);
    *len += n;
    (*b)[*len] = '\0';
    return 0;
}

char *kvhdr_inline(const char *src)
{
    size_t len = 0, cap = strlen(src) + 1;
    char *out = malloc(cap);
    unsigned done = 0; /* bit i: header i inlined already */
    if (!out)
        return NULL;
    out[0] = '\0';
    for (const char *line = src; *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) + 1 : strlen(line);
        const char *name = kvhdr_included(line);
        int rc = 0;
        if (!name) {
            rc = append(&out, &len, &cap, line, n);
        } else {
            int i = 0;
            while (strcmp(names[i], name))
                i++;
            const char *t = texts[i];
            char mark[128];
            snprintf(mark, sizeof mark, "/* ---- %s (kevo's, inlined) %s */\n",
                     name, done & 1u << i ? "again: skipped" : "begins");
            rc = append(&out, &len, &cap, mark, strlen(mark));
            if (!rc && !(done & 1u << i)) {
                done |= 1u << i;
                rc = append(&out, &len, &cap, t, strlen(t));
                if (!rc && len && out[len - 1] != '\n')
                    rc = append(&out, &len, &cap, "\n", 1);
                snprintf(mark, sizeof mark, "/* ---- end of %s */\n", name);
                if (!rc)
                    rc = append(&out, &len, &cap, mark, strlen(mark));
            }
        }
        if (rc) {
            free(out);
            return NULL;
        }
        line += n;
    }
    return out;
}
