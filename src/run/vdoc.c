/*
 * vdoc.c - verify.json's codec (see vdoc.h): the writer's key order is the
 * file's (a stored format: keep it), the reader takes defaults for what is
 * missing.
 */
#include "vdoc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

struct vdoc *vdoc_new(void)
{
    struct vdoc *d = calloc(1, sizeof *d);
    if (d)
        d->n_baseline_rounds = -1;
    return d;
}

void vdoc_free(struct vdoc *d)
{
    if (!d)
        return;
    cJSON_Delete(d->fingerprint);
    cJSON_Delete(d->nvml_end);
    for (int i = 0; i < d->n_entries; i++)
        cJSON_Delete(d->entries[i].profile);
    free(d);
}

/* ---- writer */

/* A string member, null when "" (unknown). */
static void put_str(cJSON *o, const char *k, const char *s)
{
    cJSON_AddItemToObject(o, k, *s ? cJSON_CreateString(s)
                                   : cJSON_CreateNull());
}

/* A number member, null when < 0 (unknown). */
static void put_num(cJSON *o, const char *k, double v)
{
    cJSON_AddItemToObject(o, k, v >= 0 ? cJSON_CreateNumber(v)
                                       : cJSON_CreateNull());
}

static cJSON *gpu_json(const struct vdoc_gpu *g)
{
    cJSON *o = cJSON_CreateObject();
    if (o) {
        put_str(o, "name", g->name);
        put_str(o, "uuid", g->uuid);
    }
    return o;
}

static cJSON *sw_json(const struct vdoc_sw *s)
{
    cJSON *o = cJSON_CreateObject();
    if (o) {
        put_str(o, "driver", s->driver);
        put_str(o, "cuda_driver", s->cuda_driver);
        put_str(o, "cuda", s->cuda);
        put_str(o, "nvrtc", s->nvrtc);
        put_num(o, "cupti", s->cupti);
        put_num(o, "cublas", s->cublas);
    }
    return o;
}

static cJSON *numbers(const double *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

static cJSON *entry_json(const struct vdoc_entry *x)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "hash", x->hash);
    cJSON_AddStringToObject(o, "template", x->tpl);
    cJSON *p = cJSON_AddObjectToObject(o, "params");
    for (int i = 0; p && i < x->n_params; i++)
        cJSON_AddNumberToObject(p, x->param_names[i], (double)x->params[i]);
    cJSON_AddBoolToObject(o, "best", x->best);
    cJSON_AddNumberToObject(o, "recorded_ns", x->recorded_ns);
    cJSON_AddNumberToObject(o, "measured_ns", x->measured_ns);
    cJSON_AddNumberToObject(o, "drift", x->drift);
    cJSON_AddNumberToObject(o, "noise", x->noise);
    cJSON_AddBoolToObject(o, "within_noise", x->within_noise);
    cJSON_AddStringToObject(o, "outcome", x->outcome);
    if (x->detail[0])
        cJSON_AddStringToObject(o, "detail", x->detail);
    cJSON_AddNumberToObject(o, "recorded_ratio", x->recorded_ratio);
    cJSON_AddNumberToObject(o, "measured_ratio", x->measured_ratio);
    cJSON_AddNumberToObject(o, "measured_fitness", x->measured_fitness);
    if (x->vs_baseline_interleaved > 0)
        cJSON_AddNumberToObject(o, "vs_baseline_interleaved",
                                x->vs_baseline_interleaved);
    if (x->vs_baseline_paired > 0) {
        cJSON_AddNumberToObject(o, "vs_baseline_paired",
                                x->vs_baseline_paired);
        cJSON_AddNumberToObject(o, "vs_baseline_paired_noise",
                                x->vs_baseline_paired_noise);
        cJSON_AddNumberToObject(o, "vs_baseline_pairs", x->vs_baseline_pairs);
    }
    cJSON_AddStringToObject(o, "unit", x->unit);
    cJSON_AddItemToObject(o, "rounds_ns", numbers(x->rounds_ns, x->n_rounds));
    if (x->profile) {
        cJSON_AddItemToObject(o, "profile", cJSON_Duplicate(x->profile, 1));
        cJSON_AddStringToObject(o, "diagnosis", x->diagnosis);
    }
    return o;
}

static cJSON *baselines_json(const struct vdoc *d)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < d->n_baselines; i++) {
        const struct vdoc_baseline *b = &d->baselines[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddStringToObject(o, "name", b->name);
        cJSON_AddNumberToObject(o, "recorded_ns", b->recorded_ns);
        cJSON_AddNumberToObject(o, "measured_ns", b->measured_ns);
        if (b->has_drift)
            cJSON_AddNumberToObject(o, "drift", b->drift);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

cJSON *vdoc_json(const struct vdoc *d)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "run", d->run);
    cJSON_AddStringToObject(o, "date", d->date);
    cJSON_AddItemToObject(o, "gpu", gpu_json(&d->gpu));
    cJSON_AddItemToObject(o, "software", sw_json(&d->software));
    cJSON_AddBoolToObject(o, "same_gpu", d->same_gpu);
    cJSON_AddBoolToObject(o, "same_software", d->same_software);
    cJSON_AddBoolToObject(o, "verified", d->verified);
    cJSON_AddStringToObject(o, "differences", d->differences);
    cJSON_AddStringToObject(o, "best_hash", d->best_hash);
    cJSON_AddNumberToObject(o, "drift", d->drift);
    cJSON_AddNumberToObject(o, "noise", d->noise);
    cJSON *rec = cJSON_AddObjectToObject(o, "recorded");
    if (rec) {
        cJSON_AddItemToObject(rec, "gpu", gpu_json(&d->recorded_gpu));
        cJSON_AddItemToObject(rec, "software",
                              sw_json(&d->recorded_software));
    }
    cJSON_AddStringToObject(o, "harness_seed", d->harness_seed);
    cJSON_AddNumberToObject(o, "reps", d->reps);
    cJSON_AddStringToObject(o, "kevo_version", d->kevo_version);
    cJSON_AddStringToObject(o, "kevo_commit", d->kevo_commit);
    cJSON_AddItemToObject(o, "baselines", baselines_json(d));
    if (d->n_baseline_rounds >= 0)
        cJSON_AddItemToObject(o, "baseline_rounds_ns",
                              numbers(d->baseline_rounds_ns,
                                      d->n_baseline_rounds));
    cJSON *es = cJSON_AddArrayToObject(o, "entries");
    for (int i = 0; es && i < d->n_entries; i++)
        cJSON_AddItemToArray(es, entry_json(&d->entries[i]));
    if (d->fingerprint)
        cJSON_AddItemToObject(o, "fingerprint",
                              cJSON_Duplicate(d->fingerprint, 1));
    if (d->nvml_end)
        cJSON_AddItemToObject(o, "nvml_end", cJSON_Duplicate(d->nvml_end, 1));
    if (!es) { /* cJSON ran out of memory on the way */
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* ---- reader */

static void get_str(const cJSON *o, const char *k, char *dst, size_t cap)
{
    const char *s = record_str(o, k);
    snprintf(dst, cap, "%s", s ? s : "");
}

static int get_bool(const cJSON *o, const char *k)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* Numbers of array member k into v[0..cap); the count, -1 if no array. */
static int get_numbers(const cJSON *o, const char *k, double *v, int cap)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, k), *x;
    int n = 0;
    if (!cJSON_IsArray(a))
        return -1;
    cJSON_ArrayForEach(x, a)
    {
        if (n < cap)
            v[n++] = cJSON_IsNumber(x) ? x->valuedouble : 0;
    }
    return n;
}

/* "gpu": {name, uuid}, or (older files) the UUID string. */
static void gpu_parse(const cJSON *g, struct vdoc_gpu *out)
{
    if (cJSON_IsString(g)) {
        snprintf(out->uuid, sizeof out->uuid, "%s", g->valuestring);
        return;
    }
    get_str(g, "name", out->name, sizeof out->name);
    get_str(g, "uuid", out->uuid, sizeof out->uuid);
}

static void sw_parse(const cJSON *s, struct vdoc_sw *out)
{
    get_str(s, "driver", out->driver, sizeof out->driver);
    get_str(s, "cuda_driver", out->cuda_driver, sizeof out->cuda_driver);
    get_str(s, "cuda", out->cuda, sizeof out->cuda);
    get_str(s, "nvrtc", out->nvrtc, sizeof out->nvrtc);
    out->cupti = record_num(s, "cupti", -1);
    out->cublas = record_num(s, "cublas", -1);
}

static void entry_parse(const cJSON *o, struct vdoc_entry *x)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "params"), *it;
    get_str(o, "hash", x->hash, sizeof x->hash);
    get_str(o, "template", x->tpl, sizeof x->tpl);
    cJSON_ArrayForEach(it, (cJSON_IsObject(p) ? p : NULL))
    {
        if (x->n_params == TPL_MAX_PARAMS || !cJSON_IsNumber(it))
            continue;
        snprintf(x->param_names[x->n_params], sizeof x->param_names[0], "%s",
                 it->string);
        x->params[x->n_params++] = (int64_t)it->valuedouble;
    }
    x->best = get_bool(o, "best");
    x->recorded_ns = record_num(o, "recorded_ns", 0);
    x->measured_ns = record_num(o, "measured_ns", 0);
    x->drift = record_num(o, "drift", 0);
    x->noise = record_num(o, "noise", 0);
    x->within_noise = get_bool(o, "within_noise");
    get_str(o, "outcome", x->outcome, sizeof x->outcome);
    get_str(o, "detail", x->detail, sizeof x->detail);
    x->recorded_ratio = record_num(o, "recorded_ratio", 0);
    x->measured_ratio = record_num(o, "measured_ratio", 0);
    x->measured_fitness = record_num(o, "measured_fitness", 0);
    x->vs_baseline_interleaved = record_num(o, "vs_baseline_interleaved", 0);
    x->vs_baseline_paired = record_num(o, "vs_baseline_paired", 0);
    x->vs_baseline_paired_noise =
        record_num(o, "vs_baseline_paired_noise", 0);
    x->vs_baseline_pairs = record_int(o, "vs_baseline_pairs", 0);
    get_str(o, "unit", x->unit, sizeof x->unit);
    int n = get_numbers(o, "rounds_ns", x->rounds_ns, VDOC_MAX_ROUNDS);
    x->n_rounds = n > 0 ? n : 0;
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(o, "profile");
    x->profile = cJSON_IsObject(pr) ? cJSON_Duplicate(pr, 1) : NULL;
    get_str(o, "diagnosis", x->diagnosis, sizeof x->diagnosis);
}

static void baselines_parse(const cJSON *a, struct vdoc *d)
{
    const cJSON *o;
    cJSON_ArrayForEach(o, (cJSON_IsArray(a) ? a : NULL))
    {
        if (d->n_baselines == PROB_MAX_BASELINES)
            break;
        struct vdoc_baseline *b = &d->baselines[d->n_baselines++];
        get_str(o, "name", b->name, sizeof b->name);
        b->recorded_ns = record_num(o, "recorded_ns", 0);
        b->measured_ns = record_num(o, "measured_ns", 0);
        b->has_drift = cJSON_IsNumber(cJSON_GetObjectItem(o, "drift"));
        b->drift = record_num(o, "drift", 0);
    }
}

int vdoc_parse(const cJSON *o, const char *path, struct vdoc **out,
               char *err, size_t errcap)
{
    *out = NULL;
    if (!cJSON_IsObject(o)) {
        snprintf(err, errcap, "'%s': not a JSON object", path);
        return KEVO_EPARSE;
    }
    struct vdoc *d = vdoc_new();
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(o, "recorded"), *e;
    if (!d) {
        snprintf(err, errcap, "'%s': out of memory", path);
        return KEVO_ENOMEM;
    }
    get_str(o, "run", d->run, sizeof d->run);
    get_str(o, "date", d->date, sizeof d->date);
    gpu_parse(cJSON_GetObjectItemCaseSensitive(o, "gpu"), &d->gpu);
    sw_parse(cJSON_GetObjectItemCaseSensitive(o, "software"), &d->software);
    d->same_gpu = get_bool(o, "same_gpu");
    d->same_software = get_bool(o, "same_software");
    d->verified = get_bool(o, "verified");
    get_str(o, "differences", d->differences, sizeof d->differences);
    get_str(o, "best_hash", d->best_hash, sizeof d->best_hash);
    d->drift = record_num(o, "drift", 0);
    d->noise = record_num(o, "noise", 0);
    gpu_parse(cJSON_GetObjectItemCaseSensitive(rec, "gpu"), &d->recorded_gpu);
    sw_parse(cJSON_GetObjectItemCaseSensitive(rec, "software"),
             &d->recorded_software);
    get_str(o, "harness_seed", d->harness_seed, sizeof d->harness_seed);
    d->reps = record_int(o, "reps", 0);
    get_str(o, "kevo_version", d->kevo_version, sizeof d->kevo_version);
    get_str(o, "kevo_commit", d->kevo_commit, sizeof d->kevo_commit);
    baselines_parse(cJSON_GetObjectItemCaseSensitive(o, "baselines"), d);
    d->n_baseline_rounds = get_numbers(o, "baseline_rounds_ns",
                                       d->baseline_rounds_ns,
                                       VDOC_MAX_ROUNDS + 1);
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "entries"))
    {
        if (d->n_entries == VDOC_MAX_ENTRIES)
            break;
        entry_parse(e, &d->entries[d->n_entries++]);
    }
    const cJSON *fp = cJSON_GetObjectItemCaseSensitive(o, "fingerprint"),
                *nv = cJSON_GetObjectItemCaseSensitive(o, "nvml_end");
    d->fingerprint = fp ? cJSON_Duplicate(fp, 1) : NULL;
    d->nvml_end = nv ? cJSON_Duplicate(nv, 1) : NULL;
    if ((fp && !d->fingerprint) || (nv && !d->nvml_end)) {
        vdoc_free(d);
        snprintf(err, errcap, "'%s': out of memory", path);
        return KEVO_ENOMEM;
    }
    *out = d;
    return KEVO_OK;
}

const struct vdoc_entry *vdoc_find(const struct vdoc *d, const char *hash)
{
    for (int i = 0; d && i < d->n_entries; i++)
        if (!strcmp(d->entries[i].hash, hash))
            return &d->entries[i];
    return NULL;
}
