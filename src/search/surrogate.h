/*
 * surrogate.h - a small random forest (regression) that predicts how good
 * an untried point is from the points already measured, so the engine can
 * rank a large pool of offspring and evaluate only the most promising.
 *
 * Features are small integer codes (a parameter's value index, a template
 * indicator; SUR_MISSING for a parameter of another template), so a split
 * is "code <= c" and a node finds its best split from a histogram. Every
 * random choice (bootstrap samples, features tried) comes from the seed
 * given to surrogate_fit: the same data and seed give the same forest.
 * With apart set, each tree draws from a PRNG of its own (the seed and
 * the tree's index), so the trees grow on up to threads threads and the
 * forest does not depend on how many; without it the trees draw from one
 * PRNG in turn (the forest of runs recorded before apart).
 */
#ifndef KEVO_SURROGATE_H
#define KEVO_SURROGATE_H

#include <stdint.h>

#include "status.h"

#define SUR_MISSING 255

struct surrogate;

struct sur_opts {
    int trees;      /* number of trees (e.g. 32) */
    int max_depth;  /* e.g. 12 */
    int min_leaf;   /* fewest samples in a leaf (e.g. 2) */
    int mtry;       /* features tried per split; 0 = d / 3 (at least 1) */
    int apart;      /* 1: a PRNG per tree (see the top); 0: one for all */
    int threads;    /* with apart: at most this many threads (<= 1: this
                       one) */
};

/*
 * Fits a forest to n samples of d features (x: n rows of d codes) with
 * targets y. *out is new; free with surrogate_free. KEVO_EINVAL if n < 2
 * or d < 1.
 */
int surrogate_fit(const uint8_t *x, const double *y, int n, int d,
                  const struct sur_opts *o, uint64_t seed,
                  struct surrogate **out) KEVO_WUR;
/* The forest's prediction for row x (d codes): the trees' mean; *sd (may
 * be NULL) gets their standard deviation, a measure of how unsure the
 * forest is there. */
double surrogate_predict(const struct surrogate *s, const uint8_t *x,
                         double *sd);
void surrogate_free(struct surrogate *s);

#endif
