/*
 * fanout.h - one evaluator over several: implements struct evaluator_ops
 * (eval.h) on top of N sub-evaluators (one GPU worker each, the test
 * evaluator in CI, or remote MPI ranks), keeping all of them busy and
 * handing results on strictly in candidate order.
 *
 * What stays the same whatever N is: the callback sees the results of a
 * batch in index order, one at a time, from the calling thread, so the
 * engine journals and decides exactly as with one evaluator given the same
 * results; confirm() runs on one sub-evaluator (the first one still in use),
 * so a champion swap is always an interleaved A/B comparison on one GPU.
 * What N changes: which sub-evaluator measured a candidate (its id goes into
 * eval_result.gpu), and everything that depends on the order in which
 * measurements finish: the cascade reference each candidate races against
 * (set_best plus the fastest time measured so far by any sub), hence which
 * slow candidates stop early ("cascaded"), and the measurement noise of a
 * different GPU. It does not know what a GPU or a compile is.
 */
#ifndef KEVO_FANOUT_H
#define KEVO_FANOUT_H

#include <stddef.h>

#include "eval.h"
#include "status.h"

#define FANOUT_MAX_SUBS 256 /* e.g. 8 MPI ranks x 32 queue slots */
#define FANOUT_TAKE 8       /* ready candidates a sub takes at most at once
                               (the default of opts.take) */
#define FANOUT_TAKE_MAX 64

/* One sub-evaluator. */
struct fanout_sub {
    struct evaluator ev;   /* owned by the fan-out once fanout_new is
                              called (destroyed with it, or on failure) */
    int gpu;               /* written into each of its results' gpu member
                              (>= 0; e.g. the CUDA ordinal) */
    char label[32];        /* names it in messages: "gpu 1", "rank 3" */
};

struct fanout_opts {
    int max_failures;      /* failed evaluations in a row after which a
                              sub-evaluator is dropped (0 = 3) */
    int take;              /* candidates a sub takes at most in one call,
                              1 to FANOUT_TAKE_MAX (0 = FANOUT_TAKE): its
                              evaluator's worker has no next job queued
                              at the end of each call (with several GPUs
                              11-19 % of softmax's jobs started after a
                              0.5-2 ms wait, one GPU 8 jobs a run:
                              bench/results/2026-11-30-h200x4-s34) */
    /* (optional) Called at the start of every batch, before any sub
     * starts, with the whole batch: lets a shared resource (the compile
     * pool of several GPU evaluators) start on all of it. */
    void (*prefetch)(void *ud, const struct candidate *const *cands, int n);
    void *prefetch_ud;
    /* (optional) 1 if candidate c can start at once (e.g. compiled): a
     * free sub takes the lowest such pending candidate among the next few
     * before a lower one that would make it wait. Same ud as prefetch. */
    int (*ready)(void *ud, const struct candidate *c);
    /* (optional, with ready) Waits at most max_ms for something that may
     * make a candidate ready (a compile ending). A free sub with no ready
     * candidate then waits for the first one to become ready rather than
     * take one whose compile may be the longest; non-zero: it cannot (the
     * sub takes the first pending one, as without it). Same ud. */
    int (*wait_ready)(void *ud, int max_ms);
    /* (optional, for subs that compile what they hold: no ready) 1 if c
     * needs no compile where it goes (its source already has a binary,
     * holdorder.h; once 1, taken to stay so for the batch). With it
     * set_drop is offered: an optional candidate
     * goes out only when built, one at a time, while a required one is
     * not yet measured (pending, or held by a sub: compiling or being
     * measured); once every required one is measured, the optional ones
     * pending are dropped and the subs holding some are asked to give
     * them back (give_back, every 100 ms while they hold them; they come
     * back dropped). Same ud as prefetch. */
    int (*built)(void *ud, const struct candidate *c);
    /* (optional, with built) How many candidates that need a compile a
     * group of subs (those with one gpu id: an MPI rank's queue slots)
     * compiles at once: while its group holds that many, a free sub
     * takes one that needs no compile first (a required one, else an
     * optional one), so that the GPU measures while the compilers work.
     * 0: no limit. */
    int group_compiles;
    /* (optional) Fills order[0..n) with the indices of the batch in the
     * order its candidates should start (a compile-cost model's,
     * ccost_order); prefetch then gets the batch in that order and free
     * subs take pending candidates in it (ready ones first). NULL = index
     * order. Same ud as prefetch. */
    int (*order)(void *ud, const struct candidate *const *cands, int n,
                 int *order);
    /* (optional) Sees every result a sub hands back, from that sub's
     * thread (e.g. to learn compile times). Same ud as prefetch. */
    void (*learn)(void *ud, const struct candidate *c,
                  const struct eval_result *r);
    /* (optional) Receives one line per failure or drop, in the thread that
     * called eval_batch or confirm; NULL = stderr, prefixed "kevo: ". */
    void (*report)(void *ud, const char *line);
    void *report_ud;
};

/*
 * Makes the fan-out evaluator over subs[0..n) (1 <= n <= FANOUT_MAX_SUBS;
 * every sub must have eval_batch; confirm, set_best, admit and prefetch
 * are offered when sub 0 has them; prefetch goes to the first sub still
 * in use, which for GPU evaluators queues the shared pool's compiles).
 * Takes ownership of each subs[i].ev, destroyed even on failure; the array
 * itself is copied. It runs one thread per
 * sub-evaluator, started by the first batch that needs them and ended by
 * destroy (a process a sub forks, such as a restarted GPU worker, may die
 * with the thread that forked it), each taking the first candidate in
 * the batch's order (opts.order, else index order) nobody has taken (or
 * ready ones, see opts.ready: up to FANOUT_TAKE at once, its share of the
 * ready ones, so that its evaluator sends the next job as the last one
 * ends; without it, with opts.built, its share of the ones that need no
 * compile when the first one needs none, and those first while its group
 * holds opts.group_compiles compiles) and evaluating them after passing
 * on the current cascade
 * reference (set_best). With one sub-evaluator in use, it gets the
 * whole batch in one eval_batch in the calling thread (its own pipeline
 * stays whole; what is delivered before a failure counts, the rest is
 * tried again). The fan-out defers (set_defer) what is still compiling
 * at a batch's end: with opts.ready, the pending candidates none of which
 * is ready; without it (MPI ranks, which compile what they hold), by
 * asking the subs that hold the last ones to give them back (give_back),
 * once nothing is pending, at most the allowance is out and nothing moved
 * for 100 ms. At set_deadline no sub starts a candidate and every pending
 * one comes back deferred; subs with set_deadline are told it too. With
 * set_drop (offered only with opts.ready or opts.built), optional
 * candidates are handed out one at a time while a required one compiles,
 * and dropped once the rest is measured (without opts.ready: those a sub
 * holds are asked back). A sub-evaluator whose eval_batch fails (returns
 * an error:
 * its GPU worker cannot start, ...) is reported, its candidate goes to
 * another one, and after max_failures failures in a row
 * it is dropped for the rest of the run; eval_batch fails only when none
 * is left (KEVO_ENODEV, the last failure named in the report). Sub-
 * evaluators must be safe to drive from different threads at once (each
 * one from one thread at a time). *out is filled; destroy it with
 * out->ops->destroy(out->self), which destroys the subs last to first.
 */
int fanout_new(const struct fanout_opts *o, struct fanout_sub *subs, int n,
               struct evaluator *out, char *err, size_t errcap) KEVO_WUR;

/* Sends fan-out e's reports to fn(ud, line) from now on (as opts.report;
 * always called from the thread that calls eval_batch or confirm).
 * Returns 0 and changes nothing when e is not a fan-out. */
int fanout_set_report(struct evaluator *e,
                      void (*fn)(void *ud, const char *line), void *ud);
/* Sub-evaluators of fan-out e still in use (not dropped). e must come from
 * fanout_new. */
int fanout_alive(const struct evaluator *e);

#endif
