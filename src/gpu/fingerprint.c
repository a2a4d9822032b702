/*
 * fingerprint.c - the environment fingerprint (see fingerprint.h). Reads
 * the evaluator's environment object and, in this process, NVML (the
 * driver version text and the application memory clock come from here;
 * temperature, power and current clocks through gpu_nvml_sample). Does
 * not start a GPU and writes nothing.
 */
#include "fingerprint.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "gpu.h"
#include "hash.h"
#include "jit.h"
#include "version.h"

/* ---- the NVML entry points gpu.c does not read */

static struct {
    int ok;                /* 1: loaded and initialised */
    char reason[160];      /* why not, when ok == 0 */
    int (*init)(void);
    int (*driver)(char *, unsigned);
    int (*by_uuid)(const char *, void **);
    int (*appclock)(void *, int, unsigned *);
} nx;
static pthread_once_t nx_once = PTHREAD_ONCE_INIT;

static void nx_load(void)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(nx.reason, sizeof nx.reason,
                 "libnvidia-ml.so.1 not found (NVML is optional)");
        return;
    }
    nx.init = (int (*)(void))dlsym(h, "nvmlInit_v2");
    nx.driver = (int (*)(char *, unsigned))dlsym(
        h, "nvmlSystemGetDriverVersion");
    nx.by_uuid = (int (*)(const char *, void **))dlsym(
        h, "nvmlDeviceGetHandleByUUID");
    nx.appclock = (int (*)(void *, int, unsigned *))dlsym(
        h, "nvmlDeviceGetApplicationsClock");
    int rc = nx.init ? nx.init() : -1;
    if (rc) {
        snprintf(nx.reason, sizeof nx.reason, "nvmlInit_v2 failed (%d)", rc);
        return;
    }
    nx.ok = 1;
}

/* ---- small JSON helpers */

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static const char *str_of(const cJSON *o, const char *k)
{
    const cJSON *v = get(o, k);
    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

static double num_of(const cJSON *o, const char *k, double dflt)
{
    const cJSON *v = get(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static void add_str_or_null(cJSON *o, const char *k, const char *v)
{
    if (v)
        cJSON_AddStringToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

/* v >= 0 as a number, else null (NVML gives -1 for unknown). */
static void add_num_or_null(cJSON *o, const char *k, double v)
{
    if (v >= 0)
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

/* "13.0" from 13000. */
static void cuda_text(int v, char *out, size_t cap)
{
    snprintf(out, cap, "%d.%d", v / 1000, v % 1000 / 10);
}

/* ---- the parts */

static cJSON *gpu_part(const cJSON *dev)
{
    cJSON *g = cJSON_CreateObject();
    add_str_or_null(g, "name", str_of(dev, "name"));
    add_str_or_null(g, "uuid", str_of(dev, "uuid"));
    add_str_or_null(g, "arch", str_of(dev, "arch"));
    add_num_or_null(g, "sms", num_of(dev, "sms", -1));
    add_num_or_null(g, "memory_bytes", num_of(dev, "total_mem", -1));
    add_num_or_null(g, "l2_bytes", num_of(dev, "l2_bytes", -1));
    double c = num_of(dev, "clock_khz", -1), m = num_of(dev, "mem_clock_khz",
                                                         -1);
    add_num_or_null(g, "max_sm_mhz", c >= 0 ? c / 1000 : -1);
    add_num_or_null(g, "max_mem_mhz", m >= 0 ? m / 1000 : -1);
    return g;
}

static cJSON *software_part(const cJSON *env, const cJSON *dev,
                            const char *driver_text)
{
    cJSON *s = cJSON_CreateObject();
    char v[32];
    add_str_or_null(s, "driver", driver_text);
    int dv = (int)num_of(dev, "driver_version", -1);
    if (dv > 0)
        cuda_text(dv, v, sizeof v);
    add_str_or_null(s, "cuda_driver", dv > 0 ? v : NULL);
    const char *hdr = str_of(env, "cuda_headers");
    char own[32];
    cuda_text(CUDA_VERSION, own, sizeof own);
    cJSON_AddStringToObject(s, "cuda", hdr ? hdr : own);
    const char *nvrtc = str_of(env, "nvrtc_version");
    cJSON_AddStringToObject(s, "nvrtc", nvrtc ? nvrtc : jit_nvrtc_version());
    add_num_or_null(s, "cupti", dev ? num_of(env, "cupti_version", -1) : -1);
    add_num_or_null(s, "cublas", dev ? num_of(env, "cublas_version", -1) : -1);
    add_str_or_null(s, "timer", str_of(env, "timer"));
    return s;
}

static cJSON *kevo_part(const char *arch)
{
    cJSON *k = cJSON_CreateObject();
    cJSON_AddStringToObject(k, "version", KEVO_VERSION);
    cJSON_AddStringToObject(k, "commit", kevo_git_commit());
    cJSON *o = cJSON_AddArrayToObject(k, "compile_options");
    const char *opts[32];
    int n = jit_default_options(arch, opts, 32);
    for (int i = 0; i < n; i++)
        if (strncmp(opts[i], "-I", 2)) /* include paths are machine paths */
            cJSON_AddItemToArray(o, cJSON_CreateString(opts[i]));
    return k;
}

/* Clocks, power limit and start temperature: NVML now (sample) or the
 * worker's sample in env.nvml; nvml_note says where they came from. */
static void nvml_part(cJSON *fp, const cJSON *env, const char *uuid,
                      int sample, char *driver, size_t dcap)
{
    struct gpu_nvml s;
    unsigned app_mem = 0;
    int have = 0;
    const char *note = "not sampled";
    driver[0] = '\0';
    if (sample) {
        pthread_once(&nx_once, nx_load);
        note = nx.ok ? "ok" : nx.reason;
        if (nx.ok && nx.driver && nx.driver(driver, (unsigned)dcap))
            driver[0] = '\0';
        void *h;
        if (nx.ok && uuid && gpu_nvml_sample(uuid, &s) == 0) {
            have = 1;
            if (!nx.by_uuid || nx.by_uuid(uuid, &h) || !nx.appclock ||
                nx.appclock(h, 2, &app_mem)) /* 2 = memory clock */
                app_mem = 0;
        } else if (nx.ok) {
            note = uuid ? "NVML does not know this GPU" : "no GPU";
        }
    }
    const cJSON *w = get(env, "nvml");
    if (!have && w) {
        s = (struct gpu_nvml){
            (int)num_of(w, "temp_c", -1), (int)num_of(w, "power_limit_mw", -1),
            (int)num_of(w, "power_mw", -1), (int)num_of(w, "sm_clock_mhz", -1),
            (int)num_of(w, "mem_clock_mhz", -1),
            (int)num_of(w, "app_sm_clock_mhz", -1), -1};
        have = 1;
        note = "sampled by the GPU worker at its start";
    }
    cJSON *c = cJSON_AddObjectToObject(fp, "clocks");
    add_num_or_null(c, "app_sm_mhz", have ? s.app_sm_clock_mhz : -1);
    add_num_or_null(c, "app_mem_mhz", app_mem ? (double)app_mem : -1);
    add_num_or_null(c, "sm_mhz", have ? s.sm_clock_mhz : -1);
    add_num_or_null(c, "mem_mhz", have ? s.mem_clock_mhz : -1);
    add_num_or_null(fp, "power_limit_w",
                    have && s.power_limit_mw >= 0 ? s.power_limit_mw / 1000.0
                                                  : -1);
    add_num_or_null(fp, "temp_c_start", have ? s.temp_c : -1);
    cJSON_AddStringToObject(fp, "nvml", note);
}

/* Continues h over one JSON value (strings, numbers, null). */
static uint64_t hash_item(uint64_t h, const cJSON *v)
{
    h = hash_u64(h, 0x1f);
    if (cJSON_IsString(v))
        return hash_str(h, v->valuestring);
    if (cJSON_IsNumber(v))
        return hash_u64(h, (uint64_t)(int64_t)v->valuedouble);
    if (cJSON_IsArray(v)) {
        const cJSON *x;
        cJSON_ArrayForEach(x, v) h = hash_item(h, x);
        return h;
    }
    return hash_str(h, "null");
}

static void add_hash(cJSON *fp)
{
    const cJSON *g = get(fp, "gpu"), *s = get(fp, "software"),
                *k = get(fp, "kevo");
    static const char *const sw[] = {"driver", "cuda_driver", "cuda",
                                     "nvrtc", "cupti", "cublas"};
    uint64_t h = hash_str(HASH_SEED, "kevo-fingerprint-1");
    h = hash_item(h, get(g, "name"));
    h = hash_item(h, get(g, "uuid"));
    for (size_t i = 0; i < sizeof sw / sizeof *sw; i++)
        h = hash_item(h, get(s, sw[i]));
    h = hash_item(h, get(k, "version"));
    h = hash_item(h, get(k, "commit"));
    h = hash_item(h, get(k, "compile_options"));
    char hex[17];
    hash_hex(hash_final(h), hex);
    cJSON_AddStringToObject(fp, "hash", hex);
}

cJSON *fingerprint_new(const cJSON *env, int sample)
{
    cJSON *fp = cJSON_CreateObject();
    if (!fp)
        return NULL;
    const cJSON *dev = get(env, "device");
    if (cJSON_IsObject(dev)) {
        cJSON_AddItemToObject(fp, "gpu", gpu_part(dev));
    } else {
        const char *ev = str_of(env, "evaluator");
        char why[128];
        snprintf(why, sizeof why, "the evaluator%s%s reported no GPU",
                 ev ? " " : "", ev ? ev : "");
        cJSON_AddNullToObject(fp, "gpu");
        cJSON_AddStringToObject(fp, "gpu_reason", why);
        dev = NULL;
    }
    char driver[96];
    nvml_part(fp, env, dev ? str_of(dev, "uuid") : NULL, sample, driver,
              sizeof driver);
    cJSON_AddItemToObject(fp, "software",
                          software_part(env, dev, driver[0] ? driver : NULL));
    const char *arch = str_of(env, "arch");
    if (!arch)
        arch = dev && str_of(dev, "arch") ? str_of(dev, "arch") : "sm_90a";
    cJSON_AddItemToObject(fp, "kevo", kevo_part(arch));
    add_hash(fp);
    return fp;
}

const char *fingerprint_hash(const cJSON *fp)
{
    const char *h = str_of(fp, "hash");
    return h ? h : "";
}

cJSON *fingerprint_sample(const char *uuid)
{
    struct gpu_nvml s;
    if (!uuid || !uuid[0] || gpu_nvml_sample(uuid, &s))
        return NULL;
    cJSON *o = cJSON_CreateObject();
    if (s.temp_c >= 0)
        cJSON_AddNumberToObject(o, "temp_c", s.temp_c);
    if (s.sm_clock_mhz >= 0)
        cJSON_AddNumberToObject(o, "sm_mhz", s.sm_clock_mhz);
    if (s.mem_clock_mhz >= 0)
        cJSON_AddNumberToObject(o, "mem_mhz", s.mem_clock_mhz);
    if (s.power_mw >= 0)
        cJSON_AddNumberToObject(o, "power_w", s.power_mw / 1000.0);
    return o;
}

/* ---- comparison */

/* Text of a string or number member for messages ("?" if absent). */
static const char *text_of(const cJSON *o, const char *k, char *buf,
                           size_t cap)
{
    const cJSON *v = get(o, k);
    if (cJSON_IsString(v))
        return v->valuestring;
    if (cJSON_IsNumber(v)) {
        snprintf(buf, cap, "%.0f", v->valuedouble);
        return buf;
    }
    return "?";
}

static void append(char *diff, size_t cap, const char *fmt, const char *x,
                   const char *y, const char *z)
{
    size_t n = strlen(diff);
    if (n + 3 < cap)
        snprintf(diff + n, cap - n, "%s", n ? "; " : "");
    n = strlen(diff);
    if (n < cap)
        snprintf(diff + n, cap - n, fmt, x, y, z);
}

void fingerprint_compare(const cJSON *a, const cJSON *b, int *same_gpu,
                         int *same_software, char *diff, size_t cap)
{
    static const char *const sw[] = {"driver", "cuda_driver", "cuda",
                                      "nvrtc", "cupti", "cublas"};
    static const char *const label[] = {"driver", "CUDA driver API",
                                         "CUDA toolkit", "NVRTC", "CUPTI",
                                         "cuBLAS"};
    const cJSON *ga = get(a, "gpu"), *gb = get(b, "gpu");
    const cJSON *sa = get(a, "software"), *sb = get(b, "software");
    char x[64], y[64];
    diff[0] = '\0';
    *same_gpu = cJSON_IsObject(ga) && cJSON_IsObject(gb) &&
                cJSON_Compare(get(ga, "name"), get(gb, "name"), 1) &&
                cJSON_Compare(get(ga, "uuid"), get(gb, "uuid"), 1);
    if (!cJSON_IsObject(ga) || !cJSON_IsObject(gb)) {
        append(diff, cap, "%s%s%s", !cJSON_IsObject(ga)
               ? "the run recorded no GPU" : "no GPU now", "", "");
    } else if (!*same_gpu) {
        char g[400];
        snprintf(g, sizeof g, "GPU '%s' (%s) vs '%s' (%s)",
                 text_of(ga, "name", x, sizeof x),
                 text_of(ga, "uuid", x, sizeof x),
                 text_of(gb, "name", y, sizeof y),
                 text_of(gb, "uuid", y, sizeof y));
        append(diff, cap, "%s%s%s", g, "", "");
    }
    *same_software = cJSON_IsObject(sa) && cJSON_IsObject(sb);
    int differ = 0;
    for (size_t i = 0; *same_software && i < sizeof sw / sizeof *sw; i++) {
        const cJSON *va = get(sa, sw[i]), *vb = get(sb, sw[i]);
        if (!va || !vb || cJSON_IsNull(va) || cJSON_IsNull(vb) ||
            cJSON_Compare(va, vb, 1))
            continue; /* unknown on one side: not a known difference */
        differ = 1;
        append(diff, cap, "%s %s vs %s", label[i],
               text_of(sa, sw[i], x, sizeof x),
               text_of(sb, sw[i], y, sizeof y));
    }
    if (differ)
        *same_software = 0;
}
