/*
 * tpl_selftest.cu - runs one instantiated kevo template on one shape and
 * checks every launch against a CPU fp64 reference: a stand-alone check of
 * templates (and of the adversarial kernels' expected verdicts) that needs
 * only nvcc and the CUDA runtime, not kevo. Built by g++ with -DKEVO_EMU it
 * runs the kernels on a CPU emulation instead (one OS thread per CUDA thread,
 * blocks one after another), so index math can be checked without a GPU.
 * Not a benchmark and not the real harness (src/): no timing, no isolation.
 */

/*
 * Usage: scripts/tplcc.sh writes the two generated headers (instance and
 * launch plan), builds this file and runs it, e.g.
 *   scripts/tplcc.sh --gpu 1000x1000x1000 templates/gemm/sgemm_tiled.cu BM=64
 *   scripts/tplcc.sh --emu 77x33 -t bf16 templates/softmax/softmax_warp.cu
 *   for f in tests/gpu/adversarial/[a-z]*.cu; do
 *       scripts/tplcc.sh --gpu - --expect "$f"; done
 * The binary: selftest SHAPE [--trials N] [--seed S] [--misalign]
 * [--timeout-s T]. Each trial draws fresh inputs, poisons the output with
 * NaN, guards 64 elements on each side of every buffer, runs the plan, and
 * checks every output element (GEMM: all up to 2^30 MACs, else 128 rows
 * including the first and last two), the guards and the inputs. Last line:
 * "verdict: <v>", v one of ok, wrong, crashed, timeout, cheat, compile_error,
 * unsupported, or error (the self-test itself failed: no device, no
 * memory). Exit status: 0 for ok, 2 for error, 1 otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <type_traits>
#include <utility>

#ifdef KEVO_EMU
/* ---------------- CPU emulation of the CUDA device subset ------------- */
#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

/* CUDA's own vector types and dim3 (cuda_fp16.h includes them too);
 * host_defines.h defines the qualifiers for host compilers, redone here. */
#include <vector_types.h>
#undef __global__
#undef __device__
#undef __host__
#undef __forceinline__
#undef __noinline__
#undef __launch_bounds__
#undef __shared__
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __shared__ static /* blocks run one at a time */

static thread_local dim3 threadIdx, blockIdx;
static dim3 blockDim, gridDim;
static unsigned char *kevo_emu_dyn_smem; /* extern __shared__ is rewritten */

/* A barrier that threads leave for good when they return (like exited
 * threads on the GPU, which __syncthreads no longer waits for). */
struct emu_barrier {
    std::mutex mu;
    std::condition_variable cv;
    int expected = 0, count = 0;
    unsigned gen = 0;
    void reset(int n) { expected = n; count = 0; }
    void wait()
    {
        std::unique_lock<std::mutex> lk(mu);
        unsigned g = gen;
        if (++count >= expected) {
            count = 0;
            gen++;
            cv.notify_all();
        } else {
            cv.wait(lk, [&] { return gen != g; });
        }
    }
    void drop()
    {
        std::unique_lock<std::mutex> lk(mu);
        expected--;
        if (count > 0 && count >= expected) {
            count = 0;
            gen++;
            cv.notify_all();
        }
    }
};

static emu_barrier emu_block_bar, emu_pool_bar, emu_warp_bar[32];

/* Threads in warp w of an nt-thread block (the last may be partial). */
static int emu_warp_size(int w, int nt)
{
    int left = nt - w * 32;
    return left <= 0 ? 0 : left < 32 ? left : 32;
}
static uint64_t emu_slots[32][32];
static std::mutex emu_atomic_mu;
static thread_local int emu_tid;

static inline void __syncthreads(void) { emu_block_bar.wait(); }
static inline void __syncwarp(unsigned mask = 0xffffffffu)
{
    (void)mask;
    emu_warp_bar[emu_tid / 32].wait();
}
template <class T> static T emu_exchange(T v, int src)
{
    int w = emu_tid / 32, l = emu_tid % 32;
    uint64_t bits = 0;
    memcpy(&bits, &v, sizeof v);
    emu_slots[w][l] = bits;
    emu_warp_bar[w].wait();
    T r = v;
    if (src >= 0 && src < 32)
        memcpy(&r, &emu_slots[w][src], sizeof r);
    emu_warp_bar[w].wait();
    return r;
}
template <class T> static T __shfl_xor_sync(unsigned m, T v, int x, int w = 32)
{
    (void)m;
    int l = emu_tid % 32;
    return emu_exchange(v, (l & ~(w - 1)) | ((l ^ x) & (w - 1)));
}
template <class T> static T __shfl_sync(unsigned m, T v, int src, int w = 32)
{
    (void)m;
    int l = emu_tid % 32;
    return emu_exchange(v, (l & ~(w - 1)) | (src & (w - 1)));
}
template <class T>
static T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32)
{
    (void)m;
    int l = emu_tid % 32, s = l + (int)d;
    return emu_exchange(v, (s & ~(w - 1)) == (l & ~(w - 1)) ? s : l);
}
template <class T>
static T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32)
{
    (void)m;
    int l = emu_tid % 32, s = l - (int)d;
    return emu_exchange(v, s >= (l & ~(w - 1)) ? s : l);
}
template <class T> static T atomicAdd(T *p, T v)
{
    std::lock_guard<std::mutex> g(emu_atomic_mu);
    T o = *p;
    *p = o + v;
    return o;
}
template <class T> static T atomicMax(T *p, T v)
{
    std::lock_guard<std::mutex> g(emu_atomic_mu);
    T o = *p;
    *p = o > v ? o : v;
    return o;
}
template <class T> static T atomicExch(T *p, T v)
{
    std::lock_guard<std::mutex> g(emu_atomic_mu);
    T o = *p;
    *p = v;
    return o;
}
template <class T> static T atomicCAS(T *p, T c, T v)
{
    std::lock_guard<std::mutex> g(emu_atomic_mu);
    T o = *p;
    if (o == c)
        *p = v;
    return o;
}
static inline void __threadfence(void)
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
}
static inline void __trap(void) { abort(); }
static inline long long clock64(void)
{
    static std::atomic<long long> c{0};
    return c++;
}
static inline float __int_as_float(int i)
{
    float f;
    memcpy(&f, &i, 4);
    return f;
}
static inline int __float_as_int(float f)
{
    int i;
    memcpy(&i, &f, 4);
    return i;
}
static inline float __uint_as_float(unsigned i)
{
    float f;
    memcpy(&f, &i, 4);
    return f;
}
static inline unsigned __float_as_uint(float f)
{
    unsigned i;
    memcpy(&i, &f, 4);
    return i;
}
/* __expf, __logf: glibc declares them (= expf, logf) */
static inline float __fdividef(float a, float b) { return a / b; }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline float __saturatef(float x)
{
    return x < 0.f ? 0.f : x > 1.f ? 1.f : x;
}
template <class T> static inline T __ldg(const T *p) { return *p; }
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static inline long long min(long long a, long long b) { return a < b ? a : b; }
static inline long long max(long long a, long long b) { return a > b ? a : b; }
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
#endif /* KEVO_EMU */

/* ---------------- the template instance and its launch plan ----------- */
#include KEVO_INSTANCE

#if defined(KEVO_PROBLEM_GEMM)
#define KEVO_N_DIMS 3
#elif defined(KEVO_PROBLEM_SOFTMAX)
#define KEVO_N_DIMS 2
#else
#error "define KEVO_PROBLEM_GEMM or KEVO_PROBLEM_SOFTMAX"
#endif

struct kevo_launch {
    long long grid[3], block[3], smem;
};
struct kevo_dev {
    long long sms, smem_optin, l2_bytes;
};
static inline long long kv_cdiv(long long a, long long b)
{
    return (a + b - 1) / b;
}
static inline long long kv_min(long long a, long long b)
{
    return a < b ? a : b;
}
static inline long long kv_max(long long a, long long b)
{
    return a > b ? a : b;
}
static inline long long kv_log2(long long a)
{
    long long r = 0;
    while (a > 1) {
        a >>= 1;
        r++;
    }
    return r;
}
static inline long long kv_ispow2(long long a)
{
    return a > 0 && !(a & (a - 1));
}
static inline long long kv_align(long long a, long long b)
{
    return kv_cdiv(a, b) * b;
}

/* A launch's kernel, called with the harness's argument list (buffers,
 * sizes, ws, then the template's int args): each of the kernel's own
 * parameters takes the next entry, so a kernel that declares fewer
 * parameters than the list (tpl.h "arg") reads only its own, as on the
 * GPU. args[i] holds a pointer, or an int as intptr_t. */
struct kevo_kernel {
    const void *gpu;             /* for cudaLaunchKernel */
    void (*emu)(void *const *a); /* the CPU emulation's call */
};
template <typename T> static T kv_from(void *v)
{
    if constexpr (std::is_pointer<T>::value)
        return (T)v;
    else
        return (T)(intptr_t)v;
}
template <typename... P, size_t... I>
static void kv_call_(void (*f)(P...), void *const *a,
                     std::index_sequence<I...>)
{
    f(kv_from<P>(a[I])...);
}
template <typename... P> static void kv_call(void (*f)(P...), void *const *a)
{
    kv_call_(f, a, std::index_sequence_for<P...>{});
}
#ifdef KEVO_EMU
#define KEVO_KERNEL(k)                                                   \
    {                                                                    \
        (const void *)k, [](void *const *a) { kv_call(k, a); }           \
    }
#else
#define KEVO_KERNEL(k) {(const void *)k, NULL}
#endif

/* Generated: KEVO_N_LAUNCHES, kevo_kernels[], kevo_kernel_names[],
 * KEVO_N_ARGS, kevo_plan(d, dev, L, &ws_bytes), kevo_args(d, dev, a),
 * kevo_requires(d, dev, why, cap). */
#include KEVO_PLAN

/* ---------------- host side ------------------------------------------ */

/* "error": the self-test itself failed (no device, no memory); never a
 * verdict on the kernel. */
static const char *verdict_name[] = {"ok",      "wrong", "crashed",
                                     "timeout", "cheat", "compile_error",
                                     "unsupported", "error"};
enum { V_OK, V_WRONG, V_CRASHED, V_TIMEOUT, V_CHEAT, V_COMPILE, V_UNSUP,
       V_ERROR };

static int finish(int v, const char *why)
{
    if (why)
        printf("reason: %s\n", why);
    printf("verdict: %s\n", verdict_name[v]);
    fflush(stdout);
    /* _exit: a hung kernel must not block exit */
    _exit(v == V_OK ? 0 : v == V_ERROR ? 2 : 1);
}

static uint64_t rng_state;
static double rng_uniform(void) /* [0, 1) */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

#define GUARD 64 /* elements of guard on each side of every buffer */

struct buf {
    elem_t *host;  /* n + 2*GUARD + 1 elements */
    elem_t *dev;   /* same layout on the device (malloc under KEVO_EMU) */
    long long n;
    int shift;     /* 0 or 1 element (--misalign) */
};

static elem_t *buf_at(const struct buf *b, elem_t *base)
{
    return base + GUARD + b->shift;
}

static int buf_alloc(struct buf *b, long long n, int shift)
{
    b->n = n;
    b->shift = shift;
    size_t bytes = (size_t)(n + 2 * GUARD + 1) * sizeof(elem_t);
    b->host = (elem_t *)malloc(bytes);
    if (!b->host)
        return -1;
#ifdef KEVO_EMU
    b->dev = (elem_t *)malloc(bytes);
    if (!b->dev)
        return -1;
#else
    if (cudaMalloc((void **)&b->dev, bytes) != cudaSuccess)
        return -1;
#endif
    return 0;
}

static void fill_guard(elem_t *base, const struct buf *b)
{
    unsigned short pat16 = 0x7e5a; /* a NaN pattern no kernel writes */
    unsigned pat32 = 0x7fa5a5a5u;
    long long total = b->n + 2 * GUARD + 1;
    for (long long i = 0; i < total; i++) {
        if (i >= GUARD + b->shift && i < GUARD + b->shift + b->n)
            continue;
        if (sizeof(elem_t) == 2)
            memcpy(&base[i], &pat16, 2);
        else
            memcpy(&base[i], &pat32, 4);
    }
}

static int to_dev(const struct buf *b)
{
    size_t bytes = (size_t)(b->n + 2 * GUARD + 1) * sizeof(elem_t);
#ifndef KEVO_EMU
    return cudaMemcpy(b->dev, b->host, bytes, cudaMemcpyHostToDevice) ==
                   cudaSuccess ? 0 : -1;
#else
    memcpy(b->dev, b->host, bytes);
    return 0;
#endif
}

static int from_dev(elem_t *dst, const struct buf *b)
{
    size_t bytes = (size_t)(b->n + 2 * GUARD + 1) * sizeof(elem_t);
#ifndef KEVO_EMU
    return cudaMemcpy(dst, b->dev, bytes, cudaMemcpyDeviceToHost) ==
                   cudaSuccess ? 0 : -1;
#else
    memcpy(dst, b->dev, bytes);
    return 0;
#endif
}

static double get(const elem_t *p, long long i) { return (double)TO_F32(p[i]); }

#ifdef KEVO_EMU
struct emu_ctx {
    void (*fn)(void *const *a);
    void *args[16];
    int nthreads;
    int tid;
};
static void emu_call(const struct emu_ctx *c) { c->fn(c->args); }
static void *emu_worker(void *p)
{
    struct emu_ctx *c = (struct emu_ctx *)p;
    emu_tid = c->tid;
    threadIdx = dim3(c->tid % blockDim.x, c->tid / blockDim.x % blockDim.y,
                     c->tid / (blockDim.x * blockDim.y));
    for (unsigned bz = 0; bz < gridDim.z; bz++)
        for (unsigned by = 0; by < gridDim.y; by++)
            for (unsigned bx = 0; bx < gridDim.x; bx++) {
                blockIdx = dim3(bx, by, bz);
                emu_call(c);
                emu_block_bar.drop();
                emu_warp_bar[c->tid / 32].drop();
                emu_pool_bar.wait(); /* the whole block returned */
                if (c->tid == 0) {
                    emu_block_bar.reset(c->nthreads);
                    for (int w = 0; w < 32; w++)
                        emu_warp_bar[w].reset(emu_warp_size(w, c->nthreads));
                }
                emu_pool_bar.wait();
            }
    return NULL;
}
/* Runs the grid; blocks one at a time, the threads of a block at once. */
static int emu_launch(void (*fn)(void *const *), const struct kevo_launch *l,
                      void **args, int nargs)
{
    int nt = (int)(l->block[0] * l->block[1] * l->block[2]);
    gridDim = dim3((unsigned)l->grid[0], (unsigned)l->grid[1],
                   (unsigned)l->grid[2]);
    blockDim = dim3((unsigned)l->block[0], (unsigned)l->block[1],
                    (unsigned)l->block[2]);
    free(kevo_emu_dyn_smem);
    /* exact size: ASan flags any access past the declared smem */
    kevo_emu_dyn_smem = (unsigned char *)malloc(l->smem > 0 ? l->smem : 1);
    memset(kevo_emu_dyn_smem, 0xff, l->smem > 0 ? l->smem : 1);
    emu_block_bar.reset(nt);
    emu_pool_bar.reset(nt);
    for (int w = 0; w < 32; w++)
        emu_warp_bar[w].reset(emu_warp_size(w, nt));
    struct emu_ctx *ctx = (struct emu_ctx *)calloc(nt, sizeof *ctx);
    pthread_t *th = (pthread_t *)calloc(nt, sizeof *th);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1 << 20);
    for (int t = 0; t < nt; t++) {
        ctx[t].fn = fn;
        memcpy(ctx[t].args, args, nargs * sizeof(void *));
        ctx[t].nthreads = nt;
        ctx[t].tid = t;
        if (pthread_create(&th[t], &attr, emu_worker, &ctx[t]) != 0) {
            fprintf(stderr, "emu: cannot create thread %d\n", t);
            exit(2);
        }
    }
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    free(ctx);
    free(th);
    return 0;
}
#endif

/* Launches the whole plan; returns a verdict code (V_OK if it ran). */
static int run_plan(const struct kevo_launch *L, void **args, int nargs,
                    double timeout_s, char *why, size_t cap)
{
    for (int l = 0; l < KEVO_N_LAUNCHES; l++) {
#ifdef KEVO_EMU
        emu_launch(kevo_kernels[l].emu, &L[l], args, nargs);
#else
        const void *fn = kevo_kernels[l].gpu;
        /* always: static + dynamic > 48 KB needs it even when the
         * dynamic part alone is below 48 KB */
        if (L[l].smem > 0 &&
            cudaFuncSetAttribute(fn,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)L[l].smem) != cudaSuccess) {
            snprintf(why, cap, "%s: cannot allow %lld bytes of shared memory",
                     kevo_kernel_names[l], L[l].smem);
            return V_COMPILE;
        }
        dim3 g((unsigned)L[l].grid[0], (unsigned)L[l].grid[1],
               (unsigned)L[l].grid[2]);
        dim3 b((unsigned)L[l].block[0], (unsigned)L[l].block[1],
               (unsigned)L[l].block[2]);
        cudaError_t e = cudaLaunchKernel(fn, g, b, args, (size_t)L[l].smem, 0);
        if (e != cudaSuccess) {
            snprintf(why, cap, "launch of %s failed: %s", kevo_kernel_names[l],
                     cudaGetErrorString(e));
            return V_COMPILE;
        }
#endif
    }
#ifndef KEVO_EMU
    double waited = 0;
    cudaError_t e;
    while ((e = cudaStreamQuery(0)) == cudaErrorNotReady) {
        usleep(1000);
        waited += 1e-3;
        if (waited > timeout_s) {
            snprintf(why, cap, "still running after %.1f s", timeout_s);
            return V_TIMEOUT;
        }
    }
    if (e != cudaSuccess) {
        snprintf(why, cap, "%s", cudaGetErrorString(e));
        return V_CRASHED;
    }
#else
    (void)nargs;
    (void)timeout_s;
    (void)why;
    (void)cap;
#endif
    return V_OK;
}

static void fill_inputs(struct buf *in, int n_in, const long long *d)
{
    for (int b = 0; b < n_in; b++) {
        elem_t *p = buf_at(&in[b], in[b].host);
        fill_guard(in[b].host, &in[b]);
#if defined(KEVO_PROBLEM_GEMM)
        for (long long i = 0; i < in[b].n; i++)
            p[i] = FROM_F32((float)(2.0 * rng_uniform() - 1.0));
#else
        long long rows = d[0], cols = d[1];
        for (long long r = 0; r < rows; r++) {
            double off = 160.0 * rng_uniform() - 80.0; /* logits to +-100 */
            for (long long c = 0; c < cols; c++)
                p[r * cols + c] =
                    FROM_F32((float)(off + 40.0 * rng_uniform() - 20.0));
        }
#endif
    }
}

#if defined(KEVO_PROBLEM_GEMM)
static void tolerance(const long long *d, double *atol, double *rtol)
{
    double sk = sqrt((double)d[2]); /* as fitness/gemm.c */
    if (sizeof(elem_t) == 4) {
        *atol = 1e-5 * sk;
        *rtol = 1e-5;
    } else if (KEVO_DTYPE_BF16) {
        *atol = 1e-2 * sk;
        *rtol = 1.6e-2;
    } else {
        *atol = 2e-3 * sk;
        *rtol = 4e-3;
    }
}
#else
static void tolerance(const long long *d, double *atol, double *rtol)
{
    double inv = 1.0 / (double)d[1]; /* as fitness/softmax.c */
    if (sizeof(elem_t) == 4) {
        *atol = 1e-6 * inv;
        *rtol = 2e-5;
    } else if (KEVO_DTYPE_BF16) {
        *atol = 1e-2 * inv;
        *rtol = 1.6e-2;
    } else {
        *atol = 1e-3 * inv;
        *rtol = 2e-3;
    }
}
#endif

struct errstat {
    long long checked, bad, first_bad;
    double max_abs, max_rel;
};

static void check_one(struct errstat *s, long long i, double out, double ref,
                      double atol, double rtol)
{
    double err = fabs(out - ref);
    s->checked++;
    if (!(err <= atol + rtol * fabs(ref))) { /* NaN fails */
        if (s->bad++ == 0)
            s->first_bad = i;
    }
    if (err > s->max_abs || err != err)
        s->max_abs = err;
    if (fabs(ref) > atol && err / fabs(ref) > s->max_rel)
        s->max_rel = err / fabs(ref);
}

/* Compares the output with an fp64 reference computed from the inputs. */
static void check_output(const long long *d, const elem_t *const *in,
                         const elem_t *out, struct errstat *s)
{
    double atol, rtol;
    tolerance(d, &atol, &rtol);
    memset(s, 0, sizeof *s);
    s->first_bad = -1;
#if defined(KEVO_PROBLEM_GEMM)
    long long M = d[0], N = d[1], K = d[2];
    double *acc = (double *)malloc((size_t)N * sizeof(double));
    int all = (double)M * N * K <= 1073741824.0 || M <= 8;
    long long nrows = all ? M : 128;
    for (long long ri = 0; ri < nrows; ri++) {
        /* sampled rows include the first and last (edge tiles) */
        long long m = all ? ri
                          : ri < 2 ? ri
                          : ri < 4 ? M - 1 - (ri - 2)
                                   : (long long)(rng_uniform() * M);
        for (long long n = 0; n < N; n++)
            acc[n] = 0;
        for (long long k = 0; k < K; k++) {
            double a = get(in[0], m * K + k);
            const elem_t *brow = in[1] + k * N;
            for (long long n = 0; n < N; n++)
                acc[n] += a * (double)TO_F32(brow[n]);
        }
        for (long long n = 0; n < N; n++)
            check_one(s, m * N + n, get(out, m * N + n), acc[n], atol, rtol);
    }
    free(acc);
#else
    long long rows = d[0], cols = d[1];
    for (long long r = 0; r < rows; r++) {
        const elem_t *x = in[0] + r * cols;
        double mx = -INFINITY, sum = 0;
        for (long long c = 0; c < cols; c++)
            mx = fmax(mx, get(x, c));
        for (long long c = 0; c < cols; c++)
            sum += exp(get(x, c) - mx);
        for (long long c = 0; c < cols; c++)
            check_one(s, r * cols + c, get(out, r * cols + c),
                      exp(get(x, c) - mx) / sum, atol, rtol);
    }
#endif
}

static int parse_shape(const char *txt, long long *d)
{
    int n = 0;
    const char *p = txt;
    while (n < KEVO_N_DIMS) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v <= 0)
            return -1;
        d[n++] = v;
        if (*end == '\0')
            break;
        if (*end != 'x')
            return -1;
        p = end + 1;
    }
    return n == KEVO_N_DIMS ? 0 : -1;
}

int main(int argc, char **argv)
{
    long long d[4] = {0};
    int trials = 5, misalign = 0;
    double timeout_s = 10;
    rng_state = 12345;
    if (argc < 2 || parse_shape(argv[1], d) != 0) {
        fprintf(stderr, "usage: %s SHAPE [--trials N] [--seed S] [--misalign]"
                        " [--timeout-s T]\n", argv[0]);
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--trials") && i + 1 < argc)
            trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--misalign"))
            misalign = 1;
        else if (!strcmp(argv[i], "--timeout-s") && i + 1 < argc)
            timeout_s = atof(argv[++i]);
        else {
            fprintf(stderr, "unknown option '%s'\n", argv[i]);
            return 2;
        }
    }

    struct kevo_dev dev = {132, 232448, 52428800}; /* H100 facts */
#ifndef KEVO_EMU
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess)
        finish(V_ERROR, "no CUDA device");
    dev.sms = prop.multiProcessorCount;
    dev.smem_optin = (long long)prop.sharedMemPerBlockOptin;
    dev.l2_bytes = prop.l2CacheSize;
    printf("device: %s\n", prop.name);
#endif
    char why[512] = "";
    if (!kevo_requires(d, &dev, why, sizeof why))
        finish(V_UNSUP, why);
    struct kevo_launch L[4];
    long long ws_bytes = 0;
    if (kevo_plan(d, &dev, L, &ws_bytes, why, sizeof why) != 0)
        finish(V_UNSUP, why);
    int iargs[KEVO_N_ARGS + 1];
    kevo_args(d, &dev, iargs);
    for (int a = 0; a < KEVO_N_ARGS; a++)
        printf("arg %d = %d\n", a, iargs[a]);
    for (int l = 0; l < KEVO_N_LAUNCHES; l++)
        printf("launch %s grid %lldx%lldx%lld block %lldx%lldx%lld smem %lld\n",
               kevo_kernel_names[l], L[l].grid[0], L[l].grid[1], L[l].grid[2],
               L[l].block[0], L[l].block[1], L[l].block[2], L[l].smem);

#if defined(KEVO_PROBLEM_GEMM)
    enum { N_IN = 2 };
    long long n_in[N_IN] = {d[0] * d[2], d[2] * d[1]}, n_out = d[0] * d[1];
#else
    enum { N_IN = 1 };
    long long n_in[N_IN] = {d[0] * d[1]}, n_out = d[0] * d[1];
#endif
    struct buf in[N_IN], out;
    for (int b = 0; b < N_IN; b++)
        if (buf_alloc(&in[b], n_in[b], misalign ? 1 : 0))
            finish(V_ERROR, "out of memory");
    if (buf_alloc(&out, n_out, misalign ? 1 : 0))
        finish(V_ERROR, "out of memory");
    elem_t *out_back =
        (elem_t *)malloc((size_t)(n_out + 2 * GUARD + 1) * sizeof(elem_t));
    elem_t *in_back[N_IN];
    for (int b = 0; b < N_IN; b++)
        in_back[b] = (elem_t *)malloc((size_t)(n_in[b] + 2 * GUARD + 1) *
                                      sizeof(elem_t));
    void *ws = NULL;
    if (ws_bytes > 0) {
#ifdef KEVO_EMU
        ws = calloc(1, (size_t)ws_bytes);
#else
        if (cudaMalloc(&ws, (size_t)ws_bytes) != cudaSuccess)
            finish(V_ERROR, "out of memory (workspace)");
#endif
    }

    int verdict = V_OK;
    for (int t = 0; t < trials && verdict == V_OK; t++) {
        fill_inputs(in, N_IN, d);
        /* output: NaN poison inside, guard pattern outside */
        elem_t *o = buf_at(&out, out.host);
        float qnan;
        unsigned qnan_bits = 0x7fc00000u;
        memcpy(&qnan, &qnan_bits, 4);
        for (long long i = 0; i < n_out; i++)
            o[i] = FROM_F32(qnan);
        fill_guard(out.host, &out);
        for (int b = 0; b < N_IN; b++)
            if (to_dev(&in[b]))
                finish(V_ERROR, "copy failed");
        if (to_dev(&out))
            finish(V_ERROR, "copy failed");

        const elem_t *pin[N_IN];
        for (int b = 0; b < N_IN; b++)
            pin[b] = buf_at(&in[b], in[b].dev);
        elem_t *pout = buf_at(&out, out.dev);
        int dims[4] = {(int)d[0], (int)d[1], (int)d[2], (int)d[3]};
#if defined(KEVO_PROBLEM_GEMM)
        void *vargs[16] = {(void *)pin[0], (void *)pin[1], (void *)pout,
                           (void *)(intptr_t)dims[0], (void *)(intptr_t)dims[1],
                           (void *)(intptr_t)dims[2], ws};
        void *cargs[16] = {&pin[0], &pin[1], &pout, &dims[0], &dims[1],
                           &dims[2], &ws};
        int nargs = 7;
#else
        void *vargs[16] = {(void *)pin[0], (void *)pout,
                           (void *)(intptr_t)dims[0], (void *)(intptr_t)dims[1],
                           ws};
        void *cargs[16] = {&pin[0], &pout, &dims[0], &dims[1], &ws};
        int nargs = 5;
#endif
        for (int a = 0; a < KEVO_N_ARGS; a++) { /* tpl.h "arg" */
            vargs[nargs] = (void *)(intptr_t)iargs[a];
            cargs[nargs++] = &iargs[a];
        }
#ifdef KEVO_EMU
        (void)cargs;
        verdict = run_plan(L, vargs, nargs, timeout_s, why, sizeof why);
#else
        (void)vargs;
        verdict = run_plan(L, cargs, nargs, timeout_s, why, sizeof why);
#endif
        if (verdict != V_OK)
            break;

        if (from_dev(out_back, &out))
            finish(V_ERROR, "copy back failed");
        for (int b = 0; b < N_IN; b++) {
            if (from_dev(in_back[b], &in[b]))
                finish(V_ERROR, "copy back failed");
            size_t bytes = (size_t)(n_in[b] + 2 * GUARD + 1) * sizeof(elem_t);
            if (memcmp(in_back[b], in[b].host, bytes) != 0) {
                snprintf(why, sizeof why, "trial %d: input %d was modified", t,
                         b);
                verdict = V_CHEAT;
            }
        }
        long long total = n_out + 2 * GUARD + 1;
        for (long long i = 0; i < total && verdict == V_OK; i++) {
            if (i >= GUARD + out.shift && i < GUARD + out.shift + n_out)
                continue;
            if (memcmp(&out_back[i], &out.host[i], sizeof(elem_t)) != 0) {
                snprintf(why, sizeof why,
                         "trial %d: write outside the output at element %lld",
                         t, i - GUARD - out.shift);
                verdict = V_CHEAT;
            }
        }
        if (verdict != V_OK)
            break;
        struct errstat s;
        const elem_t *hin[N_IN];
        for (int b = 0; b < N_IN; b++)
            hin[b] = buf_at(&in[b], in[b].host);
        check_output(d, hin, buf_at(&out, out_back), &s);
        printf("trial %d: checked %lld, bad %lld, max_abs_err %.3g, "
               "max_rel_err %.3g\n", t, s.checked, s.bad, s.max_abs, s.max_rel);
        if (s.bad) {
            long long i = s.first_bad;
            snprintf(why, sizeof why, "trial %d: %lld bad elements, first at "
                     "%lld (row %lld col %lld): got %.9g",
                     t, s.bad, i, i / d[1], i % d[1],
                     get(buf_at(&out, out_back), i));
            verdict = V_WRONG;
        }
    }
    finish(verdict, verdict == V_OK ? NULL : why);
    return 0;
}
