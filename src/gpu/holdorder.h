/*
 * holdorder.h - the order a fan-out hands a batch to sub-evaluators that
 * compile what they hold (MPI ranks): the candidates whose binary already
 * exists spread evenly among those that need a compile.
 *
 * Why: a rank compiles a candidate only once it holds it, in one of its
 * queue slots, and measures whichever of its candidates is compiled
 * first. Handed out in the cost model's order (ccost.h), a generation's
 * bred children came first and its fill (launch-only neighbours of
 * measured points: their binary is the point's) last, so a rank's GPU
 * waited for compiles while the bred children were out and its compilers
 * waited while the fill was measured (softmax fp32 4096^2 on two H200s,
 * mpirun -np 2: GPUs idle 53 %, 13.7 of 32 compilers busy on average;
 * bench/results/2026-11-29-h200-s23, call 6). Spread among them, a slot
 * that holds a fill candidate frees again within a measurement, and the
 * GPU measures while the compilers work.
 *
 * Which need no compile: those whose source (its hash) some sub has
 * already answered for (learn). On one host the ranks share the cubin
 * cache; a rank on another host compiles such a candidate itself, which
 * costs time, never a result. The order changes which rank measures what
 * and when, never a result's place or the engine's decisions.
 * Thread-safe (one mutex): learn runs on the subs' threads.
 */
#ifndef KEVO_HOLDORDER_H
#define KEVO_HOLDORDER_H

#include "ccost.h"
#include "eval.h"

struct holdorder;

/* A new order over cost model m (owned; NULL: index order within each
 * kind); NULL when out of memory (m is freed). */
struct holdorder *holdorder_new(struct ccost *m);
void holdorder_free(struct holdorder *h);
/* fanout_opts.order (ud: the holdorder): the cost model's order, with the
 * candidates that need no compile spread evenly among the others, which
 * keep their order and lead (a compile starts first). KEVO_OK or
 * KEVO_ENOMEM (order then the cost model's). */
int holdorder_order(void *ud, const struct candidate *const *cands, int n,
                    int *order);
/* fanout_opts.built (ud: the holdorder): 1 if c's source has a binary
 * (learn saw a result of it). */
int holdorder_built(void *ud, const struct candidate *c);
/* fanout_opts.learn (ud: the holdorder): c's source has a binary now (any
 * result but a deferred one), and its compile time teaches the model. */
void holdorder_learn(void *ud, const struct candidate *c,
                     const struct eval_result *r);

#endif
