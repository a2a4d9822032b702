/*
 * tmr.h - GPU timing of repetitions: CUPTI activity records when possible,
 * CUDA events otherwise, and which of the two was used.
 *
 * CUPTI (libcupti.so.13, dlopened) gives the GPU start/end of every kernel
 * (CONCURRENT_KERNEL records; KERNEL would serialize the GPU). The caller
 * enqueues, per repetition: an L2-flush kernel named "kevo_flush", then
 * tmr_rep_begin, the timed kernels, tmr_rep_end. A repetition's time is
 * from the first timed kernel's start to the last one's end, where the
 * timed kernels are the records between two flush records whose names do
 * not start with "kevo_" (harness kernels). With events, the pair
 * recorded by rep_begin/rep_end is used; the flush in front keeps the GPU
 * busy so the start event does not include launch latency.
 *
 * One tmr per process (CUPTI has one client per process). Not thread-safe.
 */
#ifndef KEVO_TMR_H
#define KEVO_TMR_H

#include <stddef.h>

#include <cuda.h>

#include "gpu.h"
#include "status.h"

#define TMR_MAX_REPS 128 /* repetitions between two collects */

struct tmr;

/*
 * Starts timing on stream s of g. With want_cupti, CUPTI is tried first;
 * when it is missing or another CUPTI client holds the process (error 39,
 * e.g. under ncu), events are used and tmr_note says why. *out is new;
 * free with tmr_free().
 */
int tmr_new(const struct gpu *g, CUstream s, int want_cupti,
            struct tmr **out, char *err, size_t errcap) KEVO_WUR;
void tmr_free(struct tmr *t);
/* A handle of libcupti.so.13 (dlopen: the CUDA toolkit's two usual
 * folders, then the loader's path), or NULL; for the timer and the range
 * profiler (prof.c) alike. Never closed. */
void *tmr_cupti_open(void);

/* "cupti" or "events". */
const char *tmr_kind(const struct tmr *t);
/* Why events are used ("" with CUPTI). */
const char *tmr_note(const struct tmr *t);
/* cuptiGetVersion (0 when CUPTI is not loaded). */
unsigned tmr_cupti_version(const struct tmr *t);

/* Stops / restarts CUPTI kernel records (no-ops with events), e.g.
 * around a range-profiler session (prof.h), whose replays are no
 * repetitions. Discard after resuming. */
int tmr_pause(struct tmr *t) KEVO_WUR;
int tmr_resume(struct tmr *t) KEVO_WUR;

/* Forgets every record and repetition so far. The caller has synchronized
 * the stream. */
int tmr_discard(struct tmr *t) KEVO_WUR;
/* Marks the start / end of one repetition (enqueue order). */
int tmr_rep_begin(struct tmr *t) KEVO_WUR;
int tmr_rep_end(struct tmr *t) KEVO_WUR;

/*
 * After the caller synchronized the stream: writes the duration of each
 * repetition since the last collect or discard into ns[0..*n) (n <= max)
 * and, when nkern is not NULL, the number of timed kernels in each (0 with
 * events). Returns KEVO_ECUDA with a reason in tmr_errmsg when records are
 * missing or carry no timestamps.
 */
int tmr_collect(struct tmr *t, double *ns, int *nkern, int max,
                int *n) KEVO_WUR;

const char *tmr_errmsg(const struct tmr *t);

#endif
