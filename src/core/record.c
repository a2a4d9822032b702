/*
 * record.c - eval_result <-> JSON (see record.h).
 */
#include "record.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double record_num(const cJSON *o, const char *k, double dflt)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(it) ? it->valuedouble : dflt;
}

int64_t record_i64(const cJSON *o, const char *k, int64_t dflt)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsNumber(it) || isnan(it->valuedouble))
        return dflt;
    double v = it->valuedouble;
    /* 2^63 is exact as a double; INT64_MAX is not */
    return v >= 9223372036854775808.0 ? INT64_MAX
           : v <= -9223372036854775808.0 ? INT64_MIN : (int64_t)v;
}

int record_int(const cJSON *o, const char *k, int dflt)
{
    int64_t v = record_i64(o, k, dflt);
    return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

double record_ms(const cJSON *o, const char *k)
{
    double v = record_num(o, k, 0);
    return v > 0 && v <= 1e9 ? v : 0;
}

const char *record_str(const cJSON *o, const char *k)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(it) ? it->valuestring : NULL;
}

const cJSON *record_at(const cJSON *o, const char *k1, const char *k2)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k1);
    return k2 ? cJSON_GetObjectItemCaseSensitive(x, k2) : x;
}

static void put_members(cJSON *o, const struct eval_result *r)
{
    cJSON_AddStringToObject(o, "outcome", eval_outcome_name(r->outcome));
    cJSON_AddNumberToObject(o, "fitness", r->fitness);
    if (r->outcome == EVAL_OK) {
        cJSON_AddNumberToObject(o, "median_ns", r->median_ns);
        cJSON_AddNumberToObject(o, "min_ns", r->min_ns);
        cJSON_AddNumberToObject(o, "spread", r->spread);
        cJSON_AddNumberToObject(o, "reps", r->reps);
        cJSON_AddBoolToObject(o, "cascaded", r->cascaded);
        cJSON_AddNumberToObject(o, "ratio", r->ratio);
        cJSON_AddNumberToObject(o, "roofline", r->roofline);
    }
    cJSON *res = cJSON_AddObjectToObject(o, "resources");
    cJSON_AddNumberToObject(res, "regs", r->res.regs);
    cJSON_AddNumberToObject(res, "smem_static", r->res.smem_static);
    cJSON_AddNumberToObject(res, "local_bytes", r->res.local_bytes);
    cJSON_AddNumberToObject(res, "spill_bytes", r->res.spill_bytes);
    cJSON_AddNumberToObject(res, "occupancy", r->res.occupancy);
    cJSON *ms = cJSON_AddObjectToObject(o, "ms");
    cJSON_AddNumberToObject(ms, "compile", r->compile_ms);
    cJSON_AddNumberToObject(ms, "check", r->check_ms);
    cJSON_AddNumberToObject(ms, "time", r->time_ms);
    cJSON_AddStringToObject(o, "detail", r->detail);
    if (r->gpu >= 0) /* a multi-GPU run: which one measured it */
        cJSON_AddNumberToObject(o, "gpu", r->gpu);
}

void record_put_result(cJSON *o, const struct eval_result *r)
{
    put_members(o, r);
    if (r->evidence_json) {
        cJSON *ev = cJSON_Parse(r->evidence_json);
        if (ev)
            cJSON_AddItemToObject(o, "evidence", ev);
    }
}

void record_put_result_text(cJSON *o, const struct eval_result *r)
{
    put_members(o, r);
    if (r->evidence_json)
        cJSON_AddRawToObject(o, "evidence", r->evidence_json);
}

int record_evidence_ok(const char *s)
{
    cJSON *ev = s && !strpbrk(s, "\r\n") ? cJSON_ParseWithOpts(s, NULL, 1)
                                         : NULL;
    int ok = cJSON_IsObject(ev);
    cJSON_Delete(ev);
    return ok;
}

int record_get_result(const cJSON *o, struct eval_result *r)
{
    const char *oc = record_str(o, "outcome");
    if (!oc || eval_outcome_parse(oc, &r->outcome))
        return KEVO_EPARSE;
    r->fitness = record_num(o, "fitness", 0);
    r->median_ns = record_num(o, "median_ns", 0);
    r->min_ns = record_num(o, "min_ns", 0);
    r->spread = record_num(o, "spread", 0);
    r->reps = record_int(o, "reps", 0);
    r->cascaded = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "cascaded"));
    r->ratio = record_num(o, "ratio", 0);
    r->roofline = record_num(o, "roofline", 0);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(o, "resources");
    r->res.regs = record_int(res, "regs", 0);
    r->res.smem_static = record_int(res, "smem_static", 0);
    r->res.local_bytes = record_int(res, "local_bytes", 0);
    r->res.spill_bytes = record_int(res, "spill_bytes", 0);
    r->res.occupancy = record_int(res, "occupancy", 0);
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(o, "ms");
    r->compile_ms = record_ms(ms, "compile");
    r->check_ms = record_ms(ms, "check");
    r->time_ms = record_ms(ms, "time");
    r->gpu = record_int(o, "gpu", -1);
    const char *d = record_str(o, "detail");
    snprintf(r->detail, sizeof r->detail, "%s", d ? d : "");
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(o, "evidence");
    if (ev)
        r->evidence_json = cJSON_PrintUnformatted(ev);
    return KEVO_OK;
}

void record_put_baseline(cJSON *o, const struct record_baseline *b)
{
    cJSON_AddStringToObject(o, "name", b->name);
    cJSON_AddNumberToObject(o, "median_ns", b->median_ns);
    cJSON_AddNumberToObject(o, "fitness", b->fitness);
    if (b->wall_ns > 0)
        cJSON_AddNumberToObject(o, "wall_ns", b->wall_ns);
}

void record_get_baseline(const cJSON *o, struct record_baseline *b)
{
    const char *n = record_str(o, "name");
    snprintf(b->name, sizeof b->name, "%s", n ? n : "");
    b->median_ns = record_num(o, "median_ns", 0);
    b->fitness = record_num(o, "fitness", 0);
    b->wall_ns = record_num(o, "wall_ns", 0);
}
