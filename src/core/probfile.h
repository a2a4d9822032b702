/*
 * probfile.h - the .problem file kind (README "User-defined problems"): a
 * parser that turns a file's text into a `struct problem` whose CPU hooks
 * (buffers, tolerance, work, shape checks) read the parsed description, and
 * the few facts its GPU hooks (fitness/userprob.c, attached through the
 * registry, probreg.h) need to draw inputs and launch the reference.
 *
 * The functions below take a problem of this kind (p->kind ==
 * &probfile_kind); anything else is a bug (assert).
 */
#ifndef KEVO_PROBFILE_H
#define KEVO_PROBFILE_H

#include <stdint.h>

#include "problem.h"

/* The kind, for the registry's kinds[] (parse + free). */
extern const struct problem_kind probfile_kind;

/* How an input buffer's elements are drawn (userprob_harness.cu's `dist`
 * numbering: keep both in step). */
enum probfile_dist {
    PROBFILE_UNIFORM, /* uniform(LO, HI) */
    PROBFILE_NORMAL,  /* normal(MEAN, STD) */
    PROBFILE_OFFSET,  /* offset(LO, HI, SPREAD): a row offset + noise */
    PROBFILE_INT,     /* int(LO, HI): integers */
    PROBFILE_CONST    /* const(V) */
};

/* Buffer buf's fill= distribution; its arguments go to arg[0..2]. */
enum probfile_dist probfile_fill(const struct problem *p, int buf,
                                 float arg[3]);
/* The reference kernel's launch at shape s (reference_grid /
 * reference_block, or one thread per element of the largest output in
 * blocks of 256). Returns 0, or -1 when out of range (grid 1 to 2^31-1,
 * block 1 to 1024) or not computable. */
int probfile_ref_launch(const struct problem *p, const struct shape *s,
                        int64_t *grid, int64_t *block);
/* Whether the file asks for the copy baseline (`baseline copy`, the
 * default). */
int probfile_copy_baseline(const struct problem *p);

#endif
