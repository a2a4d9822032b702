/*
 * sample.h - the valid points of a template as a list (enumerated, or
 * given by a recorded table), and samples drawn over it: a uniform draw,
 * a seeded random order (sweeps, random search) and a Latin hypercube
 * (the space-filling first generation). Knows nothing of the engine;
 * every random choice comes from the caller's rng.
 */
#ifndef KEVO_SAMPLE_H
#define KEVO_SAMPLE_H

#include <stdint.h>

#include "rng.h"
#include "status.h"
#include "tpl.h"

/* Raw points (product of the value lists) enumeration gives up past. */
#define SAMPLE_ENUM_LIMIT 20000000.0

/* A list of points of one template, as value indices (use the functions). */
struct pointset {
    int n_params;
    long n, cap;
    uint8_t *idx;  /* n rows of n_params value indices */
};

/* Says whether a valid point may be used (supported shape, in a table). */
typedef int (*sample_ok_fn)(void *ud, const int64_t *vals);

void pointset_init(struct pointset *ps, int n_params);
void pointset_release(struct pointset *ps);
/* Appends point vals (values of t, each allowed) to ps. */
int pointset_add(struct pointset *ps, const struct tpl *t,
                 const int64_t *vals) KEVO_WUR;
/* Fills ps (initialized, empty) with every point of t that satisfies its
 * constraints on dev and that ok (may be NULL) accepts, in odometer
 * order (last parameter fastest). Fails if t's raw space is larger
 * than SAMPLE_ENUM_LIMIT (nothing added: KEVO_ETOOBIG). */
int pointset_enumerate(struct pointset *ps, const struct tpl *t,
                       const struct tpl_device *dev, sample_ok_fn ok,
                       void *ud) KEVO_WUR;
/* Fills ps (initialized, empty) with up to n distinct random points of t
 * that satisfy its constraints and that ok (may be NULL) accepts, drawn
 * uniformly by rejection with r (at most 50 n draws): a stand-in for a
 * space too large to enumerate quickly. */
int pointset_sample(struct pointset *ps, const struct tpl *t,
                    const struct tpl_device *dev, sample_ok_fn ok, void *ud,
                    long n, struct rng *r) KEVO_WUR;
/* Writes the values of point i of ps (a point of t) to vals. */
void pointset_get(const struct pointset *ps, const struct tpl *t, long i,
                  int64_t *vals);

/* Shuffles perm[0..n) in place (Fisher-Yates with r). */
void sample_shuffle(long *perm, long n, struct rng *r);
/*
 * A Latin hypercube of k points over ps, for spaces cut by constraints:
 * each parameter's value indices are cut into k strata (its values, if
 * it has k or fewer) and sample s aims at stratum perm_p[s] of every
 * parameter p (one random permutation per parameter). Each sample takes
 * the point of ps, not taken before, that covers the most strata no
 * earlier sample covers, nearest to its aim (normalized index distance)
 * among those. So every stratum that a valid point can reach is covered
 * as long as samples remain, whatever the constraints cut away. A
 * launch-only parameter (tpl.h) is not cut: every sample aims at its
 * default (the fill measures its other values without a compile). Writes
 * up to k distinct indices into ps to out; returns how many (fewer only
 * if ps has fewer than k points, or out of memory: 0).
 */
long sample_lhs(const struct pointset *ps, const struct tpl *t, long k,
                struct rng *r, long *out);

#endif
