/*
 * genome.c - genome identity and formatting (see genome.h).
 */
#include "genome.h"

#include <stdio.h>

#include "hash.h"

uint64_t genome_hash(const struct tpl *t, const int64_t *vals)
{
    uint64_t h = hash_u64(HASH_SEED, t->hash);
    for (int i = 0; i < t->n_params; i++)
        h = hash_u64(h, (uint64_t)vals[i]);
    return hash_final(h);
}

void genome_rehash(struct genome *g, const struct tpl *t)
{
    g->hash = genome_hash(t, g->vals);
}

void genome_format(const struct genome *g, const struct tpl *t, char *out,
                   size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < t->n_params && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%s=%lld", i ? " " : "",
                              t->params[i].name, (long long)g->vals[i]);
}
