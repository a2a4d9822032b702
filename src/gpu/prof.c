/*
 * prof.c - one call of a candidate under the CUPTI Range Profiler (see
 * prof.h). Owns the profiler and host objects of the process; does not
 * choose when to profile (the coordinator asks, gpueval.c) nor what the
 * numbers mean (core/profile.c diagnoses).
 *
 * Metric set (kevo key -> profiler metric), the answer to "what bounds
 * this kernel" (Nsight Compute's SpeedOfLight, Occupancy, WarpStateStats
 * and ComputeWorkloadAnalysis sections use the same counters):
 *   duration_ns            gpu__time_duration.sum
 *   dram_read/write_bytes  dram__bytes_read.sum, dram__bytes_write.sum
 *   dram_pct               dram__throughput.avg.pct_of_peak_sustained_elapsed
 *   sm_pct                 sm__throughput.avg.pct_of_peak_sustained_elapsed
 *   tensor_hmma_pct        sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
 *                          (mma.sync and, on GH100, wgmma; tensor_gmma_pct
 *                          stays uncollected: GH100 has no gmma metric)
 *   fma_pct, alu_pct       sm__pipe_{fma,alu}_cycles_active.avg.pct_of_peak_sustained_active
 *   achieved_occupancy_pct sm__warps_active.avg.pct_of_peak_sustained_active
 *   l2_hit_pct             lts__t_sector_hit_rate.pct
 *   shared_bank_conflicts  l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
 *   issue_busy_pct         sm__inst_issued.avg.pct_of_peak_sustained_active
 *   stall_<reason>         smsp__warps_issue_stalled_<reason>.sum (16 reasons)
 * Passes: 13 per launch for the whole set on GH100 (H200), about 0.3 s a
 * profile of a 0.1-3 ms kernel.
 * Replay: user replay by default: kevo replays the call itself, each pass
 * after the caller's pre hook (inputs in place, outputs poisoned, L2
 * flushed, outside the range), so every pass starts from the state a timed
 * repetition starts from. Measured on the H200 against ncu 2025.3
 * (--clock-control none): the compute, pipe, occupancy, L2, bank-conflict
 * and issue metrics agree within 1-3 points, DRAM reads within 0.5 %, and
 * with user replay DRAM writes within 1.3 % and durations within 2.4 %
 * (bench/results/2026-11-28-h200-s15/call1); CUPTI's kernel replay
 * (KEVO_PROF_REPLAY=kernel, also the fallback when user replay is
 * refused) restores the memory a launch writes before each pass and
 * leaves dirty lines that the next pass writes back: DRAM writes 20-90 %
 * high and short memory-bound kernels 4-15 % slow
 * (bench/results/2026-11-28-h200-counters). Stall counters with small
 * counts (mio and math-pipe throttle) differ from ncu by up to 27 %.
 * Occupancy limiter and theoretical occupancy come from the driver
 * (cuOccupancy*, function attributes), not from counters.
 *
 * Sources: notes/cupti-nvrtc-driver.md 1.3 (flow), 1.4 (error codes, one
 * client per process); CUDA 13.0 cupti_range_profiler.h and
 * cupti_profiler_host.h. The host header includes <string>: prof.o is
 * compiled with -Isrc/gpu/cshim, whose empty "string" lets C include it.
 */
#include "prof.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "fsutil.h"
#include "tmr.h"

static const char *const metric_names[PM_COUNT] = {
    [PM_DURATION_NS] = "gpu__time_duration.sum",
    [PM_DRAM_READ] = "dram__bytes_read.sum",
    [PM_DRAM_WRITE] = "dram__bytes_write.sum",
    [PM_DRAM_PCT] = "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    [PM_SM_PCT] = "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    /* no gmma pipe metric on GH100 (CUPTI and ncu 2025.3 both refuse
     * it): wgmma is counted by the hmma pipe (95.6 % for hgemm_wgmma) */
    [PM_TENSOR_GMMA_PCT] = NULL,
    [PM_TENSOR_HMMA_PCT] =
        "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    [PM_FMA_PCT] = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    [PM_ALU_PCT] = "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
    [PM_OCC_PCT] = "sm__warps_active.avg.pct_of_peak_sustained_active",
    [PM_L2_HIT_PCT] = "lts__t_sector_hit_rate.pct",
    [PM_SHARED_CONFLICTS] = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    [PM_ISSUE_PCT] = "sm__inst_issued.avg.pct_of_peak_sustained_active",
    [PM_STALL_LONG_SB] = "smsp__warps_issue_stalled_long_scoreboard.sum",
    [PM_STALL_SHORT_SB] = "smsp__warps_issue_stalled_short_scoreboard.sum",
    [PM_STALL_BARRIER] = "smsp__warps_issue_stalled_barrier.sum",
    [PM_STALL_MIO] = "smsp__warps_issue_stalled_mio_throttle.sum",
    [PM_STALL_LG] = "smsp__warps_issue_stalled_lg_throttle.sum",
    [PM_STALL_WAIT] = "smsp__warps_issue_stalled_wait.sum",
    [PM_STALL_MATH] = "smsp__warps_issue_stalled_math_pipe_throttle.sum",
    [PM_STALL_NOT_SELECTED] = "smsp__warps_issue_stalled_not_selected.sum",
    [PM_STALL_MEMBAR] = "smsp__warps_issue_stalled_membar.sum",
    [PM_STALL_NO_INST] = "smsp__warps_issue_stalled_no_instruction.sum",
    [PM_STALL_BRANCH] = "smsp__warps_issue_stalled_branch_resolving.sum",
    [PM_STALL_DISPATCH] = "smsp__warps_issue_stalled_dispatch_stall.sum",
    [PM_STALL_SLEEPING] = "smsp__warps_issue_stalled_sleeping.sum",
    [PM_STALL_TEX] = "smsp__warps_issue_stalled_tex_throttle.sum",
    [PM_STALL_DRAIN] = "smsp__warps_issue_stalled_drain.sum",
    [PM_STALL_MISC] = "smsp__warps_issue_stalled_misc.sum",
};

#define X_API(X)                                                            \
    X(cuptiGetResultString) X(cuptiProfilerInitialize)                      \
    X(cuptiProfilerDeInitialize) X(cuptiDeviceGetChipName)                  \
    X(cuptiProfilerGetCounterAvailability) X(cuptiProfilerHostInitialize)   \
    X(cuptiProfilerHostDeinitialize) X(cuptiProfilerHostConfigAddMetrics)   \
    X(cuptiProfilerHostGetConfigImageSize)                                  \
    X(cuptiProfilerHostGetConfigImage) X(cuptiProfilerHostGetNumOfPasses)   \
    X(cuptiProfilerHostEvaluateToGpuValues) X(cuptiRangeProfilerEnable)     \
    X(cuptiRangeProfilerDisable) X(cuptiRangeProfilerGetCounterDataSize)    \
    X(cuptiRangeProfilerCounterDataImageInitialize)                         \
    X(cuptiRangeProfilerSetConfig) X(cuptiRangeProfilerStart)               \
    X(cuptiRangeProfilerStop) X(cuptiRangeProfilerDecodeData)               \
    X(cuptiRangeProfilerGetCounterDataInfo)

struct prof_api {
#define X(f) __typeof__(f) *f;
    X_API(X)
#undef X
};

struct prof {
    const struct gpu *g;
    struct prof_api api;
    int ok;                        /* profiles can be taken */
    int inited;                    /* cuptiProfilerInitialize done */
    char note[PROF_NOTE_MAX];
    uint8_t *avail;                /* counter availability image */
    CUpti_Profiler_Host_Object *host;
    uint8_t *config;               /* config image of the metric set */
    size_t config_size;
    int passes;
    int n;                         /* metrics in the set */
    int which[PM_COUNT];           /* kevo metric of each */
    const char *names[PM_COUNT];   /* profiler names, in set order */
};

void prof_error_note(int rc, const char *call, char *out, size_t cap)
{
    const char *why = "";
    switch (rc) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        why = ": the driver restricts GPU performance counters to admin "
              "users (NVreg_RestrictProfilingToAdminUsers=1; see NVIDIA's "
              "ERR_NVGPUCTRPERM page)";
        break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        why = ": another profiler (ncu, nsys, a sanitizer) is attached";
        break;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
        why = ": a virtualized GPU has no counters";
        break;
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
        why = ": confidential computing mode hides the counters";
        break;
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
        why = ": this device (MIG slice or CMP) has no profiling";
        break;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
        why = ": the driver or GPU lacks the range profiler API";
        break;
    default:
        break;
    }
    snprintf(out, cap, "%s failed (CUPTI error %d)%s", call, rc, why);
}

/* Sets the note from a failed call; returns 0 (for `return fail(..)`). */
static int fail(struct prof *p, CUptiResult rc, const char *call)
{
    char buf[PROF_NOTE_MAX];
    prof_error_note((int)rc, call, buf, sizeof buf);
    snprintf(p->note, sizeof p->note, PROF_NO_COUNTERS ": %s", buf);
    return 0;
}

static int load_api(struct prof *p)
{
    void *h = tmr_cupti_open();
    if (!h) {
        snprintf(p->note, sizeof p->note, PROF_NO_COUNTERS ": "
                 "libcupti.so.13 not found");
        return 0;
    }
#define X(f)                                                                \
    if (!(p->api.f = (__typeof__(p->api.f))dlsym(h, #f))) {                 \
        snprintf(p->note, sizeof p->note, PROF_NO_COUNTERS ": "             \
                 "libcupti.so.13 lacks %s (the range profiler API needs "   \
                 "CUDA 12.6 or later)", #f);                                \
        return 0;                                                           \
    }
    X_API(X)
#undef X
    return 1;
}

/* A host object with the metrics names[0..n) added; NULL on failure. */
static CUpti_Profiler_Host_Object *host_new(struct prof *p, const char *chip,
                                            const char **names, size_t n,
                                            CUptiResult *rc)
{
    CUpti_Profiler_Host_Initialize_Params hi = {
        CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE, NULL,
        CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip, p->avail, NULL};
    if ((*rc = p->api.cuptiProfilerHostInitialize(&hi)))
        return NULL;
    CUpti_Profiler_Host_ConfigAddMetrics_Params am = {
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE, NULL,
        hi.pHostObject, names, n};
    if ((*rc = p->api.cuptiProfilerHostConfigAddMetrics(&am))) {
        CUpti_Profiler_Host_Deinitialize_Params hd = {
            CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, NULL,
            hi.pHostObject};
        p->api.cuptiProfilerHostDeinitialize(&hd);
        return NULL;
    }
    return hi.pHostObject;
}

/* The metric set: all of it, or (when the chip refuses one) each metric
 * tried alone and the refused ones dropped and named in dropped. */
static int build_set(struct prof *p, const char *chip, char *dropped,
                     size_t cap)
{
    CUptiResult rc;
    p->n = 0;
    for (int m = 0; m < PM_COUNT; m++) {
        if (!metric_names[m])
            continue;
        p->which[p->n] = m;
        p->names[p->n++] = metric_names[m];
    }
    p->host = host_new(p, chip, p->names, (size_t)p->n, &rc);
    if (p->host)
        return 1;
    p->n = 0;
    for (int m = 0; m < PM_COUNT; m++) {
        const char *one = metric_names[m];
        if (!one)
            continue;
        CUpti_Profiler_Host_Object *h = host_new(p, chip, &one, 1, &rc);
        if (!h) {
            size_t k = strlen(dropped);
            snprintf(dropped + k, cap - k, "%s%s", k ? ", " : "", one);
            continue;
        }
        CUpti_Profiler_Host_Deinitialize_Params hd = {
            CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, NULL, h};
        p->api.cuptiProfilerHostDeinitialize(&hd);
        p->which[p->n] = m;
        p->names[p->n++] = one;
    }
    if (!p->n)
        return fail(p, rc, "cuptiProfilerHostConfigAddMetrics");
    p->host = host_new(p, chip, p->names, (size_t)p->n, &rc);
    return p->host ? 1 : fail(p, rc, "cuptiProfilerHostConfigAddMetrics");
}

static int config_image(struct prof *p)
{
    CUpti_Profiler_Host_GetConfigImageSize_Params cs = {
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE, NULL,
        p->host, 0};
    CUptiResult rc = p->api.cuptiProfilerHostGetConfigImageSize(&cs);
    if (rc)
        return fail(p, rc, "cuptiProfilerHostGetConfigImageSize");
    if (!(p->config = malloc(cs.configImageSize))) {
        snprintf(p->note, sizeof p->note, PROF_NO_COUNTERS ": out of "
                 "memory");
        return 0;
    }
    p->config_size = cs.configImageSize;
    CUpti_Profiler_Host_GetConfigImage_Params ci = {
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE, NULL, p->host,
        p->config_size, p->config};
    if ((rc = p->api.cuptiProfilerHostGetConfigImage(&ci)))
        return fail(p, rc, "cuptiProfilerHostGetConfigImage");
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {
        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE, NULL,
        p->config_size, p->config, 0};
    if ((rc = p->api.cuptiProfilerHostGetNumOfPasses(&np)))
        return fail(p, rc, "cuptiProfilerHostGetNumOfPasses");
    p->passes = (int)np.numOfPasses;
    return 1;
}

/* Returns 1 when profiles can be taken, else 0 with the note set. */
static int start(struct prof *p)
{
    const char *sim = getenv("KEVO_TEST_PROF_ERROR");
    if (sim && *sim)
        return fail(p, (CUptiResult)atoi(sim), "cuptiProfilerInitialize "
                    "(simulated by KEVO_TEST_PROF_ERROR)");
    if (!load_api(p))
        return 0;
    CUpti_Profiler_Initialize_Params pi = {
        CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL};
    CUptiResult rc = p->api.cuptiProfilerInitialize(&pi);
    if (rc)
        return fail(p, rc, "cuptiProfilerInitialize");
    p->inited = 1;
    CUpti_Device_GetChipName_Params cn = {
        CUpti_Device_GetChipName_Params_STRUCT_SIZE, NULL,
        (size_t)p->g->info.ordinal, NULL};
    if ((rc = p->api.cuptiDeviceGetChipName(&cn)))
        return fail(p, rc, "cuptiDeviceGetChipName");
    CUpti_Profiler_GetCounterAvailability_Params ca = {
        CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE, NULL,
        p->g->ctx, 0, NULL};
    if ((rc = p->api.cuptiProfilerGetCounterAvailability(&ca)))
        return fail(p, rc, "cuptiProfilerGetCounterAvailability");
    if (!(p->avail = malloc(ca.counterAvailabilityImageSize)))
        return 0;
    ca.pCounterAvailabilityImage = p->avail;
    if ((rc = p->api.cuptiProfilerGetCounterAvailability(&ca)))
        return fail(p, rc, "cuptiProfilerGetCounterAvailability");
    char dropped[PROF_NOTE_MAX] = "";
    if (!build_set(p, cn.pChipName, dropped, sizeof dropped) ||
        !config_image(p))
        return 0;
    snprintf(p->note, sizeof p->note, "range profiler on %s: %d metrics, %d "
             "passes per launch%s%s", cn.pChipName, p->n,
             p->passes, dropped[0] ? "; not on this chip: " : "", dropped);
    return 1;
}

int prof_new(const struct gpu *g, struct prof **out)
{
    struct prof *p = calloc(1, sizeof *p);
    if (!p)
        return KEVO_ENOMEM;
    p->g = g;
    p->ok = start(p);
    *out = p;
    return KEVO_OK;
}

void prof_free(struct prof *p)
{
    if (!p)
        return;
    if (p->host) {
        CUpti_Profiler_Host_Deinitialize_Params hd = {
            CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, NULL,
            p->host};
        p->api.cuptiProfilerHostDeinitialize(&hd);
    }
    if (p->inited) {
        CUpti_Profiler_DeInitialize_Params pd = {
            CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, NULL};
        p->api.cuptiProfilerDeInitialize(&pd);
    }
    free(p->config);
    free(p->avail);
    free(p);
}

int prof_available(const struct prof *p)
{
    return p->ok;
}

const char *prof_note(const struct prof *p)
{
    return p->note;
}

/* ---- one call */

struct session {
    CUpti_RangeProfiler_Object *obj;
    uint8_t *data;                 /* counter data image */
    size_t size;
};

/* Enables the range profiler and configures a session for n ranges. */
static CUptiResult session_open(struct prof *p, int n, int user,
                                struct session *s, const char **call)
{
    CUpti_RangeProfiler_Enable_Params en = {
        CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE, NULL, p->g->ctx, NULL};
    CUptiResult rc = p->api.cuptiRangeProfilerEnable(&en);
    *call = "cuptiRangeProfilerEnable";
    if (rc)
        return rc;
    s->obj = en.pRangeProfilerObject;
    CUpti_RangeProfiler_GetCounterDataSize_Params ds = {
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE, NULL,
        s->obj, p->names, (size_t)p->n, (size_t)n, (uint32_t)n, 0};
    *call = "cuptiRangeProfilerGetCounterDataSize";
    if ((rc = p->api.cuptiRangeProfilerGetCounterDataSize(&ds)))
        return rc;
    if (!(s->data = calloc(1, ds.counterDataSize)))
        return CUPTI_ERROR_OUT_OF_MEMORY;
    s->size = ds.counterDataSize;
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci = {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE,
        NULL, s->obj, s->size, s->data};
    *call = "cuptiRangeProfilerCounterDataImageInitialize";
    if ((rc = p->api.cuptiRangeProfilerCounterDataImageInitialize(&ci)))
        return rc;
    CUpti_RangeProfiler_SetConfig_Params sc = {
        CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE, NULL, s->obj,
        p->config_size, p->config, s->size, s->data, CUPTI_AutoRange,
        user ? CUPTI_UserReplay : CUPTI_KernelReplay, (size_t)n, 1, 1, 0, 1};
    *call = "cuptiRangeProfilerSetConfig";
    return p->api.cuptiRangeProfilerSetConfig(&sc);
}

static void session_close(struct prof *p, struct session *s)
{
    if (s->obj) {
        CUpti_RangeProfiler_Disable_Params di = {
            CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE, NULL, s->obj};
        p->api.cuptiRangeProfilerDisable(&di);
    }
    free(s->data);
}

/* Per pass: pre (outside the range), start, the launches, stop; until
 * every pass is submitted; then decode. */
static CUptiResult collect(struct prof *p, struct session *s, CUstream st,
                           prof_launch_fn pre, prof_launch_fn launch,
                           void *ud, int *lrc, const char **call)
{
    CUptiResult rc = CUPTI_SUCCESS;
    for (int pass = 0; pass <= p->passes + 1; pass++) {
        if (pre && ((*lrc = pre(ud)) ||
                    (p->g->cu->cuStreamSynchronize(st) &&
                     (*lrc = KEVO_ECUDA))))
            return CUPTI_SUCCESS;
        CUpti_RangeProfiler_Start_Params sp = {
            CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, NULL, s->obj};
        *call = "cuptiRangeProfilerStart";
        if ((rc = p->api.cuptiRangeProfilerStart(&sp)))
            return rc;
        *lrc = launch(ud);
        CUpti_RangeProfiler_Stop_Params so = {
            CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE, NULL, s->obj, 0, 0,
            0};
        *call = "cuptiRangeProfilerStop";
        if ((rc = p->api.cuptiRangeProfilerStop(&so)) || *lrc)
            return rc;
        if (so.isAllPassSubmitted)
            break;
    }
    if (p->g->cu->cuStreamSynchronize(st)) {
        *lrc = KEVO_ECUDA;
        return CUPTI_SUCCESS;
    }
    CUpti_RangeProfiler_DecodeData_Params dd = {
        CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE, NULL, s->obj, 0};
    *call = "cuptiRangeProfilerDecodeData";
    return p->api.cuptiRangeProfilerDecodeData(&dd);
}

/* The values of every range into kp (range i = launch i). */
static CUptiResult evaluate(struct prof *p, struct session *s, int n,
                            struct kprof *kp, const char **call)
{
    CUpti_RangeProfiler_GetCounterDataInfo_Params gi = {
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE, NULL,
        s->data, s->size, 0};
    *call = "cuptiRangeProfilerGetCounterDataInfo";
    CUptiResult rc = p->api.cuptiRangeProfilerGetCounterDataInfo(&gi);
    if (rc)
        return rc;
    int got = (int)gi.numTotalRanges < n ? (int)gi.numTotalRanges : n;
    double v[PM_COUNT];
    for (int r = 0; r < got; r++) {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE, NULL,
            p->host, s->data, s->size, (size_t)r, p->names, (size_t)p->n, v};
        *call = "cuptiProfilerHostEvaluateToGpuValues";
        if ((rc = p->api.cuptiProfilerHostEvaluateToGpuValues(&ev)))
            return rc;
        for (int k = 0; k < p->n; k++)
            kp->l[r].m[p->which[k]] = v[k];
    }
    kp->n = got;
    return CUPTI_SUCCESS;
}

int prof_run(struct prof *p, CUstream st, int n, const char *const *kernels,
             prof_launch_fn pre, prof_launch_fn launch, void *ud,
             struct kprof *kp)
{
    prof_init(kp);
    if (!p->ok) {
        snprintf(kp->note, sizeof kp->note, "%s", p->note);
        return KEVO_OK;
    }
    if (n < 1 || n > TPL_MAX_LAUNCHES) {
        snprintf(kp->note, sizeof kp->note, "cannot profile %d launches", n);
        return KEVO_OK;
    }
    long long t0 = fs_now_ns();
    if (p->g->cu->cuStreamSynchronize(st)) { /* inputs, poison, flush */
        prof_set_unavailable(kp, "the stream failed before profiling");
        return KEVO_ECUDA;
    }
    struct session s = {NULL, NULL, 0};
    const char *call = "";
    /* user replay unless KEVO_PROF_REPLAY=kernel (see the top) */
    const char *mode = getenv("KEVO_PROF_REPLAY");
    int lrc = KEVO_OK, user = !(mode && !strcmp(mode, "kernel"));
    CUptiResult rc = session_open(p, n, user, &s, &call);
    if (rc && user) { /* user replay refused: kernel replay */
        session_close(p, &s);
        memset(&s, 0, sizeof s);
        user = 0;
        rc = session_open(p, n, user, &s, &call);
    }
    if (!rc)
        rc = collect(p, &s, st, user ? pre : NULL, launch, ud, &lrc, &call);
    if (!rc && !lrc)
        rc = evaluate(p, &s, n, kp, &call);
    session_close(p, &s);
    if (lrc) {
        prof_set_unavailable(kp, "a launch failed while profiling");
        return lrc;
    }
    if (rc) { /* the profiler refuses now (another one attached since?):
                 no more tries in this process */
        fail(p, rc, call);
        p->ok = 0;
        prof_set_unavailable(kp, "%s", p->note);
        return KEVO_OK;
    }
    kp->available = 1;
    kp->passes = p->passes;
    kp->cost_ms = (double)(fs_now_ns() - t0) / 1e6;
    for (int i = 0; i < n; i++)
        snprintf(kp->l[i].kernel, sizeof kp->l[i].kernel, "%s", kernels[i]);
    snprintf(kp->note, sizeof kp->note, "%d launch%s, %s replay; %s", kp->n,
             kp->n == 1 ? "" : "es", user ? "user" : "kernel", p->note);
    if (kp->n < n)
        snprintf(kp->note, sizeof kp->note, "%d of %d launches profiled "
                 "(the profiler returned fewer ranges)", kp->n, n);
    return KEVO_OK;
}
