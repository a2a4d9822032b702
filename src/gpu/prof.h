/*
 * prof.h - hardware profile of one candidate call with the CUPTI Range
 * Profiler (libcupti.so.13, dlopened): every launch of the call is its own
 * range (auto range), replayed once per pass by kevo from the same state
 * and a cold L2 (user replay; KEVO_PROF_REPLAY=kernel: by CUPTI),
 * outside any timed window. The metric set and its pass count
 * are in prof.c's top comment; the numbers land in a struct kprof
 * (core/profile.h).
 *
 * When the counters cannot be read (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
 * NVreg_RestrictProfilingToAdminUsers; another profiler attached; a
 * driver or GPU without the API), prof_new still succeeds: prof_note says
 * why once, and every prof_run returns a profile marked not available.
 *
 * One prof per process, on the thread that owns the context. Not
 * thread-safe.
 */
#ifndef KEVO_PROF_H
#define KEVO_PROF_H

#include <stddef.h>

#include <cuda.h>

#include "gpu.h"
#include "profile.h"
#include "status.h"

struct prof;

/*
 * Sets up the profiler for g's context: loads CUPTI, checks counter
 * availability, builds the configuration of the fixed metric set (metrics
 * the chip does not know are dropped and named in the note). Fails only
 * without memory; *out is new, free with prof_free().
 */
int prof_new(const struct gpu *g, struct prof **out) KEVO_WUR;
void prof_free(struct prof *p);

/* 1 when profiles can be taken. */
int prof_available(const struct prof *p);
/* "range profiler: 29 metrics, 38 passes per launch" or why not. */
const char *prof_note(const struct prof *p);

/* Enqueues every launch of one call on the context's stream; returns a
 * status (KEVO_ECUDA when a launch failed). */
typedef int (*prof_launch_fn)(void *ud);

/*
 * Profiles one call: launch(ud) enqueues n launches (n <= TPL_MAX_LAUNCHES)
 * whose kernel names are kernels[0..n); the caller has drawn the inputs.
 * pre(ud) (may be NULL) runs before every pass of a user replay, outside
 * the profiled range: it restores what a pass changed and empties the L2
 * (user replay, the default; kernel replay restores memory itself).
 * Fills *kp (prof_init'ed here). A profiler that refuses (at start or now)
 * gives KEVO_OK with kp->available = 0 and a note; a launch failure is
 * its status, with kp unavailable and the reason in the note.
 */
int prof_run(struct prof *p, CUstream s, int n, const char *const *kernels,
             prof_launch_fn pre, prof_launch_fn launch, void *ud,
             struct kprof *kp) KEVO_WUR;

/*
 * The note for CUPTI result code rc from a profiler call named call
 * ("cuptiProfilerInitialize: insufficient privileges ..."), with what to
 * do about it for the known causes (35 restricted counters, 39 another
 * profiler, 33/41/42/43 unsupported devices). Public for the tests: a
 * restricted GPU is simulated by giving the code here, or by setting
 * KEVO_TEST_PROF_ERROR=<code> in the worker's environment.
 */
void prof_error_note(int rc, const char *call, char *out, size_t cap);

#endif
