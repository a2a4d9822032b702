/*
 * ccost.h - the compile-cost model: how long NVRTC will take for a
 * candidate, learned from the compiles seen so far, so that a batch's
 * long compiles start early.
 *
 * Why: a generation's candidates are compiled by a pool of P processes
 * and the next generation is bred only once all are measured. In
 * submission (index) order, one of the longest compiles (5 s for an fp32
 * GEMM point against a median of 1.6 s) often starts last, and the
 * generation waits for it with the other compilers idle. Results must
 * still reach the engine in index order (that is when it journals, shows
 * progress and notices --time or Ctrl-C), so the order interleaves: two
 * candidates in index order, then the longest one not yet placed, and so
 * on. Replaying the compile times recorded on 2 H200s (bench/results/
 * 2026-11-24-h200x2-scaling/call3, simulated pool, 32 / 16 compilers):
 * fp32 GEMM 4096^3 generations 13 % / 10 % shorter than in index order
 * (longest-first throughout: 25 % / 19 %, but the first quarter of the
 * results then arrives 2-3x later), softmax 4096x4096 13 % / 8 %.
 *
 * The model: the mean log compile time of each template and of each
 * (template, parameter, value); a prediction is the mean over the
 * candidate's parameter values seen so far, else its template's mean,
 * else the mean of all. The order only changes when compiles happen,
 * never what is compiled or measured, so a run's decisions (journal,
 * replay) do not depend on it. Thread-safe (one mutex).
 */
#ifndef KEVO_CCOST_H
#define KEVO_CCOST_H

#include "eval.h"

struct ccost;

/* Candidates taken in index order between two longest-first ones. */
#define CCOST_INDEX_RUN 2

/* A new, empty model; NULL when out of memory. Free with ccost_free. */
struct ccost *ccost_new(void);
/* 0 when env KEVO_COMPILE_ORDER=index asks for index order (no model),
 * else 1. */
int ccost_wanted(void);
void ccost_free(struct ccost *m);
/* Notes that compiling c took ms (> 0; others are ignored). */
void ccost_observe(struct ccost *m, const struct candidate *c, double ms);
/* Predicted compile time of c in ms; 0 when nothing has been observed. */
double ccost_predict(struct ccost *m, const struct candidate *c);
/* Fills order[0..n) with the indices 0..n-1 of cands in the order their
 * compiles should start: CCOST_INDEX_RUN in index order, then the one
 * predicted longest of those not yet placed (ties: lower index), and so
 * on; index order while the model is empty, or with m NULL. Returns
 * KEVO_OK, or KEVO_ENOMEM (order then in index order). */
int ccost_order(struct ccost *m, const struct candidate *const *cands, int n,
                int *order);

#endif
