/*
 * gpueval.h - the GPU evaluator: implements struct evaluator_ops (eval.h)
 * on top of the NVRTC compile pool (jit.h) and the isolated GPU worker
 * process (worker_client.h). Compilation of the next candidates overlaps with the
 * measurement of the current one; a batch's compiles start in the order of
 * the compile-cost model (ccost.h: two in index order, then the longest
 * left, and so on),
 * the worker gets whichever candidate of the batch compiled first (lowest
 * index first), and results still reach the callback in order (gpueval.c,
 * "the batch pipeline").
 */
#ifndef KEVO_GPUEVAL_H
#define KEVO_GPUEVAL_H

#include <stddef.h>
#include <stdint.h>

#include "ccost.h"
#include "eval.h"
#include "jit.h"
#include "problem.h"
#include "status.h"
#include "tpl.h"

struct gpueval_opts {
    const struct problem *problem;
    enum dtype dtype;
    struct shape shape;
    const char *arch;          /* NULL = read from the device, e.g. sm_90a */
    int n_compilers;           /* 0 = number of CPUs */
    int compile_timeout_ms;    /* 0 = 60000 */
    int kernel_timeout_ms;     /* watchdog per launch batch; 0 = 10000 */
    const char *cache_dir;     /* NULL = jit_cache_dir() default */
    uint64_t harness_seed;     /* input seeds derive from it; never put into
                                  a candidate's source */
    int verbose;               /* 1: log worker restarts etc. to stderr */
    int device;                /* CUDA ordinal of the GPU its worker opens */
    struct jit_pool *pool;     /* (optional) compile pool shared with other
                                  evaluators, borrowed (must outlive this
                                  one); NULL = its own (n_compilers, ...) */
    struct ccost *ccost;       /* with pool: the compile-cost model of the
                                  evaluator that owns it (gpueval_ccost),
                                  borrowed; without pool: ignored, each
                                  makes its own (env KEVO_COMPILE_ORDER=
                                  index: none, compiles in index order) */
    int no_race;               /* 1: no cascade reference at all (neither
                                  set_best's nor its own fastest time):
                                  every candidate is timed to the full
                                  stopping rule (kevo verify, kevo eval) */
};

/*
 * Starts the compile pool and a GPU worker. Returns KEVO_ENODEV with a
 * clear message in err when there is no usable GPU/driver. *out is filled
 * with the evaluator; destroy with out->ops->destroy(out->self).
 */
int gpueval_new(const struct gpueval_opts *o, struct evaluator *out,
                struct tpl_device *dev, char *err, size_t errcap) KEVO_WUR;

/*
 * gpueval_new in two halves, so that several GPUs' workers start at once
 * (gpuset.c): gpueval_start checks the driver and the dtype and starts the
 * worker without waiting for it (worker_client.h wclient_start; its start
 * measures the baselines on its own GPU); gpueval_finish waits for it and
 * makes the evaluator with compile pool pool (borrowed, with its cost
 * model cost) or, pool NULL, its own, with gpueval_new's errors, and
 * consumes g either way. gpueval_abandon kills a started worker and frees
 * g.
 */
struct gpueval;
int gpueval_start(const struct gpueval_opts *o, struct gpueval **g, char *err,
                  size_t errcap) KEVO_WUR;
int gpueval_finish(struct gpueval *g, struct jit_pool *pool,
                   struct ccost *cost, struct evaluator *out,
                   struct tpl_device *dev, char *err, size_t errcap) KEVO_WUR;
void gpueval_abandon(struct gpueval *g);

/* The compile pool of GPU evaluator e (borrowed; e made by gpueval_new),
 * to share with the next ones through gpueval_opts.pool. */
struct jit_pool *gpueval_pool(const struct evaluator *e);
/* The compile-cost model (ccost.h) that orders e's compiles, borrowed;
 * NULL when compiles go in index order. Share it with gpueval_opts.ccost
 * along with the pool. */
struct ccost *gpueval_ccost(const struct evaluator *e);
/* Times the problem's baselines again in e's worker (the one made at its
 * start stays in the environment) and gives the first one's median in
 * *ns; later results' ratios are to it. KEVO_ENOENT when the problem has
 * no baseline; an error when the worker does not answer. */
int gpueval_remeasure_baseline(const struct evaluator *e, double *ns) KEVO_WUR;
/* Times candidate c against the problem's first baseline in the worker,
 * interleaved launch by launch (pairs pairs, each launch after an L2
 * flush, the order alternating): *ratio = the median over pairs of
 * baseline time / kernel time (> 1: the kernel is faster), *noise about
 * two standard errors of it, *kernel_ns and *baseline_ns the medians.
 * KEVO_ENOENT when the problem has no timed baseline or c does not
 * compile or launch (*why says which). */
int gpueval_vs_baseline(const struct evaluator *e, const struct candidate *c,
                        int pairs, double *ratio, double *noise,
                        double *kernel_ns, double *baseline_ns, char *why,
                        size_t whycap) KEVO_WUR;
/* Number of CUDA devices e's worker sees (0 if it did not say). */
int gpueval_device_count(const struct evaluator *e);
/* The fan-out's prefetch hook (fanout.h): starts compiling, in the shared
 * pool and in the order given, every candidate of the batch that gets
 * past the checks made before compiling. self is a GPU evaluator's
 * (evaluator.self). */
void gpueval_prefetch(void *self, const struct candidate *const *cands,
                      int n);
/* The fan-out's order hook (fanout.h): the batch in the order of self's
 * compile-cost model (ccost_order; index order without one). */
int gpueval_order(void *self, const struct candidate *const *cands, int n,
                  int *order);
/* The fan-out's ready hook (fanout.h): 1 if candidate c can go to a worker
 * without waiting for its compile (decided before compiling, compiled, or
 * never prefetched), 0 while its prefetched compile runs. */
int gpueval_ready(void *self, const struct candidate *c);
/* Services e's compile pool without waiting (finished compiles become
 * ready; queued ones go to idle compilers): 0, or the pool's error. */
int gpueval_poll(void *self);
/* The fan-out's wait_ready hook: services the compile pool, waiting at
 * most max_ms for a compile to end; 0, or the pool's error. */
int gpueval_wait_ready(void *self, int max_ms);

#endif
