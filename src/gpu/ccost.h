/*
 * ccost.h - the compile-cost model: how long NVRTC will take for a
 * candidate, learned from the compiles seen so far, so that a batch's
 * compiles start longest first.
 *
 * Why: a generation's candidates are compiled by a pool of P processes
 * and the next generation is bred only once all are measured. In
 * submission (index) order, one of the longest compiles (5 s for an fp32
 * GEMM point against a median of 1.6 s) often starts last, and the
 * generation waits for it with the other compilers idle. Replaying the
 * compile times of four recorded fp32 GEMM 4096^3 generations on 2 H200s
 * (bench/results/2026-11-24-h200x2-scaling/call3, 32 compilers) the
 * generations took 28.9 s in index order and 21.9 s in the order below
 * with this model's predictions (20.8 s with the true times); softmax
 * 4096x4096, 22 generations: 33.4 s and 28.0 s.
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

/* Leading cheapest compiles in ccost_order: the GPU gets work at once. */
#define CCOST_LEAD 4

/* A new, empty model; NULL when out of memory. Free with ccost_free. */
struct ccost *ccost_new(void);
void ccost_free(struct ccost *m);
/* Notes that compiling c took ms (> 0; others are ignored). */
void ccost_observe(struct ccost *m, const struct candidate *c, double ms);
/* Predicted compile time of c in ms; 0 when nothing has been observed. */
double ccost_predict(struct ccost *m, const struct candidate *c);
/* Fills order[0..n) with the indices 0..n-1 of cands in the order their
 * compiles should start: the CCOST_LEAD cheapest predicted first
 * (cheapest first), then the rest longest first; ties (and everything
 * while the model is empty) keep index order. m may be NULL (index
 * order). Returns KEVO_OK, or KEVO_ENOMEM (order then in index order). */
int ccost_order(struct ccost *m, const struct candidate *const *cands, int n,
                int *order);

#endif
