/*
 * archive.c - MAP-Elites cells kept in an array sorted by key (see
 * archive.h). Sizes are small (hundreds of cells), so binary search and
 * memmove beat a hash table in simplicity at no measurable cost.
 */
#include "archive.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

void archive_init(struct archive *a)
{
    memset(a, 0, sizeof *a);
}

void archive_release(struct archive *a)
{
    free(a->cells);
    archive_init(a);
}

static uint64_t desc_key(const struct archive_desc *d)
{
    uint64_t h = hash_u64(HASH_SEED, (uint64_t)d->tpl);
    h = hash_u64(h, (uint64_t)d->threads_log2);
    h = hash_u64(h, (uint64_t)d->smem_log2);
    h = hash_u64(h, (uint64_t)(int64_t)d->regs_bucket);
    return hash_final(h);
}

/* Index of key, or -(insertion point) - 1. */
static int find(const struct archive *a, uint64_t key)
{
    int lo = 0, hi = a->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (a->cells[mid].key == key)
            return mid;
        if (a->cells[mid].key < key)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

static int insert_at(struct archive *a, int at)
{
    if (a->n == a->cap) {
        int cap = a->cap ? a->cap * 2 : 64;
        void *p = realloc(a->cells, sizeof *a->cells * (size_t)cap);
        if (!p)
            return KEVO_ENOMEM;
        a->cells = p;
        a->cap = cap;
    }
    memmove(&a->cells[at + 1], &a->cells[at],
            sizeof *a->cells * (size_t)(a->n - at));
    a->n++;
    return KEVO_OK;
}

int archive_offer(struct archive *a, const struct archive_desc *d,
                  const struct genome *g, double fitness)
{
    uint64_t key = desc_key(d);
    int at = find(a, key);
    if (at >= 0) {
        struct archive_cell *c = &a->cells[at];
        if (fitness < c->fitness ||
            (fitness == c->fitness && g->hash >= c->g.hash))
            return 0;
        c->g = *g;
        c->fitness = fitness;
        return 1;
    }
    at = -at - 1;
    if (insert_at(a, at))
        return -KEVO_ENOMEM;
    a->cells[at] = (struct archive_cell){key, *d, *g, fitness};
    return 1;
}

const struct archive_cell *archive_pick(const struct archive *a,
                                        struct rng *r)
{
    if (a->n == 0)
        return NULL;
    return &a->cells[rng_below(r, (uint64_t)a->n)];
}

cJSON *archive_to_json(const struct archive *a)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < a->n; i++) {
        const struct archive_cell *c = &a->cells[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "tpl", c->d.tpl);
        cJSON_AddNumberToObject(o, "threads_log2", c->d.threads_log2);
        cJSON_AddNumberToObject(o, "smem_log2", c->d.smem_log2);
        cJSON_AddNumberToObject(o, "regs_bucket", c->d.regs_bucket);
        cJSON_AddNumberToObject(o, "fitness", c->fitness);
        cJSON *v = cJSON_AddArrayToObject(o, "vals");
        for (int k = 0; k < TPL_MAX_PARAMS; k++)
            cJSON_AddItemToArray(v, cJSON_CreateNumber((double)c->g.vals[k]));
        char hex[17];
        hash_hex(c->g.hash, hex);
        cJSON_AddStringToObject(o, "hash", hex);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static int num(const cJSON *o, const char *k, double *out)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(it))
        return -1;
    *out = it->valuedouble;
    return 0;
}

int archive_from_json(struct archive *a, const cJSON *arr)
{
    const cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        double t, th, sm, rb, f;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "vals");
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "hash");
        if (num(o, "tpl", &t) || num(o, "threads_log2", &th) ||
            num(o, "smem_log2", &sm) || num(o, "regs_bucket", &rb) ||
            num(o, "fitness", &f) || cJSON_GetArraySize(v) != TPL_MAX_PARAMS ||
            !cJSON_IsString(h))
            return KEVO_EPARSE;
        struct archive_desc d = {(int)t, (int)th, (int)sm, (int)rb};
        struct genome g = {.tpl = (int)t};
        for (int k = 0; k < TPL_MAX_PARAMS; k++)
            g.vals[k] = (int64_t)cJSON_GetArrayItem(v, k)->valuedouble;
        if (hash_parse(h->valuestring, &g.hash))
            return KEVO_EPARSE;
        if (archive_offer(a, &d, &g, f) < 0)
            return KEVO_ENOMEM;
    }
    return KEVO_OK;
}
