/*
 * gemm-sustain.c - a bf16 GEMM kernel exported by `kevo export --format c`
 * against cuBLAS under sustained load: each runs back to back for a few
 * seconds (with and without an L2 flush before every launch), in turns,
 * while a thread samples NVML (board power, SM clock, temperature) every
 * 5 ms. Prints, per kernel and phase, the median time of a launch (CUDA
 * events around each), TFLOP/s, the mean power and SM clock, and the
 * energy of one GEMM (mean power x median time, no-flush phases). For
 * the question kevo's profiles leave open: single launches of
 * hgemm_wgmma and cuBLAS's nvjet kernel take the same cycles at the same
 * clock (bench/results/2026-11-24-h100-s8/c4/), yet back-to-back timing
 * has ours 1-1.5 % slower at 4096^3.
 *
 * Build on the CPU host, no GPU needed (bench/results/2026-11-24-h100-s8/
 * c6/build.sh exports hgemm_wgmma's default point and does this):
 *   cc -O2 -std=gnu11 -I$CUDA/include -Iexp scripts/gemm-sustain.c
 *      exp/kevo_gemm.c -L$CUDA/lib64/stubs -L$CUDA/lib64 -lcuda -lcublas
 *      -ldl -lpthread -lm
 * Run: gemm-sustain exp/kevo_gemm.cubin M N K [seconds a phase]
 * With SUSTAIN_ALT=1 in the environment: the two alternate a launch
 * (flush before each), back to back and in bursts of 5 pairs after 20 ms
 * of idle, 3 rounds.
 * NVML's power reading is averaged over about a second, so the first
 * phase after an idle GPU reads low.
 */
#include <cublas_v2.h>
#include <cuda.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kevo_gemm.h"

#define CK(x)                                                              \
    do {                                                                   \
        CUresult r_ = (x);                                                 \
        if (r_ != CUDA_SUCCESS) {                                          \
            const char *s_ = "?";                                          \
            cuGetErrorName(r_, &s_);                                       \
            fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #x, \
                    s_, kevo_gemm_last_error());                           \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

/* ---- NVML, loaded at run time */
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_handle_fn)(unsigned, void **);
typedef int (*nvml_u32_fn)(void *, unsigned *);
typedef int (*nvml_clock_fn)(void *, int, unsigned *);
typedef int (*nvml_temp_fn)(void *, int, unsigned *);
static nvml_u32_fn nv_power;
static nvml_clock_fn nv_clock;
static nvml_temp_fn nv_temp;
static void *nv_dev;

struct acc {
    double power_w, mhz, temp;
    long n;
};
#define MAX_PHASES 64
static struct acc phase_acc[MAX_PHASES];
static volatile int phase = -1, stop_sampler;

static void *sampler(void *arg)
{
    (void)arg;
    while (!stop_sampler) {
        int ph = phase;
        unsigned mw = 0, mhz = 0, t = 0;
        if (ph >= 0 && nv_dev && !nv_power(nv_dev, &mw) &&
            !nv_clock(nv_dev, 1 /* NVML_CLOCK_SM */, &mhz) &&
            !nv_temp(nv_dev, 0 /* NVML_TEMPERATURE_GPU */, &t)) {
            struct acc *a = &phase_acc[ph];
            a->power_w += mw / 1000.0;
            a->mhz += mhz;
            a->temp += t;
            a->n++;
        }
        usleep(5000);
    }
    return NULL;
}

static void nvml_open(void)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!h) {
        fprintf(stderr, "no NVML: %s\n", dlerror());
        return;
    }
    nvml_init_fn init = (nvml_init_fn)dlsym(h, "nvmlInit_v2");
    nvml_handle_fn get = (nvml_handle_fn)dlsym(h,
                                               "nvmlDeviceGetHandleByIndex_v2");
    nv_power = (nvml_u32_fn)dlsym(h, "nvmlDeviceGetPowerUsage");
    nv_clock = (nvml_clock_fn)dlsym(h, "nvmlDeviceGetClockInfo");
    nv_temp = (nvml_temp_fn)dlsym(h, "nvmlDeviceGetTemperature");
    if (!init || !get || !nv_power || !nv_clock || !nv_temp || init() ||
        get(0, &nv_dev))
        nv_dev = NULL;
}

/* ---- the run */
static int M, N, K;
static CUdeviceptr dA, dB, dC, dC2, dFlush;
static size_t flush_bytes = 256u << 20;
static cublasHandle_t blas;
static CUstream st;

static void launch(int which)
{
    if (which == 0) {
        CK(kevo_gemm_launch(dA, dB, dC, M, N, K, 0, st));
    } else {
        const float one = 1.0f, zero = 0.0f;
        cublasStatus_t s = cublasGemmEx(
            blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, (void *)dB,
            CUDA_R_16BF, N, (void *)dA, CUDA_R_16BF, K, &zero, (void *)dC2,
            CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        if (s != CUBLAS_STATUS_SUCCESS) {
            fprintf(stderr, "cublasGemmEx: %d\n", (int)s);
            exit(1);
        }
    }
}

static int cmp_f(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* One phase: kernel which, back to back for secs, flushing or not. */
static void run_phase(int ph, int which, int flush, double secs)
{
    enum { BATCH = 64 };
    CUevent ev[2 * BATCH];
    for (int i = 0; i < 2 * BATCH; i++)
        CK(cuEventCreate(&ev[i], CU_EVENT_DEFAULT));
    size_t cap = 1 << 16, n = 0;
    float *ms = malloc(cap * sizeof *ms);
    for (int i = 0; i < 20; i++)
        launch(which);
    CK(cuStreamSynchronize(st));
    phase = ph;
    double t0 = now_s();
    while (now_s() - t0 < secs && n + BATCH <= cap) {
        for (int i = 0; i < BATCH; i++) {
            if (flush)
                CK(cuMemsetD32Async(dFlush, (unsigned)(n + i),
                                    flush_bytes / 4, st));
            CK(cuEventRecord(ev[2 * i], st));
            launch(which);
            CK(cuEventRecord(ev[2 * i + 1], st));
        }
        CK(cuStreamSynchronize(st));
        for (int i = 0; i < BATCH; i++)
            CK(cuEventElapsedTime(&ms[n + i], ev[2 * i], ev[2 * i + 1]));
        n += BATCH;
    }
    phase = -1;
    double wall = now_s() - t0;
    qsort(ms, n, sizeof *ms, cmp_f);
    double med = ms[n / 2] * 1e-3, flops = 2.0 * M * N * K;
    struct acc *a = &phase_acc[ph];
    double pw = a->n ? a->power_w / a->n : 0, mhz = a->n ? a->mhz / a->n : 0,
           tc = a->n ? a->temp / a->n : 0;
    printf("%-7s %-7s n=%6zu median %8.2f us  p10 %8.2f  p90 %8.2f  %7.1f "
           "TFLOP/s  power %6.1f W  SM %6.0f MHz  %4.1f C  samples %4ld  "
           "wall %.2f s",
           which ? "cublas" : "kevo", flush ? "flush" : "noflush", n,
           med * 1e6, ms[n / 10] * 1e3, ms[n * 9 / 10] * 1e3,
           flops / med / 1e12, pw, mhz, tc, a->n, wall);
    if (!flush)
        printf("  energy/GEMM %.4f J", pw * med);
    printf("\n");
    fflush(stdout);
    free(ms);
    for (int i = 0; i < 2 * BATCH; i++)
        cuEventDestroy(ev[i]);
}

/* Alternating: flush, kevo, flush, cuBLAS, ... (ABAB a launch), each
 * launch timed by events, for secs; with gap_ms > 0, bursts of 5 pairs
 * separated by gap_ms of idle (short timings at a rested GPU's clocks).
 * Prints both medians and their ratio. */
static void run_alt(int ph, double secs, int gap_ms)
{
    enum { PAIRS = 5 };
    CUevent ev[4 * PAIRS];
    for (int i = 0; i < 4 * PAIRS; i++)
        CK(cuEventCreate(&ev[i], CU_EVENT_DEFAULT));
    size_t cap = 1 << 15, n = 0;
    float *mk = malloc(cap * sizeof *mk), *mc = malloc(cap * sizeof *mc);
    phase = ph;
    double t0 = now_s();
    while (now_s() - t0 < secs && n + PAIRS <= cap) {
        for (int i = 0; i < PAIRS; i++)
            for (int w = 0; w < 2; w++) {
                CK(cuMemsetD32Async(dFlush, (unsigned)(n + i),
                                    flush_bytes / 4, st));
                CK(cuEventRecord(ev[4 * i + 2 * w], st));
                launch(w);
                CK(cuEventRecord(ev[4 * i + 2 * w + 1], st));
            }
        CK(cuStreamSynchronize(st));
        for (int i = 0; i < PAIRS; i++) {
            CK(cuEventElapsedTime(&mk[n + i], ev[4 * i], ev[4 * i + 1]));
            CK(cuEventElapsedTime(&mc[n + i], ev[4 * i + 2], ev[4 * i + 3]));
        }
        n += PAIRS;
        if (gap_ms > 0)
            usleep((useconds_t)gap_ms * 1000);
    }
    phase = -1;
    qsort(mk, n, sizeof *mk, cmp_f);
    qsort(mc, n, sizeof *mc, cmp_f);
    struct acc *a = &phase_acc[ph];
    double k = mk[n / 2] * 1e3, c = mc[n / 2] * 1e3;
    printf("alt     gap %3d ms  pairs %5zu  kevo median %8.2f us  cublas "
           "median %8.2f us  cublas/kevo %.4f  power %6.1f W  SM %6.0f MHz\n",
           gap_ms, n, k, c, c / k, a->n ? a->power_w / a->n : 0,
           a->n ? a->mhz / a->n : 0);
    fflush(stdout);
    free(mk);
    free(mc);
    for (int i = 0; i < 4 * PAIRS; i++)
        cuEventDestroy(ev[i]);
}

static unsigned short to_bf16(float f)
{
    unsigned u;
    memcpy(&u, &f, 4);
    return (unsigned short)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

static float from_bf16(unsigned short h)
{
    unsigned u = (unsigned)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s CUBIN M N K [seconds]\n", argv[0]);
        return 2;
    }
    M = atoi(argv[2]);
    N = atoi(argv[3]);
    K = atoi(argv[4]);
    double secs = argc > 5 ? atof(argv[5]) : 2.0;
    CUdevice dev;
    CUcontext ctx;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    CK(kevo_gemm_load(argv[1]));
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS ||
        cublasSetStream(blas, (cudaStream_t)st) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublas init failed\n");
        return 1;
    }
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    CK(cuMemAlloc(&dA, na * 2));
    CK(cuMemAlloc(&dB, nb * 2));
    CK(cuMemAlloc(&dC, nc * 2));
    CK(cuMemAlloc(&dC2, nc * 2));
    CK(cuMemAlloc(&dFlush, flush_bytes));
    unsigned short *h = malloc((na > nb ? na : nb) * 2);
    srand(7);
    for (size_t i = 0; i < na; i++)
        h[i] = to_bf16(2.0f * rand() / RAND_MAX - 1.0f);
    CK(cuMemcpyHtoD(dA, h, na * 2));
    for (size_t i = 0; i < nb; i++)
        h[i] = to_bf16(2.0f * rand() / RAND_MAX - 1.0f);
    CK(cuMemcpyHtoD(dB, h, nb * 2));
    free(h);
    /* the two agree (same fp32 accumulation, bf16 out) */
    launch(0);
    launch(1);
    CK(cuStreamSynchronize(st));
    unsigned short *c1 = malloc(nc * 2), *c2 = malloc(nc * 2);
    CK(cuMemcpyDtoH(c1, dC, nc * 2));
    CK(cuMemcpyDtoH(c2, dC2, nc * 2));
    double maxd = 0, maxv = 0;
    for (size_t i = 0; i < nc; i++) {
        double d = fabs((double)from_bf16(c1[i]) - from_bf16(c2[i]));
        maxd = d > maxd ? d : maxd;
        maxv = fabs(from_bf16(c2[i])) > maxv ? fabs(from_bf16(c2[i])) : maxv;
    }
    printf("%dx%dx%d bf16: max |kevo - cublas| %.4g (max |C| %.4g)\n", M, N,
           K, maxd, maxv);
    free(c1);
    free(c2);
    nvml_open();
    printf("NVML %s\n", nv_dev ? "sampling every 5 ms" : "not available");
    pthread_t th;
    pthread_create(&th, NULL, sampler, NULL);
    int ph = 0;
    if (getenv("SUSTAIN_ALT")) { /* ABAB a launch instead of phases */
        for (int round = 0; round < 3; round++) {
            run_alt(ph++, secs, 0);
            run_alt(ph++, secs, 20);
        }
        stop_sampler = 1;
        pthread_join(th, NULL);
        kevo_gemm_unload();
        return 0;
    }
    for (int round = 0; round < 3; round++)
        for (int flush = 0; flush < 2; flush++)
            for (int w = 0; w < 2; w++) {
                int which = (round & 1) ? 1 - w : w; /* ABBA */
                run_phase(ph++, which, flush, secs);
            }
    stop_sampler = 1;
    pthread_join(th, NULL);
    kevo_gemm_unload();
    return 0;
}
