/*
 * test_jit.c - NVRTC compiles (no GPU needed): ptxas numbers, errors,
 * source screening, the disk cache, and the process pool (parallel
 * compiles, time limit, crashed compiler, several threads, prefetch).
 * Pool tests run first, before
 * this process has called NVRTC, as kevo does; the later ones fork after.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fsutil.h"
#include "jit.h"
#include "kvhdr.h"

#define ARCH "sm_90a"

static const char small_src[] =
    "extern \"C\" __global__ void scale(float *a, float s)\n"
    "{\n"
    "    a[blockIdx.x * blockDim.x + threadIdx.x] *= s;\n"
    "}\n";

/* Fully unrolled, 1000 dependent loads: 13.8 s to compile on the 2-core
 * CPU host, the flow callback alone stops it only after 2.0 s when asked
 * at 0.5 s (measured), so only the pool's kill keeps the limit. */
static const char slow_src[] =
    "#define S(i) acc = acc * a[(i + threadIdx.x) & 1023] + "
    "a[(acc > 0.5f ? i : i * 3) & 1023];\n"
    "extern \"C\" __global__ void slow(float *a)\n"
    "{\n"
    "    float acc = 1.f;\n"
    "#pragma unroll 1000\n"
    "    for (int i = 0; i < 1000; i++) { S(i) }\n"
    "    a[threadIdx.x] = acc;\n"
    "}\n";

static char cache_dir[64];

static double ms_since(long long t0)
{
    return (double)(fs_now_ns() - t0) / 1e6;
}

static int is_elf(const struct jit_output *o)
{
    return o->cubin && o->cubin_len > 4 && !memcmp(o->cubin, "\177ELF", 4);
}

static int contains(const struct jit_output *o, const char *s)
{
    return o->cubin && memmem(o->cubin, o->cubin_len, s, strlen(s));
}

static struct jit_pool *pool_start(int n_procs, int timeout_ms, const char *dir)
{
    struct jit_pool_opts po = {.n_procs = n_procs,
                               .timeout_ms = timeout_ms,
                               .arch = ARCH,
                               .cache_dir = dir};
    struct jit_pool *p = NULL;
    int rc = jit_pool_new(&po, &p);
    CHECK_MSG(rc == KEVO_OK, "%s", kevo_strerror(rc));
    return p;
}

/* Compiles src through p and waits; returns the wait's status. */
static int pool_compile(struct jit_pool *p, const char *src,
                        struct jit_output *o)
{
    int t = jit_pool_submit(p, src, "cand.cu");
    if (t < 0)
        return -t;
    return jit_pool_wait(p, t, o);
}

/* The pids of this process's children (the compilers), at most cap. */
static int children(int *pids, int cap)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (d && n < cap && (e = readdir(d))) {
        char path[300], buf[512];
        int pid = atoi(e->d_name), ppid = 0;
        if (pid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%d/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        char *close_paren = strrchr(buf, ')');
        if (close_paren && sscanf(close_paren + 2, "%*c %d", &ppid) == 1 &&
            ppid == getpid())
            pids[n++] = pid;
    }
    if (d)
        closedir(d);
    return n;
}

/* Sends sig to every child of this process (the compilers). */
static int signal_children(int sig)
{
    int pids[256], n = children(pids, 256), k = 0;
    for (int i = 0; i < n; i++)
        k += kill(pids[i], sig) == 0;
    return k;
}

static void test_pool_cache(void)
{
    struct jit_output a, b, e1, e2;
    struct jit_pool *p = pool_start(1, 20000, cache_dir);
    if (!p)
        return;
    CHECK(pool_compile(p, small_src, &a) == KEVO_OK);
    CHECK(pool_compile(p, small_src, &b) == KEVO_OK);
    CHECK(a.ok && !a.cached && a.compile_ms > 0 && is_elf(&a));
    CHECK(b.ok && b.cached && b.compile_ms == 0);
    CHECK(a.cubin_len == b.cubin_len && b.cubin &&
          !memcmp(a.cubin, b.cubin, a.cubin_len));
    CHECK(b.regs == a.regs && b.regs > 0 && !strcmp(a.log, b.log));
    /* a compile error is cached too: a bad candidate compiles once */
    CHECK(pool_compile(p, "extern \"C\" __global__ void e() { x; }\n", &e1) ==
          KEVO_OK);
    CHECK(pool_compile(p, "extern \"C\" __global__ void e() { x; }\n", &e2) ==
          KEVO_OK);
    CHECK(!e1.ok && !e1.cached && !e2.ok && e2.cached);
    CHECK(strstr(e2.log, "identifier \"x\" is undefined") != NULL);
    jit_output_release(&a);
    jit_output_release(&b);
    jit_output_release(&e1);
    jit_output_release(&e2);
    jit_pool_free(p);
}

static void test_pool_parallel(void)
{
    enum { N = 8 };
    char src[N][256], name[32];
    int t[N];
    struct jit_pool *p = pool_start(2, 20000, NULL);
    if (!p)
        return;
    for (int i = 0; i < N; i++)
        snprintf(src[i], sizeof src[i],
                 "extern \"C\" __global__ void kevo_k%d(int *a)\n"
                 "{ a[threadIdx.x] += %d; }\n",
                 i, i * 7);
    long long t0 = fs_now_ns();
    for (int i = 0; i < N; i++)
        CHECK((t[i] = jit_pool_submit(p, src[i], "k.cu")) >= 0);
    for (int i = N - 1; i >= 0; i--) { /* out of order on purpose */
        struct jit_output o;
        CHECK(jit_pool_wait(p, t[i], &o) == KEVO_OK);
        snprintf(name, sizeof name, "kevo_k%d", i);
        CHECK_MSG(o.ok && is_elf(&o) && contains(&o, name), "%s", name);
        snprintf(name, sizeof name, "kevo_k%d", (i + 1) % N);
        CHECK(!contains(&o, name));
        jit_output_release(&o);
    }
    double ms = ms_since(t0);
    printf("     pool of 2: %d compiles in %.0f ms (%.1f/s)\n", N, ms,
           N * 1000.0 / ms);
    struct jit_output o;
    CHECK(jit_pool_wait(p, t[0], &o) == KEVO_EINVAL); /* collected */
    jit_pool_free(p);
}

/* The compilers yield to every normal process: the GPU worker and the
 * coordinator preempt them the moment they wake (jitpool.c CHILD_NICE). */
static void test_pool_priority(void)
{
    struct jit_pool *p = pool_start(2, 20000, NULL);
    if (!p)
        return;
    struct jit_output o;
    CHECK(pool_compile(p, "extern \"C\" __global__ void k(int *a) { *a = 1; }",
                       &o) == KEVO_OK && o.ok);
    jit_output_release(&o);
    /* where this machine refuses SCHED_IDLE, nice 19 is the fallback */
    pid_t probe = fork();
    if (probe == 0) {
        struct sched_param sp = {0};
        _exit(sched_setscheduler(0, SCHED_IDLE, &sp) ? 1 : 0);
    }
    int st = 1;
    waitpid(probe, &st, 0);
    int can_idle = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    int pids[16], n = children(pids, 16);
    CHECK_MSG(n == 2, "%d compiler processes, want 2", n);
    for (int i = 0; i < n; i++) {
        int pol = sched_getscheduler(pids[i]);
        errno = 0;
        int ni = getpriority(PRIO_PROCESS, (id_t)pids[i]);
        CHECK_MSG(can_idle ? pol == SCHED_IDLE : ni == 19,
                  "compiler %d: policy %d, nice %d", pids[i], pol, ni);
    }
    jit_pool_free(p);
}

/* jit_pool_done / jit_pool_poll: a caller that waits on something else
 * (the GPU worker) sees results arrive by polling, without waiting on a
 * ticket. */
static void test_pool_poll(void)
{
    struct jit_pool *p = pool_start(2, 20000, NULL);
    if (!p)
        return;
    int t = jit_pool_submit(p, "extern \"C\" __global__ void kevo_p(int *a)"
                               " { a[0] = 5; }\n", "p.cu");
    CHECK(t >= 0);
    CHECK(jit_pool_done(p, t) == 0);   /* just queued */
    CHECK(jit_pool_done(p, t + 1000) == -1);
    long long t0 = fs_now_ns();
    int polls = 0;
    while (jit_pool_done(p, t) == 0 && ms_since(t0) < 20000) {
        CHECK(jit_pool_poll(p, 0) == KEVO_OK); /* never blocks */
        polls++;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    CHECK_MSG(jit_pool_done(p, t) == 1, "done after %d polls", polls);
    CHECK(polls > 0);
    struct jit_output o;
    CHECK(jit_pool_wait(p, t, &o) == KEVO_OK && o.ok);
    jit_output_release(&o);
    CHECK(jit_pool_done(p, t) == -1); /* collected */
    /* blocking poll returns once a child answers */
    t = jit_pool_submit(p, "extern \"C\" __global__ void kevo_q(int *a)"
                           " { a[1] = 6; }\n", "q.cu");
    while (jit_pool_done(p, t) == 0)
        CHECK(jit_pool_poll(p, 1) == KEVO_OK);
    CHECK(jit_pool_wait(p, t, &o) == KEVO_OK && o.ok);
    jit_output_release(&o);
    jit_pool_free(p);
}

static void test_pool_timeout(void)
{
    struct jit_output o;
    struct jit_pool *p = pool_start(1, 500, NULL);
    if (!p)
        return;
    long long t0 = fs_now_ns();
    CHECK(pool_compile(p, slow_src, &o) == KEVO_OK);
    double ms = ms_since(t0);
    CHECK_MSG(!o.ok && o.timed_out && ms < 3000, "%.0f ms", ms);
    CHECK(o.log && strstr(o.log, "compile timed out after 500 ms"));
    jit_output_release(&o);
    CHECK(pool_compile(p, small_src, &o) == KEVO_OK);
    CHECK(o.ok && is_elf(&o) && !o.timed_out);
    jit_output_release(&o);
    jit_pool_free(p);
}

static void test_pool_crash(void)
{
    struct jit_output o;
    struct jit_pool *p = pool_start(1, 20000, NULL);
    if (!p)
        return;
    CHECK(pool_compile(p, small_src, &o) == KEVO_OK); /* child is idle */
    jit_output_release(&o);
    int t = jit_pool_submit(p, slow_src, "slow.cu");
    usleep(100 * 1000);
    CHECK(signal_children(SIGABRT) == 1);
    CHECK(jit_pool_wait(p, t, &o) == KEVO_OK);
    CHECK(!o.ok && !o.timed_out && o.log &&
          !strncmp(o.log, "compiler process died: signal 6", 31));
    jit_output_release(&o);
    CHECK(pool_compile(p, small_src, &o) == KEVO_OK);
    CHECK(o.ok && is_elf(&o));
    jit_output_release(&o);
    jit_pool_free(p);
}

static void test_pool_big(void)
{
    enum { N = 100000 };
    size_t cap = (size_t)N * 8 + 256, n = 0;
    char *src = malloc(cap);
    struct jit_output o;
    struct jit_pool *p = pool_start(1, 20000, NULL);
    if (!p || !src)
        goto out;
    n += (size_t)snprintf(src + n, cap - n, "__device__ int table[%d] = {", N);
    for (int i = 0; i < N; i++)
        n += (size_t)snprintf(src + n, cap - n, "%d,", (i * 7919) % 100003);
    snprintf(src + n, cap - n,
             "};\nextern \"C\" __global__ void big(int *o,"
             " int i) { o[0] = table[i]; }\n");
    CHECK(pool_compile(p, src, &o) == KEVO_OK);
    CHECK_MSG(o.ok && is_elf(&o) && o.cubin_len > (size_t)N * 4, "%zu",
              o.cubin_len);
    jit_output_release(&o);
out:
    free(src);
    jit_pool_free(p);
}

static void test_pool_broken(void)
{
    struct jit_output o;
    struct jit_pool_opts po = {
        .n_procs = 2, .timeout_ms = 5000, .arch = "sm_99"}; /* no such GPU */
    struct jit_pool *p = NULL;
    CHECK(jit_pool_new(&po, &p) == KEVO_OK); /* the name looks right */
    if (!p)
        return;
    CHECK(pool_compile(p, small_src, &o) == KEVO_ECOMPILE);
    CHECK_MSG(strstr(jit_pool_errmsg(p), "trivial kernel for 'sm_99'"), "%s",
              jit_pool_errmsg(p));
    jit_pool_free(p);
    po.arch = "compute_90a"; /* virtual: no cubin */
    CHECK(jit_pool_new(&po, &p) == KEVO_EINVAL && !p);
}

static void test_compile_small(void)
{
    struct jit_output o;
    long long t0 = fs_now_ns();
    CHECK(jit_compile(small_src, "small.cu", ARCH, &o) == KEVO_OK);
    double first = ms_since(t0);
    CHECK(o.ok && is_elf(&o) && contains(&o, "scale"));
    CHECK(o.regs > 0 && o.spill_stores == 0 && o.spill_loads == 0);
    CHECK(o.smem_static == 0 && o.local_bytes == 0 && !o.cached);
    CHECK(o.log && strstr(o.log, "Used ") && o.compile_ms > 0);
    jit_output_release(&o);
    t0 = fs_now_ns();
    CHECK(jit_compile(small_src, "small.cu", ARCH, &o) == KEVO_OK);
    printf("     in-process: first compile %.0f ms, warm %.0f ms\n", first,
           ms_since(t0));
    jit_output_release(&o);
}

static void test_compile_error(void)
{
    struct jit_output o;
    const char *src = "extern \"C\" __global__ void bad(float *a)\n"
                      "{\n"
                      "    a[0] = undefined_thing;\n"
                      "}\n";
    CHECK(jit_compile(src, "bad.cu", ARCH, &o) == KEVO_OK);
    CHECK(!o.ok && !o.cubin && o.cubin_len == 0 && o.regs == -1);
    CHECK(o.log && strstr(o.log, "bad.cu(3): error") &&
          strstr(o.log, "undefined_thing"));
    jit_output_release(&o);
}

static void test_compile_local(void)
{
    struct jit_output o;
    const char *src =
        "extern \"C\" __global__ void loc(float *a, int n)\n"
        "{\n"
        "    float l[256]; /* indexed at run time: lives in local memory */\n"
        "    for (int i = 0; i < 256; i++) l[i] = a[i * n + threadIdx.x];\n"
        "    __shared__ float s[64];\n"
        "    s[threadIdx.x & 63] = l[a[0] > 0 ? threadIdx.x & 255 : n & 255];\n"
        "    __syncthreads();\n"
        "    a[threadIdx.x] = s[(threadIdx.x + 1) & 63];\n"
        "    int unused; // 999 registers, 9999 bytes smem\n"
        "}\n";
    CHECK(jit_compile(src, "loc.cu", ARCH, &o) == KEVO_OK);
    CHECK(o.ok && o.local_bytes >= 1024 && o.smem_static == 256);
    CHECK_MSG(o.regs > 0 && o.regs < 999, "regs %d", o.regs);
    CHECK(strstr(o.log, "999 registers") != NULL); /* the echoed line */
    jit_output_release(&o);
}

static void test_compile_sm90a(void)
{
    struct jit_output o;
    const char *src = "extern \"C\" __global__ void wg(float *a)\n"
                      "{\n"
                      "    asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: "
                      "\"memory\");\n"
                      "    a[0] = 1.f;\n"
                      "}\n";
    CHECK(jit_compile(src, "wg.cu", ARCH, &o) == KEVO_OK);
    CHECK(o.ok && is_elf(&o));
    jit_output_release(&o);
    /* the oracle: plain sm_90 must refuse it, or the test proves nothing */
    CHECK(jit_compile(src, "wg.cu", "sm_90", &o) == KEVO_OK);
    CHECK(!o.ok && strstr(o.log, "not supported on .target 'sm_90'"));
    jit_output_release(&o);
}

static void test_reject_launch(void)
{
    struct jit_output o;
    char why[128];
    const char *dp = "extern \"C\" __global__ void c(float *a) { *a = 1; }\n"
                     "extern \"C\" __global__ void p(float *a)\n"
                     "{ c<<<1, 1>>>(a); }\n";
    CHECK(jit_compile(dp, "dp.cu", ARCH, &o) == KEVO_OK);
    /* NVRTC would have said "dp.cu(3): error: device-side kernel launch
     * could not be processed": the log shows it never ran */
    CHECK(!o.ok && !strncmp(o.log, "kevo: rejected: ", 16) &&
          strstr(o.log, "'<<<'") && !strstr(o.log, "dp.cu"));
    jit_output_release(&o);
    CHECK(jit_check_source("void *b = cudaGetParameterBufferV2(0);", why,
                           sizeof why) == 1);
    CHECK(strstr(why, "cudaGetParameterBuffer") != NULL);
    CHECK(jit_check_source("int c = 0; void f(void *p) { c++; "
                           "cudaLaunchDevice(p, 0); }", why,
                           sizeof why) == 1 &&
          strstr(why, "cudaLaunchDevice") != NULL);
    CHECK(jit_check_source("int x = 1'000; /* k<<<1,1>>> */ // <<<\n"
                           "const char *s = \"<<<\"; char c = '<';",
                           why, sizeof why) == 0);
    /* a name glued by the preprocessor gets past the screen, not through */
    CHECK(jit_compile("#define C(a, b) a##b\n"
                      "extern \"C\" __device__ int C(cudaLaunch, Device)"
                      "(void *, void *);\n"
                      "extern \"C\" __global__ void g(void *p)\n"
                      "{ C(cudaLaunch, Device)(p, 0); }\n",
                      "glue.cu", ARCH, &o) == KEVO_OK);
    CHECK(!o.ok && !o.cubin); /* ptxas: unresolved extern function */
    jit_output_release(&o);
    /* defined here, so it links: only the PTX scan stops it */
    CHECK(jit_compile("#define C(a, b) a##b\n"
                      "extern \"C\" __device__ __noinline__ int "
                      "C(cudaLaunch, Device)(void *p, void *q)\n"
                      "{ *(volatile int *)p = 1; return 0; }\n"
                      "extern \"C\" __global__ void g(void *p)\n"
                      "{ C(cudaLaunch, Device)(p, 0); }\n",
                      "glue2.cu", ARCH, &o) == KEVO_OK);
    CHECK(!o.ok && !o.cubin &&
          strstr(o.log, "launches kernels from the device "
                        "('cudaLaunchDevice' in the PTX)"));
    jit_output_release(&o);
}

/* Finds entry name in g[0..n); NULL if absent. */
static const struct jit_global *find_global(const struct jit_global *g, int n,
                                            const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(g[i].name, name))
            return &g[i];
    return NULL;
}

static void test_cubin_globals(void)
{
    /* Kernel Tuner style: file-scope constexpr values and a table, read
     * with a run-time index so the table is materialized in memory */
    const char *src =
        "static constexpr int kBM = 64;\n"
        "static constexpr float kTab[5] = {1.f, 2.f, 3.f, 4.f, 5.f};\n"
        "__device__ int counter;\n"
        "extern \"C\" __global__ void k(float *a, int i)\n"
        "{\n"
        "    a[threadIdx.x] = kTab[i % 5] * kBM;\n"
        "    if (i < 0) counter++;\n"
        "}\n";
    struct jit_output o;
    struct jit_global g[8];
    CHECK(jit_compile(src, "tab.cu", ARCH, &o) == KEVO_OK && o.ok);
    int n = jit_cubin_globals(o.cubin, o.cubin_len, g, 8);
    CHECK_MSG(n >= 2 && n <= 8, "%d globals", n);
    CHECK(jit_cubin_globals(o.cubin, o.cubin_len, NULL, 0) == n);
    const struct jit_global *t = find_global(g, n < 8 ? n : 8, "kTab"),
                            *c = find_global(g, n < 8 ? n : 8, "counter");
    CHECK(t && t->bytes == 20 && t->section_bytes >= 20 &&
          t->offset + t->bytes <= t->section_bytes);
    CHECK(c && c->bytes == 4 && c->section != (t ? t->section : -1));
    CHECK(!jit_cubin_calls(o.cubin, o.cubin_len, "vprintf"));
    jit_output_release(&o);
    /* no module data at all: nothing to watch */
    CHECK(jit_compile(small_src, "small.cu", ARCH, &o) == KEVO_OK && o.ok);
    CHECK(jit_cubin_globals(o.cubin, o.cubin_len, g, 8) == 0);
    CHECK(!jit_cubin_calls(o.cubin, o.cubin_len, "vprintf"));
    jit_output_release(&o);
    /* printf: its format string is module data, the call an import */
    CHECK(jit_compile("extern \"C\" __global__ void p(int i)\n"
                      "{ printf(\"%d\\n\", i); }\n", "pf.cu", ARCH, &o) ==
              KEVO_OK && o.ok);
    CHECK(jit_cubin_calls(o.cubin, o.cubin_len, "vprintf"));
    CHECK(jit_cubin_globals(o.cubin, o.cubin_len, g, 8) >= 1);
    /* a cut or corrupted cubin is read within its bounds (ASan checks the
     * copies, each exactly as long as the cut) */
    for (size_t cut = 0; cut < o.cubin_len; cut += 1 + cut / 7) {
        char *bin = malloc(cut ? cut : 1);
        memcpy(bin, o.cubin, cut);
        (void)jit_cubin_globals(bin, cut, g, 8);
        (void)jit_cubin_calls(bin, cut, "vprintf");
        if (cut > 0x40) {
            bin[cut / 2] ^= 0x5a; /* somewhere in the headers or tables */
            (void)jit_cubin_globals(bin, cut, g, 8);
        }
        free(bin);
    }
    char *bin = malloc(o.cubin_len);
    memcpy(bin, o.cubin, o.cubin_len);
    for (size_t i = 0; i < o.cubin_len; i++) { /* every byte, in turn */
        bin[i] ^= (char)0xa5;
        (void)jit_cubin_globals(bin, o.cubin_len, g, 8);
        (void)jit_cubin_calls(bin, o.cubin_len, "vprintf");
        bin[i] ^= (char)0xa5;
    }
    free(bin);
    jit_output_release(&o);
    CHECK(jit_cubin_globals("not an elf", 10, g, 8) == -1);
}

static void test_long_log(void)
{
    size_t cap = 40 * 3000 + 256, n = 0;
    char *src = malloc(cap);
    struct jit_output o;
    if (!src)
        return;
    n += (size_t)snprintf(src, cap,
                          "extern \"C\" __global__ void w(int *o)"
                          " {\n");
    for (int i = 0; i < 3000; i++)
        n += (size_t)snprintf(src + n, cap - n, "  int unused_%d;\n", i);
    snprintf(src + n, cap - n, "  o[0] = 1;\n}\n");
    CHECK(jit_compile(src, "warn.cu", ARCH, &o) == KEVO_OK);
    CHECK(o.ok && strlen(o.log) < JIT_LOG_CAP);
    CHECK(strstr(o.log, "[log cut at 64 KiB]") != NULL);
    CHECK(o.regs > 0); /* parsed before the cut */
    jit_output_release(&o);
    free(src);
}

static void test_cache_key_and_dir(void)
{
    char dir[256];
    const char *opts[16];
    uint64_t k = jit_cache_key(small_src, ARCH);
    CHECK(k == jit_cache_key(small_src, ARCH));
    CHECK(k != jit_cache_key(small_src, "sm_90"));
    CHECK(k != jit_cache_key("// other\n", ARCH));
    /* the first line of an instantiated source (the point's name) is not
     * part of the key; every other line is */
    CHECK(jit_cache_key("// kevo: t A=1 B=2\nint x;\n", ARCH) ==
          jit_cache_key("// kevo: t A=1 B=3\nint x;\n", ARCH));
    CHECK(jit_cache_key("// kevo: t A=1 B=2\nint x;\n", ARCH) !=
          jit_cache_key("// kevo: t A=1 B=2\nint y;\n", ARCH));
    CHECK(jit_cache_key("// other A\nint x;\n", ARCH) !=
          jit_cache_key("// other B\nint x;\n", ARCH));
    /* every byte of a long source counts (the key hashes four 8-byte
     * lanes at once, then the tail): one changed byte anywhere in 100,
     * each of the four lanes and the tail, changes the key */
    char text[101], *names[] = {"kevo/x.cuh"}, *texts[] = {"int h;"};
    memset(text, 'a', 100);
    text[100] = '\0';
    uint64_t base = jit_cache_key(text, ARCH);
    int all = 1;
    for (int i = 0; i < 100; i++) {
        text[i] = 'b';
        all &= jit_cache_key(text, ARCH) != base;
        text[i] = 'a';
    }
    CHECK(all);
    /* kevo's headers (hashed once a process) are those of the key */
    CHECK(base == jit_cache_key_with(text, ARCH, kvhdr_count(),
                                     kvhdr_names(), kvhdr_texts()));
    CHECK(base != jit_cache_key_with(text, ARCH, 1,
                                     (const char *const *)names,
                                     (const char *const *)texts));
    texts[0] = "int g;";
    CHECK(jit_cache_key_with(text, ARCH, 1, (const char *const *)names,
                             (const char *const *)texts) !=
          jit_cache_key_with(text, ARCH, 0, NULL, NULL));
    CHECK(jit_default_options("compute_90a", opts, 16) < 0);
    int n = jit_default_options("sm_90a", opts, 16);
    CHECK(n > 0);
    CHECK(!strcmp(jit_nvrtc_version(), "13.0"));
    /* NVRTC 13's own cache is turned off: kevo's is the only one */
    int no_cache = 0;
    for (int i = 0; i < n; i++)
        no_cache |= !strcmp(opts[i], "-no-cache");
    CHECK(no_cache);
    setenv("KEVO_CACHE_DIR", "/x/y", 1);
    jit_cache_dir(dir, sizeof dir);
    CHECK(!strcmp(dir, "/x/y"));
    unsetenv("KEVO_CACHE_DIR");
}

/* Removes dir and the files in it (the cache has no subdirectories). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* ---- one pool, several threads (GPU evaluators under a fan-out) */

struct pool_user {
    struct jit_pool *p;
    int id;   /* thread number: its kernels' names */
    int ok;   /* compiles that gave their own kernel */
};

static void *pool_user_main(void *arg)
{
    struct pool_user *u = arg;
    for (int i = 0; i < 3; i++) {
        char src[200], name[32];
        snprintf(name, sizeof name, "kevo_t%d_%d", u->id, i);
        snprintf(src, sizeof src, "extern \"C\" __global__ void %s(int *a)"
                 " { a[threadIdx.x] = %d; }\n", name, u->id * 10 + i);
        struct jit_output o;
        int t = jit_pool_submit(u->p, src, "t.cu");
        if (t >= 0 && jit_pool_wait(u->p, t, &o) == KEVO_OK) {
            u->ok += o.ok && contains(&o, name);
            jit_output_release(&o);
        }
    }
    return NULL;
}

static void test_pool_threads(void)
{
    struct jit_pool *p = pool_start(2, 20000, NULL);
    if (!p)
        return;
    pthread_t th[4];
    struct pool_user u[4];
    for (int i = 0; i < 4; i++) {
        u[i] = (struct pool_user){p, i, 0};
        CHECK(pthread_create(&th[i], NULL, pool_user_main, &u[i]) == 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK_MSG(u[i].ok == 3, "thread %d: %d of 3", i, u[i].ok);
    }
    jit_pool_free(p);
}

/* A prefetch compiles for the cache; the submit of the same source while
 * it compiles takes over its ticket (no second ticket, no second compile),
 * and one after it finished is a cache hit. */
static void test_pool_prefetch(void)
{
    char dir[80];
    snprintf(dir, sizeof dir, "%s/prefetch", cache_dir);
    struct jit_pool *p = pool_start(1, 20000, dir);
    if (!p)
        return;
    const char *a = "extern \"C\" __global__ void kevo_pa(int *a)"
                    " { a[threadIdx.x] = 7; }\n";
    const char *b = "extern \"C\" __global__ void kevo_pb(int *a)"
                    " { a[threadIdx.x] = 8; }\n";
    /* a rejected source is answered at once: it shows the next ticket id */
    int t0 = jit_pool_submit(p, "__global__ void k() { k<<<1, 1>>>(); }",
                             "r.cu");
    CHECK(t0 >= 0);
    CHECK(jit_pool_prefetch(p, a, "a.cu") == KEVO_OK);   /* ticket t0 + 1 */
    CHECK(jit_pool_prefetch(p, a, "a.cu") == KEVO_OK);   /* no second one */
    int ta = jit_pool_submit(p, a, "a.cu");
    CHECK_MSG(ta == t0 + 1, "submit got ticket %d, the prefetch was %d", ta,
              t0 + 1);
    CHECK(jit_pool_done(p, ta) == 0);
    struct jit_output o;
    CHECK(jit_pool_wait(p, ta, &o) == KEVO_OK && o.ok && !o.cached &&
          contains(&o, "kevo_pa"));
    jit_output_release(&o);
    /* a prefetch nobody takes over ends in the cache (its child stores it
     * there before it answers); jit_pool_ready says when */
    CHECK(jit_pool_ready(p, b) == -1); /* not prefetched yet */
    CHECK(jit_pool_prefetch(p, b, "b.cu") == KEVO_OK);
    CHECK(jit_pool_ready(p, b) == 0);
    long long t_start = fs_now_ns();
    while (jit_pool_ready(p, b) == 0 && ms_since(t_start) < 20000)
        CHECK(jit_pool_poll(p, 1) == KEVO_OK);
    CHECK(jit_pool_ready(p, b) == 1);
    int tb = jit_pool_submit(p, b, "b.cu");
    CHECK(tb >= 0 && jit_pool_wait(p, tb, &o) == KEVO_OK && o.ok &&
          contains(&o, "kevo_pb"));
    /* from the cache, but compiled for this run: its compile time kept */
    CHECK_MSG(!o.cached && o.compile_ms > 0, "cached %d, %.1f ms", o.cached,
              o.compile_ms);
    jit_output_release(&o);
    CHECK(jit_pool_ready(p, b) == -1); /* the marker went with the submit */
    jit_pool_free(p);
}

/* A released ticket (a deferred candidate, engine_defer.c) goes on as a
 * prefetch: a later submit of the same source takes its compile over, or
 * finds it in the cache with its compile time; one that timed out keeps
 * its result for that submit (a timeout is not cached), so the submit
 * does not compile it again. Without a cache there is nothing to keep. */
static void test_pool_release(void)
{
    char dir[80];
    snprintf(dir, sizeof dir, "%s/release", cache_dir);
    struct jit_pool *p = pool_start(1, 1500, dir);
    if (!p)
        return;
    const char *a = "extern \"C\" __global__ void kevo_ra(int *a)"
                    " { a[threadIdx.x] = 9; }\n";
    int ta = jit_pool_submit(p, a, "a.cu");
    CHECK(ta >= 0 && jit_pool_release(p, ta) == 0);
    CHECK(jit_pool_release(p, ta) == -1); /* nobody's ticket any more */
    long long t0 = fs_now_ns();
    while (jit_pool_ready(p, a) == 0 && ms_since(t0) < 20000)
        CHECK(jit_pool_poll(p, 1) == KEVO_OK);
    CHECK(jit_pool_ready(p, a) == 1);
    struct jit_output o;
    int tb = jit_pool_submit(p, a, "a.cu");
    CHECK(tb >= 0 && jit_pool_wait(p, tb, &o) == KEVO_OK && o.ok &&
          contains(&o, "kevo_ra") && !o.cached && o.compile_ms > 0);
    jit_output_release(&o);
    /* timed out while released: the submit gets the timeout at once */
    int ts = jit_pool_submit(p, slow_src, "s.cu");
    CHECK(ts >= 0 && jit_pool_release(p, ts) == 0);
    t0 = fs_now_ns();
    while (jit_pool_ready(p, slow_src) == 0 && ms_since(t0) < 20000)
        CHECK(jit_pool_poll(p, 1) == KEVO_OK);
    t0 = fs_now_ns();
    int tt = jit_pool_submit(p, slow_src, "s.cu");
    CHECK(tt >= 0 && jit_pool_wait(p, tt, &o) == KEVO_OK);
    double ms = ms_since(t0);
    CHECK_MSG(!o.ok && o.timed_out && ms < 500, "timed out %d after %.0f ms",
              o.timed_out, ms);
    jit_output_release(&o);
    jit_pool_free(p);
    p = pool_start(1, 20000, NULL);
    if (!p)
        return;
    int tn = jit_pool_submit(p, a, "a.cu");
    CHECK(tn >= 0 && jit_pool_release(p, tn) == -1); /* no cache: kept */
    CHECK(jit_pool_wait(p, tn, &o) == KEVO_OK && o.ok);
    jit_output_release(&o);
    jit_pool_free(p);
}

/* A prefetch for later (the engine's next generation, issue 32) waits
 * behind every ticket queued after it: with one compiler busy on a, the
 * submit c queued after the later prefetch b compiles first (b then is
 * still compiling when c is done), and its submit takes it over: one
 * compile, for this run. */
static void test_pool_prefetch_later(void)
{
    char dir[80];
    snprintf(dir, sizeof dir, "%s/later", cache_dir);
    struct jit_pool *p = pool_start(1, 20000, dir);
    if (!p)
        return;
    char src[3][200];
    for (int i = 0; i < 3; i++)
        snprintf(src[i], sizeof src[i], "extern \"C\" __global__ void "
                 "kevo_l%d(int *a) { a[threadIdx.x] = %d; }\n", i, i);
    int ta = jit_pool_submit(p, src[0], "a.cu");
    CHECK(ta >= 0);
    CHECK(jit_pool_prefetch_later(p, src[1], "b.cu") == KEVO_OK);
    int tc = jit_pool_submit(p, src[2], "c.cu");
    CHECK(tc >= 0);
    struct jit_output o;
    CHECK(jit_pool_wait(p, tc, &o) == KEVO_OK && o.ok &&
          contains(&o, "kevo_l2"));
    jit_output_release(&o);
    CHECK_MSG(jit_pool_ready(p, src[1]) == 0, "the later prefetch is %s",
              jit_pool_ready(p, src[1]) == 1 ? "done before the submit "
                                               "queued after it"
                                             : "gone");
    CHECK(jit_pool_wait(p, ta, &o) == KEVO_OK && o.ok);
    jit_output_release(&o);
    int tb = jit_pool_submit(p, src[1], "b.cu");
    CHECK(tb >= 0 && jit_pool_wait(p, tb, &o) == KEVO_OK && o.ok &&
          !o.cached && contains(&o, "kevo_l1"));
    jit_output_release(&o);
    jit_pool_free(p);
}

/* Prefetches for later take at most half the compilers (at least one):
 * with 2 compilers and two later prefetches queued, only the first starts,
 * so a submit that comes next compiles at once on the other compiler and
 * is done while the second prefetch has not even started. */
static void test_pool_later_cap(void)
{
    char dir[80];
    snprintf(dir, sizeof dir, "%s/latercap", cache_dir);
    struct jit_pool *p = pool_start(2, 20000, dir);
    if (!p)
        return;
    char src[5][200];
    for (int i = 0; i < 5; i++)
        snprintf(src[i], sizeof src[i], "extern \"C\" __global__ void "
                 "kevo_c%d(int *a) { a[threadIdx.x] = %d; }\n", i, i);
    struct jit_output o;
    int w1 = jit_pool_submit(p, src[3], "w1.cu"),
        w2 = jit_pool_submit(p, src[4], "w2.cu"); /* both compilers up */
    CHECK(w1 >= 0 && w2 >= 0 && jit_pool_wait(p, w1, &o) == KEVO_OK);
    jit_output_release(&o);
    CHECK(jit_pool_wait(p, w2, &o) == KEVO_OK);
    jit_output_release(&o);
    CHECK(jit_pool_prefetch_later(p, src[0], "b1.cu") == KEVO_OK);
    CHECK(jit_pool_prefetch_later(p, src[1], "b2.cu") == KEVO_OK);
    CHECK(jit_pool_poll(p, 0) == KEVO_OK); /* hands out what may start */
    int tc = jit_pool_submit(p, src[2], "c.cu");
    CHECK(tc >= 0);
    CHECK(jit_pool_wait(p, tc, &o) == KEVO_OK && o.ok &&
          contains(&o, "kevo_c2"));
    jit_output_release(&o);
    CHECK_MSG(jit_pool_ready(p, src[1]) == 0, "the second later prefetch "
              "is %s", jit_pool_ready(p, src[1]) == 1 ? "done before the "
              "submit: it took the compiler the submit needed" : "gone");
    for (int i = 0; i < 2; i++) {
        int t = jit_pool_submit(p, src[i], "b.cu");
        CHECK(t >= 0 && jit_pool_wait(p, t, &o) == KEVO_OK && o.ok);
        jit_output_release(&o);
    }
    jit_pool_free(p);
}

/* Two submits of one source at once, with compilers free for both: one
 * compiles, the other waits for it and is answered from the cache (points
 * that differ only in launch-only params have one source). */
static void test_pool_twins(void)
{
    char dir[80];
    snprintf(dir, sizeof dir, "%s/twins", cache_dir);
    struct jit_pool *p = pool_start(2, 20000, dir);
    if (!p)
        return;
    const char *a = "extern \"C\" __global__ void kevo_tw(int *a)"
                    " { a[threadIdx.x] = 9; }\n";
    int t1 = jit_pool_submit(p, a, "a.cu"), t2 = jit_pool_submit(p, a, "a.cu");
    struct jit_output o1, o2;
    memset(&o1, 0, sizeof o1);
    memset(&o2, 0, sizeof o2);
    CHECK(t1 >= 0 && t2 >= 0 && t1 != t2);
    CHECK(jit_pool_wait(p, t2, &o2) == KEVO_OK);
    CHECK(jit_pool_wait(p, t1, &o1) == KEVO_OK);
    CHECK(o1.ok && o2.ok && contains(&o1, "kevo_tw") && contains(&o2, "kevo_tw"));
    CHECK_MSG(!o1.cached && o1.compile_ms > 0 && o2.cached && o2.compile_ms == 0,
              "first: cached %d %.1f ms, twin: cached %d %.1f ms", o1.cached,
              o1.compile_ms, o2.cached, o2.compile_ms);
    jit_output_release(&o1);
    jit_output_release(&o2);
    jit_pool_free(p);
}

static struct jit_pool *pool_memo(const char *dir, long long memo_bytes)
{
    struct jit_pool_opts po = {.n_procs = 1, .timeout_ms = 20000,
                               .arch = ARCH, .cache_dir = dir,
                               .memo_bytes = memo_bytes};
    struct jit_pool *p = NULL;
    int rc = jit_pool_new(&po, &p);
    CHECK_MSG(rc == KEVO_OK, "%s", kevo_strerror(rc));
    return p;
}

static int same_output(const struct jit_output *a, const struct jit_output *b)
{
    return a->ok == b->ok && a->cubin_len == b->cubin_len && a->cubin &&
           b->cubin && !memcmp(a->cubin, b->cubin, a->cubin_len) &&
           a->regs == b->regs && a->spill_stores == b->spill_stores &&
           a->smem_static == b->smem_static && a->log && b->log &&
           !strcmp(a->log, b->log);
}

/* The disk cache's answers kept in memory (jit_pool_opts.memo_bytes): a
 * repeat hit reads no file and gives what the disk gave; an answer not
 * yet waited for keeps its entry against newer ones. */
static void test_pool_memo(void)
{
    char dir[80];
    snprintf(dir, sizeof dir, "%s/memo", cache_dir);
    const char *a = "extern \"C\" __global__ void kevo_ma(int *a)"
                    " { a[threadIdx.x] = 5; }\n",
               *b = "extern \"C\" __global__ void kevo_mb(int *a)"
                    " { a[threadIdx.x] = a[threadIdx.x + 1] * 7; }\n";
    struct jit_output oa, ob, x, y;
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    struct jit_pool *p = pool_memo(dir, 0);
    if (!p)
        return;
    CHECK(pool_compile(p, a, &oa) == KEVO_OK && oa.ok && !oa.cached);
    CHECK(pool_compile(p, b, &ob) == KEVO_OK && ob.ok && !ob.cached);
    /* from the disk once, then from memory: with the files gone too */
    CHECK(pool_compile(p, a, &x) == KEVO_OK && x.cached && same_output(&x, &oa));
    jit_output_release(&x);
    remove_dir(dir);
    CHECK(pool_compile(p, a, &x) == KEVO_OK);
    CHECK_MSG(x.cached && x.compile_ms == 0 && same_output(&x, &oa),
              "after the files went: cached %d, %.1f ms", x.cached,
              x.compile_ms);
    jit_output_release(&x);
    jit_pool_free(p);

    /* room for one of the two: a's answer, not waited for yet, keeps its
     * entry while b is answered from the disk */
    size_t ba = oa.cubin_len + strlen(oa.log), bb = ob.cubin_len + strlen(ob.log);
    p = pool_memo(dir, (long long)(ba > bb ? ba : bb) + (ba < bb ? ba : bb) - 1);
    if (!p)
        return;
    jit_output_release(&oa);
    jit_output_release(&ob);
    /* (a compile's cubin differs from the last one's in a few bytes) */
    CHECK(pool_compile(p, a, &oa) == KEVO_OK && !oa.cached); /* to the disk */
    CHECK(pool_compile(p, b, &ob) == KEVO_OK && !ob.cached);
    int ta = jit_pool_submit(p, a, "a.cu"), tb = jit_pool_submit(p, b, "b.cu");
    CHECK(ta >= 0 && tb >= 0);
    CHECK(jit_pool_wait(p, tb, &y) == KEVO_OK && y.cached && same_output(&y, &ob));
    CHECK(jit_pool_wait(p, ta, &x) == KEVO_OK && x.cached);
    CHECK_MSG(same_output(&x, &oa) && contains(&x, "kevo_ma"),
              "a's answer (%zu bytes) is not a's cubin (%zu bytes)",
              x.cubin_len, oa.cubin_len);
    jit_output_release(&x);
    jit_output_release(&y);
    /* unpinned now: b takes the place, and a comes from the disk again */
    CHECK(pool_compile(p, b, &y) == KEVO_OK && same_output(&y, &ob));
    CHECK(pool_compile(p, a, &x) == KEVO_OK && same_output(&x, &oa));
    jit_output_release(&x);
    jit_output_release(&y);
    jit_pool_free(p);
    jit_output_release(&oa);
    jit_output_release(&ob);
}

/* jit_pool_share: the compile processes per evaluator using the pool */
static void test_pool_share(void)
{
    struct jit_pool *p = pool_start(2, 20000, NULL);
    if (!p)
        return;
    CHECK(jit_pool_share(p) == 2.0);
    jit_pool_add_user(p);
    CHECK(jit_pool_share(p) == 1.0);
    jit_pool_add_user(p);
    jit_pool_add_user(p);
    CHECK(jit_pool_share(p) == 0.5);
    jit_pool_free(p);
}

int main(void)
{
    snprintf(cache_dir, sizeof cache_dir, "/tmp/kevo-test-jit-XXXXXX");
    if (!mkdtemp(cache_dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_pool_cache, "a repeat compile comes from the cache, same cubin");
    RUN(test_pool_parallel, "a pool of 2 compiles 8 sources, each its own");
    RUN(test_pool_priority, "compilers run below every normal process "
        "(SCHED_IDLE)");
    RUN(test_pool_poll, "polling the pool finishes compiles without a wait");
    RUN(test_pool_timeout, "a compile past the limit is killed, pool goes on");
    RUN(test_pool_crash, "a crashed compiler is reported and replaced");
    RUN(test_pool_big, "a multi-megabyte source and cubin pass the pipes");
    RUN(test_pool_broken, "a pool whose compilers cannot start says so");
    RUN(test_pool_threads, "four threads share one pool of 2, each gets its "
        "own three kernels");
    RUN(test_pool_prefetch, "a prefetched compile is taken over by the "
        "submit of the same source, or found in the cache once done");
    RUN(test_pool_release, "a released ticket goes on as a prefetch: the "
        "submit of its source takes it over or finds it cached; a timed-out "
        "one keeps its result for that submit");
    RUN(test_pool_prefetch_later, "a prefetch for later waits behind the "
        "submits queued after it");
    RUN(test_pool_later_cap, "prefetches for later leave half the "
        "compilers to the current batch");
    RUN(test_pool_twins, "a source submitted twice at once compiles once; "
        "the twin is a cache hit");
    RUN(test_pool_memo, "the disk cache's answers kept in memory: a "
        "repeat hit reads no file; one not waited for keeps its entry");
    RUN(test_pool_share, "each evaluator sharing a pool has its share of "
        "the compile processes");
    RUN(test_compile_small, "a small kernel gives an ELF cubin and registers");
    RUN(test_compile_error, "a broken source gives the error and its line");
    RUN(test_compile_local, "a local array shows as stack bytes, smem counted");
    RUN(test_compile_sm90a, "wgmma compiles for sm_90a and not for sm_90");
    RUN(test_reject_launch, "device-side launches are rejected");
    RUN(test_cubin_globals, "module globals are enumerated with name and "
        "size (constexpr tables too), printf is seen as a vprintf import");
    RUN(test_long_log, "a huge log is cut at the cap after parsing");
    RUN(test_cache_key_and_dir, "the cache key covers source and arch; "
        "NVRTC's own cache is off");
    remove_dir(cache_dir);
    TEST_DONE();
}
