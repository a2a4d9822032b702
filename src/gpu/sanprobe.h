/*
 * sanprobe.h - one candidate, one call, on exact-size buffers: the process
 * compute-sanitizer watches (sanitizer.h). The evaluator keeps guard bands
 * inside each allocation (an out-of-bounds read lands in mapped memory),
 * times with CUPTI and runs cuBLAS and its own kernels; none of that may
 * be in a sanitizer's view. Here every buffer of the problem is its own
 * allocation of exactly its size, inputs are random, outputs poisoned as
 * the evaluator does, the workspace left as allocated (a kernel must
 * initialise what it reads of it), and the launch plan runs once.
 */
#ifndef KEVO_SANPROBE_H
#define KEVO_SANPROBE_H

#include <stddef.h>
#include <stdint.h>

#include "problem.h"
#include "status.h"
#include "tpl.h"

/*
 * Compiles src (the candidate's exact source) for GPU 0, prepares t's
 * launch plan at vals for dtype dt and shape s on that GPU, and runs it
 * once on fresh buffers of problem p, then synchronizes. Returns KEVO_OK
 * when every launch finished; KEVO_ENODEV without a GPU; KEVO_ECOMPILE
 * when the source does not compile or the plan does not fit; KEVO_ECUDA
 * when a CUDA call fails (a fault included); the reason in err.
 */
int sanprobe_run(const struct problem *p, enum dtype dt,
                 const struct shape *s, const struct tpl *t,
                 const int64_t *vals, const char *src, char *err,
                 size_t errcap) KEVO_WUR;

#endif
