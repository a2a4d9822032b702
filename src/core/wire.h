/*
 * wire.h - the GPU worker's protocol: every message kind (the frame type of
 * util/wmsg.c) and its body, with one encoder and one decoder each, used by
 * both ends (gpu/gpueval.c and gpu/worker_client.c on the coordinator's
 * side, gpu/worker.c in the worker). Neither end builds or reads a body by
 * key itself.
 *
 *   init       the problem (a file problem's exact text too), dtype,
 *              shape, harness seed, device ordinal, whether to use CUPTI;
 *   job        a candidate's launch plan (tpl_plan) and how to treat it:
 *              whether its template declares itself nondeterministic, the
 *              best time so far (for cascades), and its sequence number;
 *   confirm    two plans (or one against the problem's baseline) for an
 *              interleaved re-measurement, the cubins back to back;
 *   ready      the worker's environment: device, versions, timer,
 *              baselines, NVML sample (it becomes the run's manifest
 *              "environment", so its keys are a stored format too);
 *   progress   the phase the worker entered (for time budgets);
 *   result     the eval_result, in the journal's own codec (core/record.c),
 *              so a result has one JSON shape from the GPU to the journal;
 *   confirmed  what confirm measured, or why it could not;
 *   fatal      why the worker gives up (it exits after it);
 *   profile    a profile request (its body is a job), answered by
 *   profiled   the candidate's hardware profile in the journal's codec
 *              (core/profile.c).
 *
 * Decoders borrow strings from the object they read only where a field is
 * a `const char *`; everything else is copied.
 */
#ifndef KEVO_WIRE_H
#define KEVO_WIRE_H

#include <cJSON.h>

#include "eval.h"
#include "problem.h"
#include "profile.h"
#include "record.h"
#include "status.h"
#include "tpl.h"

/*
 * The message kinds, both directions (-> to the worker, <- from it); one
 * row each in wire.c's kinds[]. Adding one: a value here, a row there, a
 * body struct with its _json/_parse pair below and a round trip in
 * tests/unit/test_wire.c.
 */
enum wire_kind {
    WM_INIT = 1,   /* -> struct wire_init */
    WM_JOB,        /* -> struct wire_job, + the cubin */
    WM_CONFIRM,    /* -> struct wire_confirm, + both cubins */
    WM_BASELINE,   /* -> no body: re-measure baselines; answer WM_READY */
    WM_QUIT,       /* -> no body */
    WM_PROFILE,    /* -> struct wire_job, + the cubin: profile it */
    WM_READY = 16, /* <- struct wire_ready */
    WM_PROGRESS,   /* <- struct wire_progress */
    WM_RESULT,     /* <- struct eval_result + evidence (wire_result_*) */
    WM_CONFIRMED,  /* <- struct wire_confirmed */
    WM_FATAL,      /* <- struct wire_fatal; the worker exits after it */
    WM_PROFILED    /* <- {profile: {...}} (wire_profile_*) */
};

/* "init", "job", ...; "?" for a type that is no kind. */
const char *wire_kind_name(int type);
/* Whether a kind carries a JSON body (WM_BASELINE and WM_QUIT do not: they
 * are sent as "{}", or empty). */
int wire_kind_has_body(int type);

/* ---- init */

struct wire_init {
    const char *problem;      /* its name (borrowed) */
    const char *problem_file; /* a file problem's path and exact text, */
    const char *problem_text; /* parsed again by the worker; NULL else */
    enum dtype dtype;
    struct shape shape;
    uint64_t seed;            /* harness seed (sent as 16 hex digits) */
    int device;               /* CUDA ordinal */
    int cupti;                /* 0: time with events (KEVO_NO_CUPTI) */
    int profiler;             /* 1: the profiler's worker (worker.h 11):
                                 profiles only, no baselines */
};

/* New object (NULL without memory). */
cJSON *wire_init_json(const struct wire_init *m);
/* KEVO_EPARSE when a member is missing or malformed (a shape of 1 to
 * PROB_MAX_DIMS positive sizes); device 0, cupti 1 and profiler 0 when
 * absent. Whether the problem exists and the shape fits it is the
 * worker's to check. */
int wire_init_parse(const cJSON *o, struct wire_init *m) KEVO_WUR;

struct wire_job {
    long long seq;             /* the evaluator's candidate number */
    struct launch_plan plan;
    int nondet;                /* the template says it is nondeterministic */
    double best_ns;            /* best median so far (0 = none) */
};

/* New object (NULL without memory). */
cJSON *wire_job_json(const struct wire_job *j);
/* KEVO_EPARSE for a malformed job (bad launch count or dims, tensor map
 * count, missing kernel names). */
int wire_job_parse(const cJSON *o, struct wire_job *j) KEVO_WUR;

/* ---- confirm */

struct wire_confirm {
    int pairs;                 /* interleaved pairs asked for (0: absent) */
    int vs_baseline;           /* a against the problem's first baseline */
    struct wire_job a, b;      /* b unused with vs_baseline */
    uint64_t a_cubin_len;      /* bytes of the blob that are a's cubin */
};

cJSON *wire_confirm_json(const struct wire_confirm *m);
/* KEVO_EPARSE for a bad plan, or no b without vs_baseline. */
int wire_confirm_parse(const cJSON *o, struct wire_confirm *m) KEVO_WUR;

/* ---- confirmed */

struct wire_confirmed {
    char error[512];           /* why it was not measured; "" = measured */
    double a_median_ns, b_median_ns;
    double ratio;              /* median over pairs of b time / a time */
    double noise;              /* about two standard errors of it */
    int pairs;
};

cJSON *wire_confirmed_json(const struct wire_confirmed *m);
int wire_confirmed_parse(const cJSON *o, struct wire_confirmed *m) KEVO_WUR;

/* ---- ready */

/* The device facts the worker reports (gpu.h struct gpu_info's). */
struct wire_device {
    char name[128];            /* "NVIDIA H100 80GB HBM3" */
    char uuid[48];             /* "GPU-xxxxxxxx-..." */
    char arch[16];             /* NVRTC arch, "sm_90a" */
    int ordinal, sms;
    int64_t total_mem;         /* bytes */
    int64_t l2_bytes;
    int clock_khz, mem_clock_khz, bus_width_bits;
    int64_t smem_optin;        /* bytes of dynamic shared memory, opt-in */
    int driver_version;        /* e.g. 13000 */
    double peak_bw;            /* bytes/s */
    double peak_fp32, peak_tensor16; /* FLOP/s */
};

/* One NVML sample (gpu.h struct gpu_nvml's). */
struct wire_nvml {
    int temp_c, power_limit_mw, power_mw;
    int sm_clock_mhz, mem_clock_mhz, app_sm_clock_mhz;
    long long throttle;        /* clocks event reasons bitmask */
};

/* One output's own tolerance (struct wire_tolerance's out[]). */
struct wire_tol_out {
    char name[64];             /* the output's ABI name */
    double atol, rtol;
    double used;               /* as wire_tolerance's, for this output */
    char source[32];           /* "calibrated", "given", "exact", "dtype" */
};

/* The tolerance the worker checks with (after baselines, which may have
 * calibrated it): |out - ref| <= atol + rtol * |ref|, one pair for every
 * output (n_out 0: built-in and .problem problems, one-output modules,
 * manifests before per-output tolerances) or one per output (out[]). */
struct wire_tolerance {
    double atol, rtol;         /* n_out 0: every output's */
    double used;               /* worst error of the trusted run-dtype
                                  implementation / tolerance; 0: unknown */
    double margin;             /* tolerance / that error; 0: unknown */
    char source[32];           /* "calibrated", "given", "exact", "dtype"
                                  or, with out[], "mixed" */
    char who[32];              /* whose run-dtype result measured "used":
                                  "torch"; "" */
    int n_out;                 /* outputs in out[]; 0: atol/rtol for all */
    struct wire_tol_out out[PROB_MAX_BUFS]; /* in declared order */
};

struct wire_ready {
    struct wire_device device;
    int device_count;          /* devices visible; -1: unknown, not sent */
    char timer[32];            /* "cupti" or "events" */
    char timer_note[256];      /* why events ("" with CUPTI) */
    int cupti_version, cublas_version;
    char cublas_note[256];     /* why cuBLAS is missing ("" if loaded) */
    char nvrtc_version[32];
    int n_baselines;
    struct record_baseline baselines[PROB_MAX_BASELINES];
    char baseline_note[256];   /* what a baseline could not do; "" */
    int has_tolerance;         /* the problem's tolerance below is sent */
    struct wire_tolerance tolerance;
    int has_nvml;              /* nvml below was sampled */
    struct wire_nvml nvml;
};

cJSON *wire_ready_json(const struct wire_ready *m);
/* The tolerance object's members (atol, rtol, used, margin, source, who;
 * "outputs": [{name, atol, rtol, used, source}] when n_out >= 2, a single
 * output's folded into the object's own members) into o, and back (never
 * fails: missing numbers are 0; an object without "outputs", as every
 * manifest before per-output tolerances, gets n_out 0). */
void wire_tolerance_put(cJSON *o, const struct wire_tolerance *t);
void wire_tolerance_get(const cJSON *o, struct wire_tolerance *t);
/* When p has a tolerance per output (problem.h out_tolerance): each
 * output's name, pair, share used and source into t->out[] (n_out), and
 * t->source "mixed" when their sources differ; else leaves t alone. */
void wire_tolerance_outputs(struct wire_tolerance *t, const struct problem *p,
                            const struct shape *s, enum dtype dt);
/* Output k's tolerance (k < n_out) as a one-pair tolerance (margin and
 * who shared) into *one. */
void wire_tolerance_one(const struct wire_tolerance *t, int k,
                        struct wire_tolerance *one);
/* How a one-pair tolerance was set: "calibrated: torch's own fp32 result
 * uses 0.06 of it, margin 16x", "given by the user; ...", "exact: an
 * integer output", or "" (by dtype); dtype the run's, "the reference's"
 * when who is "". */
void wire_tolerance_note(const struct wire_tolerance *t, const char *dtype,
                         char *out, size_t cap);
/* "atol 0.00027 rtol 4.8e-07 (NOTE)"; with out[]: "out0 atol ... (NOTE);
 * out1 atol ... (NOTE)". */
void wire_tolerance_text(const struct wire_tolerance *t, const char *dtype,
                         char *out, size_t cap);
/* KEVO_EPARSE when there is no device object; other members default. */
int wire_ready_parse(const cJSON *o, struct wire_ready *m) KEVO_WUR;

/* ---- progress, fatal */

struct wire_progress {
    char phase[64];            /* "load", "check A", "timing", ... */
    int budget_ms;             /* (optional) the phase may take this long,
                                  when more than its usual budget (a
                                  torch.compile); 0: the usual */
};

cJSON *wire_progress_json(const struct wire_progress *m);
int wire_progress_parse(const cJSON *o, struct wire_progress *m) KEVO_WUR;

struct wire_fatal {
    char reason[512];
    int enodev;                /* no usable GPU (not a harness failure) */
};

cJSON *wire_fatal_json(const struct wire_fatal *m);
int wire_fatal_parse(const cJSON *o, struct wire_fatal *m) KEVO_WUR;

/* ---- result */

/* A result as an object: record_put_result with the evidence given as an
 * object (taken over; may be NULL) instead of r->evidence_json text. */
cJSON *wire_result_json(const struct eval_result *r, cJSON *evidence);
/* record_get_result of a worker's answer; KEVO_EPARSE if malformed. */
int wire_result_parse(const cJSON *o, struct eval_result *r) KEVO_WUR;

/* A profile answer as an object {"profile": {...}} (NULL without
 * memory). */
cJSON *wire_profile_json(const struct kprof *p);
/* prof_parse of a worker's profile answer; KEVO_EPARSE if malformed. */
int wire_profile_parse(const cJSON *o, struct kprof *p) KEVO_WUR;

#endif
