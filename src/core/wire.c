/*
 * wire.c - the GPU worker's protocol (see wire.h): the table of message
 * kinds and, for each body, its encoder next to its decoder.
 */
#include "wire.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hash.h"
#include "record.h"

static const struct {
    int type;
    const char *name;
    int has_body;
} kinds[] = {
    {WM_INIT, "init", 1},           {WM_JOB, "job", 1},
    {WM_CONFIRM, "confirm", 1},     {WM_BASELINE, "baseline", 0},
    {WM_QUIT, "quit", 0},           {WM_READY, "ready", 1},
    {WM_PROGRESS, "progress", 1},   {WM_RESULT, "result", 1},
    {WM_CONFIRMED, "confirmed", 1}, {WM_FATAL, "fatal", 1},
    {WM_PROFILE, "profile", 1},     {WM_PROFILED, "profiled", 1},
};

const char *wire_kind_name(int type)
{
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (kinds[i].type == type)
            return kinds[i].name;
    return "?";
}

int wire_kind_has_body(int type)
{
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (kinds[i].type == type)
            return kinds[i].has_body;
    return 0;
}

/* Copies string member k of o into dst[cap] ("" when absent). */
static void get_str(const cJSON *o, const char *k, char *dst, size_t cap)
{
    const char *v = record_str(o, k);
    snprintf(dst, cap, "%s", v ? v : "");
}

/* Returns o, or deletes it and returns NULL when cJSON ran out of memory
 * on the way (last is the last member added). */
static cJSON *done(cJSON *o, const cJSON *last)
{
    if (last)
        return o;
    cJSON_Delete(o);
    return NULL;
}

/* ---- init */

cJSON *wire_init_json(const struct wire_init *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "problem", m->problem);
    if (m->problem_file && m->problem_text) {
        cJSON_AddStringToObject(o, "problem_file", m->problem_file);
        cJSON_AddStringToObject(o, "problem_text", m->problem_text);
    }
    cJSON_AddStringToObject(o, "dtype", dtype_name(m->dtype));
    cJSON *s = cJSON_AddArrayToObject(o, "shape");
    for (int i = 0; s && i < m->shape.n_dims; i++)
        cJSON_AddItemToArray(s, cJSON_CreateNumber((double)m->shape.d[i]));
    char seed[17];
    hash_hex(m->seed, seed);
    cJSON_AddStringToObject(o, "seed", seed);
    cJSON_AddNumberToObject(o, "device", m->device);
    if (m->profiler)
        cJSON_AddBoolToObject(o, "profiler", 1);
    return done(o, cJSON_AddBoolToObject(o, "cupti", m->cupti));
}

int wire_init_parse(const cJSON *o, struct wire_init *m)
{
    memset(m, 0, sizeof *m);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "shape");
    const char *dt = record_str(o, "dtype"), *seed = record_str(o, "seed");
    m->problem = record_str(o, "problem");
    m->problem_file = record_str(o, "problem_file");
    m->problem_text = record_str(o, "problem_text");
    if (!m->problem_file || !m->problem_text)
        m->problem_file = m->problem_text = NULL;
    if (!m->problem || !dt || dtype_parse(dt, &m->dtype) || !seed ||
        hash_parse(seed, &m->seed) || !cJSON_IsArray(s))
        return KEVO_EPARSE;
    m->shape.n_dims = cJSON_GetArraySize(s);
    if (m->shape.n_dims < 0 || m->shape.n_dims > PROB_MAX_DIMS)
        return KEVO_EPARSE;
    for (int i = 0; i < m->shape.n_dims; i++) {
        const cJSON *d = cJSON_GetArrayItem(s, i);
        if (!cJSON_IsNumber(d) || !(d->valuedouble >= 1) ||
            d->valuedouble > (double)INT32_MAX)
            return KEVO_EPARSE;
        m->shape.d[i] = (int64_t)d->valuedouble;
    }
    m->device = record_int(o, "device", 0);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "cupti");
    m->cupti = c ? cJSON_IsTrue(c) : 1;
    m->profiler = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "profiler"));
    return KEVO_OK;
}

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
        int64_t smem = record_i64(l, "smem", 0);
        if (smem < 0 || smem > (int64_t)UINT32_MAX) /* no wrap-around */
            return KEVO_EPARSE;
        d->smem_bytes = (uint32_t)smem;
        d->pdl = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "pdl"));
    }
    int64_t ws = record_i64(o, "workspace", 0);
    if (ws < 0) /* -1 must not become 2^64 - 1 bytes */
        return KEVO_EPARSE;
    pl->workspace_bytes = (uint64_t)ws;
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
            sw->valueint, record_int(m, "l2", 256)};
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
    j->seq = (long long)record_i64(o, "seq", 0);
    return KEVO_OK;
}

/* ---- confirm */

cJSON *wire_confirm_json(const struct wire_confirm *m)
{
    cJSON *o = cJSON_CreateObject(), *a = wire_job_json(&m->a);
    if (!o || !a) {
        cJSON_Delete(o);
        cJSON_Delete(a);
        return NULL;
    }
    cJSON_AddNumberToObject(o, "pairs", m->pairs);
    cJSON_AddNumberToObject(a, "cubin_len", (double)m->a_cubin_len);
    cJSON_AddItemToObject(o, "a", a);
    if (m->vs_baseline)
        return done(o, cJSON_AddBoolToObject(o, "vs_baseline", 1));
    cJSON *b = wire_job_json(&m->b);
    if (b)
        cJSON_AddItemToObject(o, "b", b);
    return done(o, b);
}

int wire_confirm_parse(const cJSON *o, struct wire_confirm *m)
{
    memset(m, 0, sizeof *m);
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "a"),
                *b = cJSON_GetObjectItemCaseSensitive(o, "b");
    m->vs_baseline =
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "vs_baseline"));
    m->pairs = record_int(o, "pairs", 0);
    double len = record_num(a, "cubin_len", -1);
    if (!cJSON_IsObject(a) || wire_job_parse(a, &m->a) || !(len >= 0) ||
        len >= 18446744073709551616.0)
        return KEVO_EPARSE;
    m->a_cubin_len = (uint64_t)len;
    if (m->vs_baseline)
        return KEVO_OK;
    return cJSON_IsObject(b) ? wire_job_parse(b, &m->b) : KEVO_EPARSE;
}

/* ---- confirmed */

cJSON *wire_confirmed_json(const struct wire_confirmed *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    if (m->error[0])
        return done(o, cJSON_AddStringToObject(o, "error", m->error));
    cJSON_AddNumberToObject(o, "a_median_ns", m->a_median_ns);
    cJSON_AddNumberToObject(o, "b_median_ns", m->b_median_ns);
    cJSON_AddNumberToObject(o, "ratio", m->ratio);
    cJSON_AddNumberToObject(o, "noise", m->noise);
    return done(o, cJSON_AddNumberToObject(o, "pairs", m->pairs));
}

int wire_confirmed_parse(const cJSON *o, struct wire_confirmed *m)
{
    memset(m, 0, sizeof *m);
    if (!cJSON_IsObject(o))
        return KEVO_EPARSE;
    get_str(o, "error", m->error, sizeof m->error);
    m->a_median_ns = record_num(o, "a_median_ns", 0);
    m->b_median_ns = record_num(o, "b_median_ns", 0);
    m->ratio = record_num(o, "ratio", 0);
    m->noise = record_num(o, "noise", 0);
    m->pairs = record_int(o, "pairs", 0);
    return KEVO_OK;
}

/* ---- ready */

static cJSON *device_json(const struct wire_device *d)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "name", d->name);
    cJSON_AddStringToObject(o, "uuid", d->uuid);
    cJSON_AddStringToObject(o, "arch", d->arch);
    cJSON_AddNumberToObject(o, "ordinal", d->ordinal);
    cJSON_AddNumberToObject(o, "sms", d->sms);
    cJSON_AddNumberToObject(o, "total_mem", (double)d->total_mem);
    cJSON_AddNumberToObject(o, "l2_bytes", (double)d->l2_bytes);
    cJSON_AddNumberToObject(o, "clock_khz", d->clock_khz);
    cJSON_AddNumberToObject(o, "mem_clock_khz", d->mem_clock_khz);
    cJSON_AddNumberToObject(o, "bus_width_bits", d->bus_width_bits);
    cJSON_AddNumberToObject(o, "smem_optin", (double)d->smem_optin);
    cJSON_AddNumberToObject(o, "driver_version", d->driver_version);
    cJSON_AddNumberToObject(o, "peak_bw", d->peak_bw);
    cJSON_AddNumberToObject(o, "peak_fp32", d->peak_fp32);
    return done(o, cJSON_AddNumberToObject(o, "peak_tensor16",
                                           d->peak_tensor16));
}

static void device_parse(const cJSON *o, struct wire_device *d)
{
    get_str(o, "name", d->name, sizeof d->name);
    get_str(o, "uuid", d->uuid, sizeof d->uuid);
    get_str(o, "arch", d->arch, sizeof d->arch);
    d->ordinal = record_int(o, "ordinal", 0);
    d->sms = record_int(o, "sms", 0);
    d->total_mem = record_i64(o, "total_mem", 0);
    d->l2_bytes = record_i64(o, "l2_bytes", 0);
    d->clock_khz = record_int(o, "clock_khz", 0);
    d->mem_clock_khz = record_int(o, "mem_clock_khz", 0);
    d->bus_width_bits = record_int(o, "bus_width_bits", 0);
    d->smem_optin = record_i64(o, "smem_optin", 0);
    d->driver_version = record_int(o, "driver_version", 0);
    d->peak_bw = record_num(o, "peak_bw", 0);
    d->peak_fp32 = record_num(o, "peak_fp32", 0);
    d->peak_tensor16 = record_num(o, "peak_tensor16", 0);
}

static void nvml_put(cJSON *o, const struct wire_nvml *n)
{
    cJSON_AddNumberToObject(o, "temp_c", n->temp_c);
    cJSON_AddNumberToObject(o, "power_limit_mw", n->power_limit_mw);
    cJSON_AddNumberToObject(o, "power_mw", n->power_mw);
    cJSON_AddNumberToObject(o, "sm_clock_mhz", n->sm_clock_mhz);
    cJSON_AddNumberToObject(o, "mem_clock_mhz", n->mem_clock_mhz);
    cJSON_AddNumberToObject(o, "app_sm_clock_mhz", n->app_sm_clock_mhz);
    cJSON_AddNumberToObject(o, "throttle", (double)n->throttle);
}

static void nvml_parse(const cJSON *o, struct wire_nvml *n)
{
    n->temp_c = record_int(o, "temp_c", -1);
    n->power_limit_mw = record_int(o, "power_limit_mw", -1);
    n->power_mw = record_int(o, "power_mw", -1);
    n->sm_clock_mhz = record_int(o, "sm_clock_mhz", -1);
    n->mem_clock_mhz = record_int(o, "mem_clock_mhz", -1);
    n->app_sm_clock_mhz = record_int(o, "app_sm_clock_mhz", -1);
    n->throttle = (long long)record_i64(o, "throttle", -1);
}

cJSON *wire_ready_json(const struct wire_ready *m)
{
    cJSON *o = cJSON_CreateObject(), *d = device_json(&m->device);
    if (!o || !d) {
        cJSON_Delete(o);
        cJSON_Delete(d);
        return NULL;
    }
    cJSON_AddItemToObject(o, "device", d);
    if (m->device_count >= 0)
        cJSON_AddNumberToObject(o, "device_count", m->device_count);
    cJSON_AddStringToObject(o, "timer", m->timer);
    cJSON_AddStringToObject(o, "timer_note", m->timer_note);
    cJSON_AddNumberToObject(o, "cupti_version", m->cupti_version);
    cJSON_AddNumberToObject(o, "cublas_version", m->cublas_version);
    cJSON_AddStringToObject(o, "cublas_note", m->cublas_note);
    cJSON_AddStringToObject(o, "nvrtc_version", m->nvrtc_version);
    cJSON *b = cJSON_AddArrayToObject(o, "baselines");
    for (int i = 0; b && i < m->n_baselines; i++) {
        cJSON *x = cJSON_CreateObject();
        if (x) {
            record_put_baseline(x, &m->baselines[i]);
            cJSON_AddItemToArray(b, x);
        }
    }
    if (m->baseline_note[0])
        cJSON_AddStringToObject(o, "baseline_note", m->baseline_note);
    if (m->has_tolerance) {
        cJSON *t = cJSON_AddObjectToObject(o, "tolerance");
        if (t)
            wire_tolerance_put(t, &m->tolerance);
    }
    if (!m->has_nvml)
        return done(o, b);
    cJSON *n = cJSON_AddObjectToObject(o, "nvml");
    if (n)
        nvml_put(n, &m->nvml);
    return done(o, n);
}

int wire_ready_parse(const cJSON *o, struct wire_ready *m)
{
    memset(m, 0, sizeof *m);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "device"),
                *b = cJSON_GetObjectItemCaseSensitive(o, "baselines"),
                *n = cJSON_GetObjectItemCaseSensitive(o, "nvml"), *x;
    if (!cJSON_IsObject(d))
        return KEVO_EPARSE;
    device_parse(d, &m->device);
    m->device_count = record_int(o, "device_count", -1);
    get_str(o, "timer", m->timer, sizeof m->timer);
    get_str(o, "timer_note", m->timer_note, sizeof m->timer_note);
    m->cupti_version = record_int(o, "cupti_version", 0);
    m->cublas_version = record_int(o, "cublas_version", 0);
    get_str(o, "cublas_note", m->cublas_note, sizeof m->cublas_note);
    get_str(o, "nvrtc_version", m->nvrtc_version, sizeof m->nvrtc_version);
    for (x = cJSON_IsArray(b) ? b->child : NULL;
         x && m->n_baselines < PROB_MAX_BASELINES; x = x->next)
        record_get_baseline(x, &m->baselines[m->n_baselines++]);
    get_str(o, "baseline_note", m->baseline_note, sizeof m->baseline_note);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "tolerance");
    if ((m->has_tolerance = cJSON_IsObject(t)))
        wire_tolerance_get(t, &m->tolerance);
    if ((m->has_nvml = cJSON_IsObject(n)))
        nvml_parse(n, &m->nvml);
    return KEVO_OK;
}

/* One pair's members: atol, rtol, used (when known), source. */
static void pair_put(cJSON *o, double atol, double rtol, double used,
                     const char *source)
{
    cJSON_AddNumberToObject(o, "atol", atol);
    cJSON_AddNumberToObject(o, "rtol", rtol);
    if (used > 0)
        cJSON_AddNumberToObject(o, "used", used);
    cJSON_AddStringToObject(o, "source", source);
}

void wire_tolerance_put(cJSON *o, const struct wire_tolerance *t)
{
    if (t->n_out == 1) { /* one output: the object is its tolerance */
        const struct wire_tol_out *u = &t->out[0];
        pair_put(o, u->atol, u->rtol, u->used, u->source);
    } else if (t->n_out == 0) {
        pair_put(o, t->atol, t->rtol, t->used, t->source);
    } else {
        cJSON_AddStringToObject(o, "source", t->source);
        cJSON *a = cJSON_AddArrayToObject(o, "outputs");
        for (int k = 0; a && k < t->n_out; k++) {
            cJSON *x = cJSON_CreateObject();
            if (!x)
                break;
            cJSON_AddStringToObject(x, "name", t->out[k].name);
            pair_put(x, t->out[k].atol, t->out[k].rtol, t->out[k].used,
                     t->out[k].source);
            cJSON_AddItemToArray(a, x);
        }
    }
    if (t->margin > 0)
        cJSON_AddNumberToObject(o, "margin", t->margin);
    if (t->who[0])
        cJSON_AddStringToObject(o, "who", t->who);
}

void wire_tolerance_get(const cJSON *o, struct wire_tolerance *t)
{
    memset(t, 0, sizeof *t);
    t->atol = record_num(o, "atol", 0);
    t->rtol = record_num(o, "rtol", 0);
    t->used = record_num(o, "used", 0);
    t->margin = record_num(o, "margin", 0);
    get_str(o, "source", t->source, sizeof t->source);
    get_str(o, "who", t->who, sizeof t->who);
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "outputs"), *x;
    for (x = cJSON_IsArray(a) ? a->child : NULL;
         x && t->n_out < PROB_MAX_BUFS; x = x->next) {
        struct wire_tol_out *u = &t->out[t->n_out++];
        get_str(x, "name", u->name, sizeof u->name);
        u->atol = record_num(x, "atol", 0);
        u->rtol = record_num(x, "rtol", 0);
        u->used = record_num(x, "used", 0);
        get_str(x, "source", u->source, sizeof u->source);
    }
}

void wire_tolerance_outputs(struct wire_tolerance *t, const struct problem *p,
                            const struct shape *s, enum dtype dt)
{
    const char *names[PROB_MAX_BUFS];
    int n = p->out_tolerance ? problem_outputs(p, s, dt, names) : 0;
    for (int k = 0; k < n; k++) {
        struct wire_tol_out *u = &t->out[k];
        struct out_tol o;
        problem_out_tolerance(p, s, dt, k, &o);
        snprintf(u->name, sizeof u->name, "%s", names[k]);
        u->atol = o.atol;
        u->rtol = o.rtol;
        u->used = o.used;
        snprintf(u->source, sizeof u->source, "%s", o.source);
        if (!k || strcmp(t->source, o.source))
            snprintf(t->source, sizeof t->source, "%s", k ? "mixed"
                                                          : o.source);
    }
    if (n)
        t->n_out = n;
}

void wire_tolerance_one(const struct wire_tolerance *t, int k,
                        struct wire_tolerance *one)
{
    const struct wire_tol_out *u = &t->out[k];
    memset(one, 0, sizeof *one);
    one->atol = u->atol;
    one->rtol = u->rtol;
    one->used = u->used;
    one->margin = t->margin;
    snprintf(one->source, sizeof one->source, "%s", u->source);
    snprintf(one->who, sizeof one->who, "%s", t->who);
}

void wire_tolerance_note(const struct wire_tolerance *t, const char *dtype,
                         char *out, size_t cap)
{
    const char *who = t->who[0] ? t->who : "the reference";
    if (!strcmp(t->source, "calibrated"))
        snprintf(out, cap, "calibrated: %s's own %s result uses %.2g of it, "
                 "margin %.3gx", who, dtype, t->used, t->margin);
    else if (!strcmp(t->source, "given") && t->used > 0)
        snprintf(out, cap, "given by the user; %s's own %s result uses %.2g "
                 "of it", who, dtype, t->used);
    else if (!strcmp(t->source, "given"))
        snprintf(out, cap, "given by the user");
    else if (!strcmp(t->source, "exact"))
        snprintf(out, cap, "exact: an integer output");
    else
        snprintf(out, cap, "%s", "");
}

/* "atol 0.00027 rtol 4.8e-07 (NOTE)" of a one-pair tolerance. */
static void pair_text(const struct wire_tolerance *t, const char *dtype,
                      char *out, size_t cap)
{
    char note[256];
    wire_tolerance_note(t, dtype, note, sizeof note);
    snprintf(out, cap, "atol %.3g rtol %.3g%s%s%s", t->atol, t->rtol,
             note[0] ? " (" : "", note, note[0] ? ")" : "");
}

void wire_tolerance_text(const struct wire_tolerance *t, const char *dtype,
                         char *out, size_t cap)
{
    if (!t->n_out) {
        pair_text(t, dtype, out, cap);
        return;
    }
    size_t n = 0;
    out[0] = '\0';
    for (int k = 0; k < t->n_out && n < cap; k++) {
        struct wire_tolerance one;
        char text[400];
        wire_tolerance_one(t, k, &one);
        pair_text(&one, dtype, text, sizeof text);
        n += (size_t)snprintf(out + n, cap - n, "%s%s %s", k ? "; " : "",
                              t->out[k].name, text);
    }
}

/* ---- progress, fatal */

cJSON *wire_progress_json(const struct wire_progress *m)
{
    cJSON *o = cJSON_CreateObject();
    if (o && m->budget_ms > 0)
        cJSON_AddNumberToObject(o, "budget_ms", m->budget_ms);
    return o ? done(o, cJSON_AddStringToObject(o, "phase", m->phase)) : NULL;
}

int wire_progress_parse(const cJSON *o, struct wire_progress *m)
{
    memset(m, 0, sizeof *m);
    if (!record_str(o, "phase"))
        return KEVO_EPARSE;
    get_str(o, "phase", m->phase, sizeof m->phase);
    double b = record_num(o, "budget_ms", 0);
    m->budget_ms = b > 0 && b < 86400000 ? (int)b : 0;
    return KEVO_OK;
}

cJSON *wire_fatal_json(const struct wire_fatal *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "reason", m->reason);
    return done(o, cJSON_AddBoolToObject(o, "enodev", m->enodev));
}

int wire_fatal_parse(const cJSON *o, struct wire_fatal *m)
{
    memset(m, 0, sizeof *m);
    if (!record_str(o, "reason"))
        return KEVO_EPARSE;
    get_str(o, "reason", m->reason, sizeof m->reason);
    m->enodev = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "enodev"));
    return KEVO_OK;
}

/* ---- result */

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
