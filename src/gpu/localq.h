/*
 * localq.h - one evaluator behind a queue, seen as several proxies in a
 * fan-out, so that it holds several candidates at once and compiles the
 * queued ones while its GPU measures. MPI's rank 0 drives its own GPU this
 * way, as a serving rank is driven (src/mpi/mpijob.c). One thread owns the
 * evaluator: between two evaluations it starts the compile of every newly
 * queued candidate (hooks.prefetch) and then evaluates the oldest batch
 * whose candidates are all compiled (hooks.ready), waiting for one with
 * hooks.poll (else taking the oldest).
 */
#ifndef KEVO_LOCALQ_H
#define KEVO_LOCALQ_H

#include <stddef.h>

#include "eval.h"
#include "status.h"

/* What the queue knows of compiles (both optional; the GPU evaluator's
 * are gpueval_prefetch and gpueval_ready, called with inner.self). */
struct localq_hooks {
    /* starts compiling cands[0..n) */
    void (*prefetch)(void *self, const struct candidate *const *cands,
                     int n);
    /* 1 if c can be evaluated without waiting for its compile */
    int (*ready)(void *self, const struct candidate *c);
    /* notes finished compiles without waiting (0, or an error: the
     * compiler is broken); without it the oldest job is measured when
     * none is ready */
    int (*poll)(void *self);
};

/*
 * Fills out[0..depth) with the queue's proxies over inner (taken over:
 * destroyed with the last proxy, or here on failure). Each proxy has at
 * most one batch in flight and may be driven from its own thread; the
 * results of a batch reach its callback in order, from that thread.
 * Batches are evaluated one at a time: the first queued one whose
 * candidates are all ready (waiting for one with hooks.poll; without it,
 * or once poll fails, the first queued). Proxy 0 offers inner's
 * confirm, admit, profile, profile_soon and environment (the fan-out
 * reads sub 0's); call them only while no batch is in flight. hooks may
 * be NULL.
 */
int localq_new(struct evaluator inner, int depth,
               const struct localq_hooks *hooks, struct evaluator *out)
    KEVO_WUR;

/* Batches queued and not yet taken for evaluation (any proxy's). */
int localq_waiting(const struct evaluator *proxy);

#endif
