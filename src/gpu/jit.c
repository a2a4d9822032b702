/*
 * jit.c - one NVRTC compile in this process, and the on-disk cubin cache
 * (see jit.h). Owns the compiler options and the parsing of ptxas -v
 * output. Knows nothing of processes: the pool (jitpool.c) calls these.
 *
 * Measured on the 2-core CPU host, NVRTC 13.0: the spellings
 * "--ptxas-options=-v", "-Xptxas=-v", "-Xptxas" "-v" all make ptxas write
 * "Used N registers", "N bytes stack frame, ..." and "N bytes smem" into
 * the program log; NVRTC starts no threads and keeps no fds open.
 */
#include "jit.h"

#include <cJSON.h>
#include <ctype.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codescan.h"
#include "fsutil.h"
#include "hash.h"
#include "jitpolicy.h"
#include "kvhdr.h"

#define MAX_OPTS 16
#define MAX_ARCHS 16   /* distinct archs one process may compile for */
#define CACHE_FORMAT 4 /* bump when the .json layout, parsing or the key
                          changes (4: the headers before the source) */
#define LOG_CUT_NOTE "\n[log cut at 64 KiB]\n"

/* Device-runtime entry points behind device-side launches (cudadevrt);
 * V2 variants share the prefixes. The source screen names them early;
 * the PTX scan (codescan.h) is what decides. */
static const char *const launch_calls[] = {
    "cudaLaunchDevice",
    "cudaGetParameterBuffer",
};

/* ---- options */

static pthread_once_t static_once = PTHREAD_ONCE_INIT;
static uint64_t kvhdr_state; /* the cache key's state after kevo's headers */
static char inc_opt[4096];      /* "-I<cuda>/include" */
static char inc_cccl_opt[4096]; /* "-I<cuda>/include/cccl" (libcu++) */
static char nvrtc_version[32];  /* "13.0" */
static int nvrtc_caches;        /* 1: NVRTC 12.9+, which has its own cache */

static pthread_mutex_t arch_lock = PTHREAD_MUTEX_INITIALIZER;
static char arch_opts[MAX_ARCHS][32]; /* interned "-arch=sm_90a" strings */
static int n_arch_opts;

static uint64_t headers_state(int n_hdr, const char *const *names,
                              const char *const *texts);

static void init_statics(void)
{
    kvhdr_state = headers_state(kvhdr_count(), kvhdr_names(), kvhdr_texts());
    const char *cuda = getenv("CUDA_HOME");
    if (!cuda || !*cuda)
        cuda = getenv("CUDA_PATH");
    if (!cuda || !*cuda)
        cuda = "/usr/local/cuda";
    snprintf(inc_opt, sizeof inc_opt, "-I%s/include", cuda);
    snprintf(inc_cccl_opt, sizeof inc_cccl_opt, "-I%s/include/cccl", cuda);
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        major = minor = -1;
    snprintf(nvrtc_version, sizeof nvrtc_version, "%d.%d", major, minor);
    nvrtc_caches = major > 12 || (major == 12 && minor >= 9);
}

/* A real arch, so that NVRTC produces a cubin: sm_<digits>[a|f]. */
static int arch_valid(const char *arch)
{
    if (!arch || strncmp(arch, "sm_", 3))
        return 0;
    const char *p = arch + 3;
    if (!isdigit((unsigned char)*p))
        return 0;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == 'a' || *p == 'f')
        p++;
    return *p == '\0' && p - arch < 16;
}

/* Returns the interned "-arch=<arch>" (static storage), or NULL. */
static const char *arch_option(const char *arch)
{
    char want[32];
    const char *found = NULL;
    if (!arch_valid(arch))
        return NULL;
    snprintf(want, sizeof want, "-arch=%s", arch);
    pthread_mutex_lock(&arch_lock);
    for (int i = 0; i < n_arch_opts && !found; i++)
        if (!strcmp(arch_opts[i], want))
            found = arch_opts[i];
    if (!found && n_arch_opts < MAX_ARCHS) {
        memcpy(arch_opts[n_arch_opts], want, sizeof want);
        found = arch_opts[n_arch_opts++];
    }
    pthread_mutex_unlock(&arch_lock);
    return found;
}

int jit_default_options(const char *arch, const char **opts, int max)
{
    pthread_once(&static_once, init_statics);
    /* -no-cache: NVRTC 12.9+ keeps its own cache of PTX and cubins in the
     * driver's compute cache (~/.nv/ComputeCache, only where libcuda is
     * present), shared by every run on the host and unaffected by
     * KEVO_CACHE_DIR. Measured on the H100 (bench/results/2026-11-24-h100-
     * s7/): a second run of the same case, with its own empty KEVO_CACHE_DIR,
     * compiled its first generation's fp32 GEMM candidates in 18-32 ms
     * each, against 60-820 ms in the first run. kevo's own cache (keyed by
     * source, options and NVRTC version) is the one cache: what a journal
     * says a compile took is a compile, or 0 for a hit in it. */
    /* -no-source-include: a quoted #include is not looked up in the
     * working directory; with only the CUDA -I paths, no host file but the
     * toolkit's headers is reachable by a relative name (jitpolicy.h). */
    const char *all[] = {
        arch_option(arch),    inc_opt, inc_cccl_opt, "-std=c++17", "-lineinfo",
        "--ptxas-options=-v", /* register / spill / smem lines in the log */
        "-no-source-include",
        "-no-cache", /* last: left out before NVRTC 12.9, which lacks it */
    };
    int n = (int)(sizeof all / sizeof all[0]) - !nvrtc_caches;
    if (!all[0] || n > max)
        return -KEVO_EINVAL;
    for (int i = 0; i < n; i++)
        opts[i] = all[i];
    return n;
}

const char *jit_nvrtc_version(void)
{
    pthread_once(&static_once, init_statics);
    return nvrtc_version;
}

void jit_output_release(struct jit_output *o)
{
    free(o->cubin);
    free(o->log);
    memset(o, 0, sizeof *o);
}

static void output_init(struct jit_output *o)
{
    memset(o, 0, sizeof *o);
    o->regs = o->spill_stores = o->spill_loads = -1;
    o->smem_static = o->local_bytes = -1;
}

/* ---- log */

/* Appends n bytes of s to o->log, keeping it under JIT_LOG_CAP (the
 * head of a log holds the first errors, so the tail is what is cut). */
static int log_add(struct jit_output *o, const char *s, size_t n)
{
    size_t len = o->log ? strlen(o->log) : 0;
    size_t room = JIT_LOG_CAP - 1 - strlen(LOG_CUT_NOTE);
    const char *note = "";
    if (len >= room)
        return KEVO_OK; /* already cut */
    if (n > room - len) {
        n = room - len;
        note = LOG_CUT_NOTE;
    }
    char *nl = realloc(o->log, len + n + strlen(note) + 1);
    if (!nl)
        return KEVO_ENOMEM;
    memcpy(nl + len, s, n);
    strcpy(nl + len + n, note);
    o->log = nl;
    return KEVO_OK;
}

static int KEVO_PRINTF(2, 3)
    log_addf(struct jit_output *o, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    return log_add(o, line, strlen(line));
}

/* Raises *best to the integer written just before label in line, e.g.
 * label " registers" in "ptxas info : Used 32 registers, ...". */
static void max_before(const char *line, const char *label, int *best)
{
    const char *p = strstr(line, label);
    if (!p)
        return;
    const char *d = p;
    while (d > line && isdigit((unsigned char)d[-1]))
        d--;
    if (d == p)
        return;
    long v = strtol(d, NULL, 10);
    if (v > *best)
        *best = v > 0x7fffffff ? 0x7fffffff : (int)v;
}

/* Fills the ptxas -v numbers of o from a full (uncut) log; max over all
 * functions. Only lines that ptxas wrote count: warnings echo source
 * lines, which could say "255 registers". A log with ptxas lines but
 * without "smem" etc. means 0 of it. */
static void parse_ptxas(const char *log, struct jit_output *o)
{
    int stack = -1;
    char line[512];
    for (const char *p = log; *p;) {
        size_t n = strcspn(p, "\n");
        if (!strncmp(p, "ptxas", 5)) {
            snprintf(line, sizeof line, "%.*s", (int)n, p);
            max_before(line, " registers", &o->regs);
            max_before(line, " bytes spill stores", &o->spill_stores);
            max_before(line, " bytes spill loads", &o->spill_loads);
            max_before(line, " bytes smem", &o->smem_static);
            max_before(line, " bytes stack frame", &stack);
            max_before(line, " bytes cumulative stack size", &stack);
        }
        p += n + (p[n] == '\n');
    }
    if (stack > o->local_bytes)
        o->local_bytes = stack;
    if (o->regs < 0)
        return;
    int *fields[] = {&o->spill_stores, &o->spill_loads, &o->smem_static,
                     &o->local_bytes};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        if (*fields[i] < 0)
            *fields[i] = 0;
}

/* ---- source screen */

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* If p starts a comment or a string/char literal, returns the first byte
 * after it, else p. Errs toward treating text as code: an odd construct
 * (raw strings, line splices) can only cause a false rejection, and the
 * PTX scan after the compile backs this screen up. */
static const char *skip_noncode(const char *start, const char *p)
{
    if (p[0] == '/' && p[1] == '/')
        return p + strcspn(p, "\n");
    if (p[0] == '/' && p[1] == '*') {
        const char *e = strstr(p + 2, "*/");
        return e ? e + 2 : p + strlen(p);
    }
    /* a quote after a digit is a C++14 digit separator (1'000), code */
    if (*p == '"' || (*p == '\'' && (p == start || !ident_char(p[-1])))) {
        const char *q = p + 1;
        while (*q && *q != *p && *q != '\n')
            q += (q[0] == '\\' && q[1]) ? 2 : 1;
        return *q == *p ? q + 1 : q;
    }
    return p;
}

/* 1 if c may start '<<<' or a name of launch_calls. */
static int may_start(char c)
{
    if (c == '<')
        return 1;
    for (size_t i = 0; i < sizeof launch_calls / sizeof *launch_calls; i++)
        if (c == launch_calls[i][0])
            return 1;
    return 0;
}

int jit_check_source(const char *src, char *why, size_t cap)
{
    if (jitpolicy_check_includes(src, why, cap))
        return 1;
    const char *p = src;
    while (*p) {
        const char *q = skip_noncode(src, p);
        if (q != p) {
            p = q;
            continue;
        }
        /* (the first byte first: this runs at every byte of a source,
         * 0.13 ms of a 30 KB one with a strncmp per name) */
        if (!may_start(*p)) {
            p++;
            continue;
        }
        if (!strncmp(p, "<<<", 3)) {
            snprintf(why, cap,
                     "device-side kernel launch '<<<' is not "
                     "allowed (no dynamic parallelism)");
            return 1;
        }
        for (size_t i = 0; i < sizeof launch_calls / sizeof *launch_calls; i++)
            if (!strncmp(p, launch_calls[i], strlen(launch_calls[i]))) {
                snprintf(why, cap,
                         "'%s' is not allowed (no device-side "
                         "launches)",
                         launch_calls[i]);
                return 1;
            }
        p++;
    }
    return 0;
}

/* ---- compile */

struct flow_deadline {
    long long deadline_ns; /* fs_now_ns() clock */
};

/* NVRTC's flow callback: 1 cancels. Monotonic clock, so once it returns
 * 1 it keeps returning 1, as nvrtc.h requires; it writes nothing. */
static int flow_check(void *payload, void *reserved)
{
    const struct flow_deadline *d = payload;
    return fs_now_ns() > d->deadline_ns;
}

/* Reads NVRTC's log into o: parses the ptxas numbers, then keeps the
 * capped text. */
static int take_log(nvrtcProgram prog, struct jit_output *o)
{
    size_t n = 0;
    if (nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n == 0)
        return KEVO_OK;
    char *log = malloc(n);
    if (!log)
        return KEVO_ENOMEM;
    if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS)
        log[0] = '\0';
    log[n - 1] = '\0';
    parse_ptxas(log, o);
    int rc = log_add(o, log, strlen(log));
    free(log);
    return rc;
}

/* 1 if the PTX breaks a rule of codescan.h (the reason in the log, on
 * a line of its own starting "kevo: rejected: policy: "), 0 if clean, or
 * a negative status. The PTX is there anyway (the cubin is assembled from
 * it): the scan costs one pass over text NVRTC already made. */
static int ptx_policy(nvrtcProgram prog, struct jit_output *o)
{
    size_t n = 0;
    char why[256];
    if (nvrtcGetPTXSize(prog, &n) != NVRTC_SUCCESS || n == 0)
        return -KEVO_ECOMPILE;
    o->ptx_len = n - 1; /* n counts the terminating NUL */
    char *ptx = malloc(n);
    if (!ptx)
        return -KEVO_ENOMEM;
    int hit = 0;
    if (nvrtcGetPTX(prog, ptx) == NVRTC_SUCCESS) {
        ptx[n - 1] = '\0';
        hit = codescan_ptx(ptx, why, sizeof why);
        if (hit && log_addf(o, "\nkevo: rejected: %s\n", why))
            hit = -KEVO_ENOMEM;
    } else {
        hit = -KEVO_ECOMPILE;
    }
    free(ptx);
    return hit;
}

static int take_cubin(nvrtcProgram prog, struct jit_output *o)
{
    size_t n = 0;
    if (nvrtcGetCUBINSize(prog, &n) != NVRTC_SUCCESS || n == 0)
        return KEVO_ECOMPILE; /* a real arch always gives one */
    o->cubin = malloc(n);
    if (!o->cubin)
        return KEVO_ENOMEM;
    if (nvrtcGetCUBIN(prog, o->cubin) != NVRTC_SUCCESS)
        return KEVO_ECOMPILE;
    o->cubin_len = n;
    return KEVO_OK;
}

/* Turns the result r of nvrtcCompileProgram into o. */
static int collect(nvrtcProgram prog, nvrtcResult r, int timeout_ms,
                   struct jit_output *o)
{
    if (r == NVRTC_ERROR_CANCELLED) {
        o->timed_out = 1;
        return log_addf(o, "compile timed out after %d ms\n", timeout_ms);
    }
    int rc = take_log(prog, o);
    if (rc || r == NVRTC_ERROR_COMPILATION)
        return rc;
    if (r != NVRTC_SUCCESS) {
        rc = log_addf(o, "\nnvrtc failed: %s\n", nvrtcGetErrorString(r));
        return rc ? rc : KEVO_ECOMPILE;
    }
    int hit = ptx_policy(prog, o);
    if (hit)
        return hit < 0 ? -hit : KEVO_OK;
    rc = take_cubin(prog, o);
    if (rc == KEVO_ECOMPILE && log_addf(o, "\nnvrtc gave no cubin\n"))
        rc = KEVO_ENOMEM;
    o->ok = rc == KEVO_OK;
    return rc;
}

static int compile_program(const char *src, const char *name, const char *arch,
                           int timeout_ms, struct jit_output *out)
{
    const char *opts[MAX_OPTS];
    char why[256];
    int n_opts = jit_default_options(arch, opts, MAX_OPTS);
    if (n_opts < 0) {
        int rc = log_addf(out, "invalid arch '%s'\n", arch ? arch : "");
        return rc ? rc : KEVO_EINVAL;
    }
    if (jit_check_source(src, why, sizeof why))
        return log_addf(out, "kevo: rejected: %s\n", why);
    /* kevo's own headers (kvhdr.h) in memory: no host file is read */
    nvrtcProgram prog;
    nvrtcResult r = nvrtcCreateProgram(&prog, src, name, kvhdr_count(),
                                       kvhdr_texts(), kvhdr_names());
    if (r != NVRTC_SUCCESS) {
        int rc = log_addf(out, "nvrtcCreateProgram failed: %s\n",
                          nvrtcGetErrorString(r));
        return rc ? rc : KEVO_ECOMPILE;
    }
    struct flow_deadline deadline = {fs_now_ns() +
                                     (long long)timeout_ms * 1000000};
    if (timeout_ms > 0)
        nvrtcSetFlowCallback(prog, flow_check, &deadline);
    r = nvrtcCompileProgram(prog, n_opts, opts);
    int rc = collect(prog, r, timeout_ms, out);
    nvrtcDestroyProgram(&prog);
    return rc;
}

int jit_compile_timed(const char *src, const char *name, const char *arch,
                      int timeout_ms, struct jit_output *out)
{
    output_init(out);
    long long t0 = fs_now_ns();
    int rc = compile_program(src, name, arch, timeout_ms, out);
    out->compile_ms = (double)(fs_now_ns() - t0) / 1e6;
    if (!out->ok) {
        free(out->cubin);
        out->cubin = NULL;
        out->cubin_len = 0;
    }
    if (!out->log && !(out->log = calloc(1, 1)))
        return KEVO_ENOMEM;
    return rc;
}

int jit_compile(const char *src, const char *name, const char *arch,
                struct jit_output *out)
{
    return jit_compile_timed(src, name, arch, 0, out);
}

/* ---- cache */

static uint64_t hash_field(uint64_t h, const char *s)
{
    size_t n = strlen(s);
    return hash_bytes(hash_u64(h, n), s, n); /* length first: no aliasing */
}

/* The key's state after the format and the headers' names and texts. */
static uint64_t headers_state(int n_hdr, const char *const *names,
                              const char *const *texts)
{
    uint64_t h = hash_u64(HASH_SEED, CACHE_FORMAT);
    h = hash_u64(h, (uint64_t)n_hdr);
    for (int i = 0; i < n_hdr; i++) { /* a changed header recompiles */
        h = hash_field(h, names[i]);
        h = hash_field(h, texts[i]);
    }
    return h;
}

/* The headers first and the source last (format 4): kevo's headers are
 * hashed once a process (kvhdr_state), and a key costs one pass over its
 * source; the GPU evaluator asks two keys of each candidate of a batch,
 * about a thousand a generation on softmax (tests/tools/bench_pool.c),
 * with hash_bytes_wide. */
static uint64_t key_from(uint64_t h, const char *src, const char *arch)
{
    const char *opts[MAX_OPTS];
    int n = jit_default_options(arch, opts, MAX_OPTS);
    h = hash_field(h, arch ? arch : "");
    for (int i = 0; i < n; i++)
        h = hash_field(h, opts[i]);
    h = hash_field(h, jit_nvrtc_version());
    /* tpl_instantiate's first line, a comment naming the point, is left
     * out: points that differ only in launch-only params (no #define in
     * the source) are one compile */
    if (!strncmp(src, "// kevo: ", 9) && strchr(src, '\n'))
        src = strchr(src, '\n') + 1;
    size_t len = strlen(src);
    return hash_final(hash_bytes_wide(hash_u64(h, len), src, len));
}

uint64_t jit_cache_key_with(const char *src, const char *arch, int n_hdr,
                           const char *const *names,
                           const char *const *texts)
{
    return key_from(headers_state(n_hdr, names, texts), src, arch);
}

uint64_t jit_cache_key(const char *src, const char *arch)
{
    pthread_once(&static_once, init_statics);
    return key_from(kvhdr_state, src, arch);
}

void jit_cache_dir(char *out, size_t cap)
{
    const char *v = getenv("KEVO_CACHE_DIR");
    if (v && *v) {
        snprintf(out, cap, "%s", v);
        return;
    }
    v = getenv("XDG_CACHE_HOME");
    if (v && *v) {
        snprintf(out, cap, "%s/kevo/cubin", v);
        return;
    }
    v = getenv("HOME");
    snprintf(out, cap, "%s/.cache/kevo/cubin", v && *v ? v : "/tmp");
}

static int entry_path(char *out, size_t cap, const char *dir, uint64_t key,
                      const char *ext)
{
    char hex[17], file[32];
    hash_hex(key, hex);
    snprintf(file, sizeof file, "%s.%s", hex, ext);
    return fs_join(out, cap, dir, file);
}

static cJSON *entry_json(const struct jit_output *o)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    int ok = cJSON_AddNumberToObject(j, "format", CACHE_FORMAT) &&
             cJSON_AddBoolToObject(j, "ok", o->ok) &&
             cJSON_AddNumberToObject(j, "regs", o->regs) &&
             cJSON_AddNumberToObject(j, "spill_stores", o->spill_stores) &&
             cJSON_AddNumberToObject(j, "spill_loads", o->spill_loads) &&
             cJSON_AddNumberToObject(j, "smem_static", o->smem_static) &&
             cJSON_AddNumberToObject(j, "local_bytes", o->local_bytes) &&
             cJSON_AddNumberToObject(j, "compile_ms", o->compile_ms) &&
             cJSON_AddNumberToObject(j, "cubin_len", (double)o->cubin_len) &&
             cJSON_AddStringToObject(j, "nvrtc", jit_nvrtc_version()) &&
             cJSON_AddStringToObject(j, "log", o->log ? o->log : "");
    if (!ok) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

int jit_cache_store(const char *dir, uint64_t key, const struct jit_output *o)
{
    char path[4096];
    if (o->timed_out)
        return KEVO_EINVAL;
    int rc = KEVO_OK;
    if (o->ok) {
        rc = entry_path(path, sizeof path, dir, key, "cubin");
        if (!rc)
            rc = fs_write_atomic(path, o->cubin, o->cubin_len);
        if (rc)
            return rc;
    }
    cJSON *j = entry_json(o);
    char *text = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    if (!text)
        return KEVO_ENOMEM;
    rc = entry_path(path, sizeof path, dir, key, "json");
    if (!rc)
        rc = fs_write_atomic(path, text, strlen(text));
    cJSON_free(text);
    return rc;
}

/* Integer field name of j, or -1 if absent. */
static int json_int(const cJSON *j, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, name);
    return cJSON_IsNumber(v) ? (int)v->valuedouble : -1;
}

static int load_entry(const cJSON *j, const char *dir, uint64_t key,
                      struct jit_output *out)
{
    const cJSON *log = cJSON_GetObjectItemCaseSensitive(j, "log");
    const cJSON *len = cJSON_GetObjectItemCaseSensitive(j, "cubin_len");
    if (json_int(j, "format") != CACHE_FORMAT || !cJSON_IsString(log) ||
        !cJSON_IsNumber(len))
        return KEVO_ENOENT;
    out->ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "ok"));
    out->regs = json_int(j, "regs");
    out->spill_stores = json_int(j, "spill_stores");
    out->spill_loads = json_int(j, "spill_loads");
    out->smem_static = json_int(j, "smem_static");
    out->local_bytes = json_int(j, "local_bytes");
    if (!(out->log = strdup(log->valuestring)))
        return KEVO_ENOMEM;
    if (!out->ok)
        return KEVO_OK;
    char path[4096];
    int rc = entry_path(path, sizeof path, dir, key, "cubin");
    if (!rc)
        rc = fs_read_file(path, &out->cubin, &out->cubin_len);
    if (!rc && out->cubin_len != (size_t)len->valuedouble)
        rc = KEVO_ENOENT; /* torn by hand, or a key collision */
    return rc == KEVO_ENOMEM ? rc : rc ? KEVO_ENOENT : KEVO_OK;
}

int jit_cache_load(const char *dir, uint64_t key, struct jit_output *out)
{
    char path[4096];
    char *text = NULL;
    size_t n = 0;
    output_init(out);
    int rc = entry_path(path, sizeof path, dir, key, "json");
    if (!rc)
        rc = fs_read_file(path, &text, &n);
    if (rc)
        return rc == KEVO_ENOMEM ? rc : KEVO_ENOENT;
    cJSON *j = cJSON_ParseWithLength(text, n);
    free(text);
    rc = j ? load_entry(j, dir, key, out) : KEVO_ENOENT;
    cJSON_Delete(j);
    if (rc) {
        jit_output_release(out);
        output_init(out);
        return rc;
    }
    out->cached = 1;
    out->compile_ms = 0;
    return KEVO_OK;
}

/* ---- cubin ELF reading (64-bit little-endian ELF, as ptxas writes) */

struct elf {
    const unsigned char *c;
    size_t n;
    uint64_t shoff;
    uint16_t shentsize, shnum;
    const char *shstr;       /* section name table */
    uint64_t shstr_size;
};

static int elf_open(struct elf *e, const void *cubin, size_t n)
{
    const unsigned char *c = cubin;
    uint16_t shstrndx;
    memset(e, 0, sizeof *e);
    if (n < 64 || memcmp(c, "\177ELF", 4) || c[4] != 2)
        return -1;
    e->c = c;
    e->n = n;
    memcpy(&e->shoff, c + 0x28, 8);
    memcpy(&e->shentsize, c + 0x3a, 2);
    memcpy(&e->shnum, c + 0x3c, 2);
    memcpy(&shstrndx, c + 0x3e, 2);
    if (e->shentsize < 64 || shstrndx >= e->shnum || e->shoff > n ||
        (uint64_t)e->shnum * e->shentsize > n - e->shoff)
        return -1;
    const unsigned char *sh = c + e->shoff + (uint64_t)shstrndx * e->shentsize;
    uint64_t off;
    memcpy(&off, sh + 0x18, 8);
    memcpy(&e->shstr_size, sh + 0x20, 8);
    if (off > n || e->shstr_size > n - off)
        return -1;
    e->shstr = (const char *)c + off;
    return 0;
}

/* Section header i: type, offset, size, link; 0 or -1 if out of range. */
static int elf_section(const struct elf *e, unsigned i, uint32_t *name,
                       uint32_t *type, uint64_t *off, uint64_t *size,
                       uint32_t *link)
{
    if (i >= e->shnum)
        return -1;
    const unsigned char *sh = e->c + e->shoff + (uint64_t)i * e->shentsize;
    memcpy(name, sh, 4);
    memcpy(type, sh + 4, 4);
    memcpy(off, sh + 0x18, 8);
    memcpy(size, sh + 0x20, 8);
    memcpy(link, sh + 0x28, 4);
    return 0;
}

/* NUL-terminated string at off in a table of size bytes, or NULL. */
static const char *elf_str(const char *tab, uint64_t size, uint64_t off)
{
    if (off >= size || !memchr(tab + off, '\0', size - off))
        return NULL;
    return tab + off;
}

/* 1 if section i is module-scope device memory (.nv.global*). */
static int elf_is_global(const struct elf *e, unsigned i, uint64_t *size)
{
    uint32_t nm, type, link;
    uint64_t off;
    if (elf_section(e, i, &nm, &type, &off, size, &link))
        return 0;
    const char *name = elf_str(e->shstr, e->shstr_size, nm);
    return name && !strncmp(name, ".nv.global", 10);
}

/* Calls fn(ud, sym, name) for each symbol of the .symtab; -1 if none or
 * malformed. sym points at the 24-byte Elf64_Sym. */
static int elf_symbols(const struct elf *e,
                       void (*fn)(void *, const unsigned char *, const char *),
                       void *ud)
{
    for (unsigned i = 0; i < e->shnum; i++) {
        uint32_t nm, type, link, snm, stype, slink;
        uint64_t off, size, soff, ssize;
        if (elf_section(e, i, &nm, &type, &off, &size, &link) || type != 2)
            continue; /* SHT_SYMTAB */
        if (off > e->n || size > e->n - off ||
            elf_section(e, link, &snm, &stype, &soff, &ssize, &slink) ||
            soff > e->n || ssize > e->n - soff)
            return -1;
        const char *str = (const char *)e->c + soff;
        for (uint64_t k = 0; k + 24 <= size; k += 24) {
            const unsigned char *sym = e->c + off + k;
            uint32_t name;
            memcpy(&name, sym, 4);
            const char *s = elf_str(str, ssize, name);
            fn(ud, sym, s ? s : "");
        }
        return 0;
    }
    return -1;
}

struct glob_scan {
    const struct elf *e;
    struct jit_global *out;
    int max, n;
    unsigned char named[65536 / 8]; /* sections with a symbol */
    const char *fn;                 /* jit_cubin_calls: the name */
    int found;
};

static void add_global(struct glob_scan *g, const char *name, uint64_t size,
                       uint64_t off, unsigned sec, uint64_t sec_size)
{
    if (g->n < g->max) {
        struct jit_global *o = &g->out[g->n];
        snprintf(o->name, sizeof o->name, "%s", name);
        if (strlen(name) >= sizeof o->name)
            o->name[0] = '\0'; /* cut names are not found: unnamed */
        o->bytes = size;
        o->offset = off;
        o->section = (int)sec;
        o->section_bytes = sec_size;
    }
    g->n++;
}

static void scan_global(void *ud, const unsigned char *sym, const char *name)
{
    struct glob_scan *g = ud;
    uint16_t shndx;
    uint64_t value, size, sec_size;
    memcpy(&shndx, sym + 6, 2);
    memcpy(&value, sym + 8, 8);
    memcpy(&size, sym + 16, 8);
    if ((sym[4] & 0xf) != 1 || !elf_is_global(g->e, shndx, &sec_size))
        return; /* STT_OBJECT in a .nv.global* section only */
    g->named[shndx / 8] |= (unsigned char)(1u << shndx % 8);
    add_global(g, name, size, value, shndx, sec_size);
}

int jit_cubin_globals(const void *cubin, size_t n, struct jit_global *out,
                      int max)
{
    struct elf e;
    struct glob_scan g = {.e = &e, .out = out, .max = max};
    if (elf_open(&e, cubin, n) || elf_symbols(&e, scan_global, &g))
        return -1;
    /* data no symbol names still counts: an unnamed entry per section */
    for (unsigned i = 0; i < e.shnum; i++) {
        uint64_t size;
        if (elf_is_global(&e, i, &size) && size &&
            !(g.named[i / 8] & 1u << i % 8))
            add_global(&g, "", size, 0, i, size);
    }
    return g.n;
}

static void scan_call(void *ud, const unsigned char *sym, const char *name)
{
    struct glob_scan *g = ud;
    uint16_t shndx;
    memcpy(&shndx, sym + 6, 2);
    if (shndx == 0 && (sym[4] & 0xf) == 2 && !strcmp(name, g->fn))
        g->found = 1; /* STT_FUNC, undefined: called, resolved at load */
}

int jit_cubin_calls(const void *cubin, size_t n, const char *fn)
{
    struct elf e;
    struct glob_scan g = {.e = &e, .fn = fn};
    if (elf_open(&e, cubin, n) || elf_symbols(&e, scan_call, &g))
        return 0;
    return g.found;
}
