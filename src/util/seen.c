/*
 * seen.c - hash set of genome hashes (see seen.h).
 */
#include "seen.h"

#include <stdlib.h>

int seen_init(struct seen *s)
{
    s->cap = 1024;
    s->n = 0;
    s->keys = calloc((size_t)s->cap, sizeof *s->keys);
    return s->keys ? KEVO_OK : KEVO_ENOMEM;
}

void seen_release(struct seen *s)
{
    free(s->keys);
    s->keys = NULL;
    s->cap = s->n = 0;
}

static long slot(const struct seen *s, uint64_t h)
{
    long i = (long)(h & (uint64_t)(s->cap - 1));
    while (s->keys[i] && s->keys[i] != h)
        i = (i + 1) & (s->cap - 1);
    return i;
}

static int grow(struct seen *s)
{
    struct seen big = {calloc((size_t)s->cap * 2, sizeof *s->keys),
                       s->cap * 2, s->n};
    if (!big.keys)
        return KEVO_ENOMEM;
    for (long i = 0; i < s->cap; i++)
        if (s->keys[i])
            big.keys[slot(&big, s->keys[i])] = s->keys[i];
    free(s->keys);
    *s = big;
    return KEVO_OK;
}

int seen_add(struct seen *s, uint64_t h)
{
    h = h ? h : 1;
    if (2 * (s->n + 1) > s->cap && grow(s))
        return KEVO_ENOMEM;
    long i = slot(s, h);
    if (!s->keys[i]) {
        s->keys[i] = h;
        s->n++;
    }
    return KEVO_OK;
}

int seen_has(const struct seen *s, uint64_t h)
{
    h = h ? h : 1;
    return s->keys[slot(s, h)] == h;
}
