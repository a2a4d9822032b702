/*
 * mutator.h - the operators that make children from parents. One file per
 * operator in mutators/, each defining a `const struct mutator`; the
 * registry is mutators/registry.c. A mutator only proposes: validity
 * against constraints, shape support and duplicates are checked here via
 * the context, and the engine retries when a proposal is rejected.
 * The table (registry.c) is the one truth: every entry is an arm of the
 * operator bandit, and the engine applies the arm the bandit picked;
 * without the bandit it draws among the entries (mutator_draw).
 */
#ifndef KEVO_MUTATOR_H
#define KEVO_MUTATOR_H

#include "genome.h"
#include "rng.h"
#include "tpl.h"

struct mut_ctx {
    struct rng *rng;                /* the run's PRNG */
    struct tpl *const *tpls;        /* the run's templates */
    int n_tpls;
    const struct tpl_device *dev;   /* device facts for constraints */
    int repair;                     /* tweak: repair broken constraints
                                       (spec tweak_repair) */
};

struct mutator {
    const char *name;      /* "tweak", "crossover" */
    const char *summary;   /* one line for `kevo list` */
    int n_parents;         /* 1 or 2 (2: parents share a template) */
    /* Writes a child into *child (tpl and vals; the engine rehashes).
     * Returns 0, or -1 if no valid child could be made from these
     * parents (e.g. a single-point space). */
    int (*apply)(const struct mut_ctx *ctx, const struct genome *const *par,
                 struct genome *child);
};

/* NULL-terminated registry (registry.c). */
extern const struct mutator *const kevo_mutators[];
const struct mutator *mutator_find(const char *name);
/* The first mutator of the table with n_parents parents, or NULL (the
 * engine's default mutation is the first with 1, its crossover the first
 * with 2). */
const struct mutator *mutator_for(int n_parents);
/* A mutator of the table with n_parents parents: the only one without a
 * draw (so a table of one tweak and one crossover makes the choices it
 * always made), else one drawn uniformly from rng; NULL if none. */
const struct mutator *mutator_draw(int n_parents, struct rng *rng);

#endif
