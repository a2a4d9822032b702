/*
 * wire.c - the GPU worker's job and result bodies (see wire.h).
 */
#include "wire.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "record.h"

cJSON *wire_job_json(const struct wire_job *j)
{
    const struct launch_plan *pl = &j->plan;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "seq", (double)j->seq);
    cJSON *ls = cJSON_AddArrayToObject(o, "launches");
    for (int i = 0; ls && i < pl->n; i++) {
        const struct launch_dims *d = &pl->l[i];
        cJSON *l = cJSON_CreateObject();
        cJSON_AddStringToObject(l, "kernel", d->kernel);
        const uint32_t *v[3] = {d->grid, d->block, d->cluster};
        const char *k[3] = {"grid", "block", "cluster"};
        for (int a = 0; a < 3; a++) {
            cJSON *arr = cJSON_AddArrayToObject(l, k[a]);
            for (int x = 0; arr && x < 3; x++)
                cJSON_AddItemToArray(arr, cJSON_CreateNumber(v[a][x]));
        }
        cJSON_AddNumberToObject(l, "smem", d->smem_bytes);
        if (d->pdl)
            cJSON_AddBoolToObject(l, "pdl", 1);
        cJSON_AddItemToArray(ls, l);
    }
    cJSON_AddNumberToObject(o, "workspace", (double)pl->workspace_bytes);
    cJSON *tms = cJSON_AddArrayToObject(o, "tensormaps");
    for (int i = 0; tms && i < pl->n_tmaps; i++) {
        const struct tmap_plan *m = &pl->tm[i];
        cJSON *t = cJSON_CreateObject();
        cJSON_AddNumberToObject(t, "buf", m->buf);
        cJSON *box = cJSON_AddArrayToObject(t, "box");
        cJSON_AddItemToArray(box, cJSON_CreateNumber(m->box[0]));
        cJSON_AddItemToArray(box, cJSON_CreateNumber(m->box[1]));
        cJSON_AddNumberToObject(t, "swizzle", m->swizzle);
        cJSON_AddNumberToObject(t, "l2", m->l2);
        cJSON_AddItemToArray(tms, t);
    }
    if (pl->n_args) {
        cJSON *as = cJSON_AddArrayToObject(o, "args");
        for (int i = 0; as && i < pl->n_args; i++)
            cJSON_AddItemToArray(as, cJSON_CreateNumber(pl->args[i]));
    }
    cJSON_AddBoolToObject(o, "nondet", j->nondet);
    if (!cJSON_AddNumberToObject(o, "best_ns", j->best_ns)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static int get_dims(const cJSON *l, const char *k, uint32_t *dst, uint32_t dflt)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(l, k);
    for (int x = 0; x < 3; x++) {
        const cJSON *v = arr ? cJSON_GetArrayItem(arr, x) : NULL;
        if (v && (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
                  v->valuedouble > 4294967295.0))
            return -1;
        dst[x] = v ? (uint32_t)v->valuedouble : dflt;
    }
    return 0;
}

int wire_job_parse(const cJSON *o, struct wire_job *j)
{
    memset(j, 0, sizeof *j);
    struct launch_plan *pl = &j->plan;
    const cJSON *ls = cJSON_GetObjectItemCaseSensitive(o, "launches");
    if (!cJSON_IsArray(ls))
        return KEVO_EPARSE;
    pl->n = cJSON_GetArraySize(ls);
    if (pl->n < 1 || pl->n > TPL_MAX_LAUNCHES)
        return KEVO_EPARSE;
    for (int i = 0; i < pl->n; i++) {
        const cJSON *l = cJSON_GetArrayItem(ls, i);
        const char *k = record_str(l, "kernel");
        struct launch_dims *d = &pl->l[i];
        if (!k || strlen(k) >= sizeof d->kernel ||
            get_dims(l, "grid", d->grid, 1) ||
            get_dims(l, "block", d->block, 1) ||
            get_dims(l, "cluster", d->cluster, 0))
            return KEVO_EPARSE;
        memcpy(d->kernel, k, strlen(k) + 1);
        d->smem_bytes = (uint32_t)record_num(l, "smem", 0);
        d->pdl = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "pdl"));
    }
    pl->workspace_bytes = (uint64_t)record_num(o, "workspace", 0);
    const cJSON *tms = cJSON_GetObjectItemCaseSensitive(o, "tensormaps");
    pl->n_tmaps = cJSON_IsArray(tms) ? cJSON_GetArraySize(tms) : 0;
    if (pl->n_tmaps > TPL_MAX_TMAPS)
        return KEVO_EPARSE;
    for (int i = 0; i < pl->n_tmaps; i++) {
        const cJSON *m = cJSON_GetArrayItem(tms, i),
                    *box = cJSON_GetObjectItemCaseSensitive(m, "box");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(m, "buf"),
                    *sw = cJSON_GetObjectItemCaseSensitive(m, "swizzle"),
                    *b0 = cJSON_GetArrayItem(box, 0),
                    *b1 = cJSON_GetArrayItem(box, 1);
        if (!cJSON_IsNumber(b) || !cJSON_IsNumber(sw) ||
            !cJSON_IsNumber(b0) || !cJSON_IsNumber(b1))
            return KEVO_EPARSE;
        pl->tm[i] = (struct tmap_plan){
            b->valueint, {(uint32_t)b0->valuedouble, (uint32_t)b1->valuedouble},
            sw->valueint, (int)record_num(m, "l2", 256)};
    }
    const cJSON *as = cJSON_GetObjectItemCaseSensitive(o, "args");
    pl->n_args = cJSON_IsArray(as) ? cJSON_GetArraySize(as) : 0;
    if (pl->n_args > TPL_MAX_ARGS)
        return KEVO_EPARSE;
    for (int i = 0; i < pl->n_args; i++) {
        const cJSON *a = cJSON_GetArrayItem(as, i);
        if (!cJSON_IsNumber(a) || !(a->valuedouble >= INT32_MIN &&
                                    a->valuedouble <= INT32_MAX) ||
            a->valuedouble != (double)(int32_t)a->valuedouble)
            return KEVO_EPARSE;
        pl->args[i] = (int32_t)a->valuedouble;
    }
    j->nondet = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "nondet"));
    j->best_ns = record_num(o, "best_ns", 0);
    j->seq = (long long)record_num(o, "seq", 0);
    return KEVO_OK;
}

cJSON *wire_result_json(const struct eval_result *r, cJSON *evidence)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) {
        cJSON_Delete(evidence);
        return NULL;
    }
    struct eval_result c = *r;
    c.evidence_json = NULL; /* the object instead: no print and parse */
    record_put_result(o, &c);
    if (evidence)
        cJSON_AddItemToObject(o, "evidence", evidence);
    return o;
}

int wire_result_parse(const cJSON *o, struct eval_result *r)
{
    return record_get_result(o, r);
}

cJSON *wire_profile_json(const struct kprof *p)
{
    cJSON *o = cJSON_CreateObject(), *pj = prof_json(p);
    if (!o || !pj) {
        cJSON_Delete(o);
        cJSON_Delete(pj);
        return NULL;
    }
    cJSON_AddItemToObject(o, "profile", pj);
    return o;
}

int wire_profile_parse(const cJSON *o, struct kprof *p)
{
    char err[128];
    return prof_parse(cJSON_GetObjectItemCaseSensitive(o, "profile"), p, err,
                      sizeof err);
}
