/*
 * profile.h - a candidate's hardware profile (what bounds it), as numbers
 * per launch, with one JSON codec and one deterministic diagnosis text.
 * The GPU worker fills it (gpu/prof.c, CUPTI range profiler), the journal
 * keeps it ("profile" records), the prompts and the report read it. This
 * module knows no CUPTI: the metric names here are the keys kevo uses;
 * gpu/prof.c maps them to the profiler's metric names.
 *
 * A profile that could not be taken (counters restricted to admins,
 * another profiler attached, a driver without the API) is a profile with
 * available = 0 and a note saying why: the run goes on, the prompts say
 * "not available".
 */
#ifndef KEVO_PROFILE_H
#define KEVO_PROFILE_H

#include <stddef.h>

#include <cJSON.h>

#include "status.h"
#include "tpl.h"

/* The fixed metric set (keys in the JSON "metrics" object of a launch). */
enum prof_metric {
    PM_DURATION_NS,      /* gpu time of the launch, ns */
    PM_DRAM_READ,        /* bytes read from DRAM */
    PM_DRAM_WRITE,       /* bytes written to DRAM */
    PM_DRAM_PCT,         /* DRAM throughput, % of peak (elapsed) */
    PM_SM_PCT,           /* SM throughput, % of peak (elapsed) */
    PM_TENSOR_GMMA_PCT,  /* tensor pipe, gmma, % of active peak (no such
                            metric on GH100: not collected there) */
    PM_TENSOR_HMMA_PCT,  /* tensor pipe (mma.sync; wgmma on GH100), % of
                            active peak */
    PM_FMA_PCT,          /* FMA pipe, % of active peak */
    PM_ALU_PCT,          /* ALU pipe, % of active peak */
    PM_OCC_PCT,          /* achieved occupancy: active warps, % of max */
    PM_L2_HIT_PCT,       /* L2 sector hit rate, % */
    PM_SHARED_CONFLICTS, /* shared-memory bank conflicts (ld + st) */
    PM_ISSUE_PCT,        /* issue slots busy, % of active peak */
    PM_STALL_FIRST,      /* warp-stall counters follow (warps x cycles) */
    PM_STALL_LONG_SB = PM_STALL_FIRST,
    PM_STALL_SHORT_SB,
    PM_STALL_BARRIER,
    PM_STALL_MIO,
    PM_STALL_LG,
    PM_STALL_WAIT,
    PM_STALL_MATH,
    PM_STALL_NOT_SELECTED,
    PM_STALL_MEMBAR,
    PM_STALL_NO_INST,
    PM_STALL_BRANCH,
    PM_STALL_DISPATCH,
    PM_STALL_SLEEPING,
    PM_STALL_TEX,
    PM_STALL_DRAIN,
    PM_STALL_MISC,
    PM_COUNT
};

#define PROF_NOTE_MAX 256

/* One launch of the candidate, profiled as its own range. */
struct prof_launch {
    char kernel[64];              /* from the launch plan */
    double m[PM_COUNT];           /* metric values; NAN = not collected */
    int regs;                     /* registers per thread */
    int smem_bytes;               /* static + dynamic shared memory/block */
    int threads;                  /* per block */
    int blocks_per_sm;            /* resident blocks per SM (0 = ?) */
    double theo_occ_pct;          /* theoretical occupancy, % of max warps */
    char limiter[32];             /* what limits blocks/SM: "registers",
                                     "shared memory", "warps", "blocks" */
};

struct kprof {
    int available;                /* 0: not taken, note says why */
    char note[PROF_NOTE_MAX];     /* why not, or how (passes, replay) */
    int passes;                   /* replays per launch the set needed */
    double cost_ms;               /* host wall time of the profile (the
                                     first also pays the start of the
                                     profiler's worker: worker.h 11) */
    int n;                        /* launches */
    struct prof_launch l[TPL_MAX_LAUNCHES];
};

/* The JSON key of metric m ("duration_ns", "dram_pct", "stall_barrier"). */
const char *prof_metric_key(enum prof_metric m);
/* Human name of stall metric m ("long scoreboard"); NULL otherwise. */
const char *prof_stall_name(enum prof_metric m);

/* An empty profile (every metric NAN, n = 0, not available). */
void prof_init(struct kprof *p);
/* Sets p to "not available" with the reason (formatted). */
void prof_set_unavailable(struct kprof *p, const char *fmt, ...)
    KEVO_PRINTF(2, 3);

/* How the notes of the two reasons that stop every later profile of a
 * run begin: the counters cannot be read (prof.c), or the profiler's own
 * worker process cannot run (gpu/gpueval.c, gpu/worker.h 11). */
#define PROF_NO_COUNTERS "counters not available"
#define PROF_NO_WORKER "the profiler's worker did not start"
/* 1 if p is not available for one of those reasons. */
int prof_unavailable_everywhere(const struct kprof *p);

/* New JSON object of p (NULL without memory); metrics that were not
 * collected are left out. */
cJSON *prof_json(const struct kprof *p);
/* Reads a profile object back; KEVO_EPARSE (err names the member) when it
 * is not one. */
int prof_parse(const cJSON *o, struct kprof *p, char *err, size_t errcap)
    KEVO_WUR;

/* What the diagnosis knows of the problem besides the counters. */
struct prof_ctx {
    double bytes_needed;          /* minimum DRAM bytes per call (0 = ?) */
    double flops;                 /* FLOP per call (0 = none counted) */
};
/* The context of problem p at shape s and dtype dt (its min_bytes and
 * flops hooks; 0 where it has none). */
struct prof_ctx prof_ctx_of(const struct problem *p, const struct shape *s,
                            enum dtype dt);

/*
 * The diagnosis: a short deterministic text from the numbers, e.g.
 * "memory-bound: DRAM 91 % of peak, 1.00 bytes moved per byte needed;
 * stalls: long scoreboard 48 %, barrier 21 %". Writes "not available:
 * <note>" for an unavailable profile. Always NUL-terminates out.
 */
void prof_diagnose(const struct kprof *p, const struct prof_ctx *c, char *out,
                   size_t cap);

/*
 * The raw metrics of launch l in one line, e.g. "duration 76.3 us; DRAM
 * read 67.1 MB, written 50.3 MB, 45.9 % of peak; SM 42.2 %; ...; stalls
 * (share): long scoreboard 48.0 %, ...". Always NUL-terminates out.
 */
void prof_launch_text(const struct prof_launch *l, char *out, size_t cap);

/* Index of the launch that took the most time (0 when none is timed). */
int prof_main_launch(const struct kprof *p);

#endif
