/*
 * localq.h - rank 0's own evaluator seen the way a serving rank is (one
 * queue, several proxies in the fan-out), so that it too holds several
 * candidates at once and compiles the queued ones while its GPU measures.
 * One thread owns the evaluator: between two evaluations it starts the
 * compile of every newly queued candidate (gpueval_prefetch, when the
 * evaluator is the GPU one) and then evaluates the oldest. Built only
 * with `make MPI=1`.
 */
#ifndef KEVO_LOCALQ_H
#define KEVO_LOCALQ_H

#include <stddef.h>

#include "eval.h"
#include "status.h"

/*
 * Fills out[0..depth) with the queue's proxies over inner (taken over:
 * destroyed with the last proxy, or here on failure). Each proxy has at
 * most one batch in flight and may be driven from its own thread; the
 * results of a batch reach its callback in order, from that thread.
 * Proxy 0 offers inner's confirm, admit and environment (the fan-out
 * reads sub 0's); call them only while no batch is in flight.
 */
int localq_new(struct evaluator inner, int depth, struct evaluator *out)
    KEVO_WUR;

#endif
