/*
 * srcmemo.c - the sources the engine instantiated lately (see srcmemo.h).
 */
#include "srcmemo.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

struct srcmemo_ent {
    uint64_t key;      /* 0: empty */
    uint64_t src_hash;
    char *text;        /* owned */
    size_t len;
};

void srcmemo_release(struct srcmemo *m)
{
    size_t cap = m->cap_bytes;
    for (long i = 0; m->tab && i < m->cap; i++)
        free(m->tab[i].text);
    free(m->tab);
    memset(m, 0, sizeof *m);
    m->cap_bytes = cap;
}

/* What the text depends on; 0 if a fact cannot be evaluated. */
static uint64_t key_of(const struct tpl *t, int tpl, const int64_t *vals,
                       enum dtype dt, const struct shape *s,
                       int compiled_only)
{
    int64_t facts[TPL_MAX_FACTS];
    char why[8];
    if (tpl_facts(t, vals, s, facts, why, sizeof why))
        return 0;
    uint64_t h = hash_u64(HASH_SEED, t->hash);
    h = hash_u64(h, (uint64_t)tpl);
    h = hash_u64(h, (uint64_t)dt);
    h = hash_u64(h, (uint64_t)compiled_only);
    h = hash_u64(h, (uint64_t)s->n_dims);
    for (int i = 0; i < s->n_dims && i < PROB_MAX_DIMS; i++)
        h = hash_u64(h, (uint64_t)s->d[i]);
    for (int i = 0; i < t->n_params; i++)
        h = hash_u64(h, !compiled_only || !t->params[i].launch_only
                            ? (uint64_t)vals[i]
                            : 0);
    for (int i = 0; i < t->n_facts; i++)
        h = hash_u64(h, (uint64_t)facts[i]);
    h = hash_final(h);
    return h ? h : 1;
}

static struct srcmemo_ent *slot(const struct srcmemo *m, uint64_t key)
{
    long i = (long)(key & (uint64_t)(m->cap - 1));
    while (m->tab[i].key && m->tab[i].key != key)
        i = (i + 1) & (m->cap - 1);
    return &m->tab[i];
}

/* Room for one more entry of len bytes (the table grown at half load):
 * 0 past SRCMEMO_BYTES, or when out of memory. */
static int room(struct srcmemo *m, size_t len)
{
    if (m->bytes + len > (m->cap_bytes ? m->cap_bytes : SRCMEMO_BYTES))
        return 0;
    if (m->tab && 2 * (m->n + 1) <= m->cap)
        return 1;
    long cap = m->cap ? 2 * m->cap : 256;
    struct srcmemo_ent *old = m->tab;
    long old_cap = m->cap;
    m->tab = calloc((size_t)cap, sizeof *m->tab);
    if (!m->tab) {
        m->tab = old;
        return 0;
    }
    m->cap = cap;
    for (long i = 0; i < old_cap; i++)
        if (old[i].key)
            *slot(m, old[i].key) = old[i];
    free(old);
    return 1;
}

int srcmemo_get(struct srcmemo *m, const struct tpl *t, int tpl,
                const int64_t *vals, enum dtype dt, const struct shape *s,
                int compiled_only, char **text, uint64_t *src_hash,
                int *lent)
{
    uint64_t key = key_of(t, tpl, vals, dt, s, compiled_only);
    struct srcmemo_ent *e = key && m->tab ? slot(m, key) : NULL;
    *lent = 0;
    if (e && e->key) {
        *text = e->text;
        *src_hash = e->src_hash;
        *lent = 1;
        return KEVO_OK;
    }
    *text = tpl_instantiate_hdr(t, vals, dt, s, compiled_only);
    if (!*text)
        return KEVO_ENOMEM;
    *src_hash = hash_final(hash_str(HASH_SEED, *text));
    size_t len = strlen(*text);
    if (key && room(m, len)) {
        *slot(m, key) = (struct srcmemo_ent){key, *src_hash, *text, len};
        m->n++;
        m->bytes += len;
        *lent = 1;
    }
    return KEVO_OK;
}
