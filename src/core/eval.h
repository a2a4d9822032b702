/*
 * eval.h - the evaluator interface the engine drives, and the record of one
 * evaluation.
 *
 * The engine hands the evaluator batches of candidates and receives one
 * struct eval_result per candidate, in submission order, through a
 * callback, so that it can journal each result before it moves on. How the
 * evaluator gets there (a GPU worker with a compile pool, or the
 * deterministic test evaluator in tests/) is its own business.
 *
 * A bad candidate is an outcome, not an error: compile errors, wrong
 * answers, crashes, hangs and cheats come back as outcomes inside KEVO_OK.
 */
#ifndef KEVO_EVAL_H
#define KEVO_EVAL_H

#include <stdint.h>

#include "problem.h"
#include "profile.h"
#include "status.h"
#include "tpl.h"

enum eval_outcome {
    EVAL_OK,            /* correct; timed */
    EVAL_COMPILE_ERROR, /* NVRTC rejected it, or it cannot launch */
    EVAL_WRONG,         /* output differs from the reference */
    EVAL_CRASHED,       /* faulted (illegal address, trap, ...) */
    EVAL_TIMEOUT,       /* did not finish before the watchdog */
    EVAL_CHEAT,         /* wrote inputs or out of bounds, non-deterministic,
                           faster than the speed of light, ... */
    EVAL_UNSUPPORTED,   /* the template does not support this shape */
    EVAL_OUTCOME_COUNT
};

/* "ok", "compile_error", "wrong", "crashed", "timeout", "cheat",
 * "unsupported". */
const char *eval_outcome_name(enum eval_outcome o);
/* Parses the name back; -1 if unknown. */
int eval_outcome_parse(const char *s, enum eval_outcome *out);

/* One candidate: a template at a point, for the run's problem/dtype/shape. */
struct candidate {
    const struct tpl *tpl;     /* borrowed */
    const int64_t *vals;       /* borrowed, tpl->n_params values */
    uint64_t genome_hash;      /* identity (genome.h) */
    const char *source;        /* instantiated source, borrowed */
    uint64_t source_hash;      /* hash_final(hash_str(source)) */
    int optional;              /* 1: may be dropped (set_drop) */
};

/* Resources as compiled (from the cubin / cuFuncGetAttribute). */
struct eval_resources {
    int regs;            /* registers per thread (max over kernels) */
    int smem_static;     /* static shared memory per block, bytes */
    int local_bytes;     /* local memory per thread (spills, stack) */
    int spill_bytes;     /* spill stores reported by ptxas, bytes */
    int occupancy;       /* resident blocks per SM of launch 0 (0 = ?) */
};

struct eval_result {
    enum eval_outcome outcome;
    double fitness;          /* work / median_ns in work_unit; 0 if not ok */
    double median_ns;        /* of the timed repetitions */
    double min_ns;
    double spread;           /* (p90 - p10) / median of repetitions */
    int reps;                /* timed repetitions */
    int cascaded;            /* 1: stopped early, clearly slower than best */
    double ratio;            /* fitness / main baseline fitness (0: none) */
    double roofline;         /* fraction of the problem's speed of light */
    struct eval_resources res;
    double compile_ms;       /* wall time spent on each phase */
    double check_ms;
    double time_ms;
    int gpu;                 /* which GPU measured it (the fan-out's id of
                                the sub-evaluator, fanout.h); -1 = not
                                recorded (one evaluator) */
    int deferred;            /* not evaluated (the rest of the members
                                are unset): 1, its compile had not ended
                                when the rest of the batch was measured
                                (evaluator_ops.set_defer); 2, it was not
                                measured by the deadline (set_deadline);
                                3, optional and dropped (set_drop) */
    char detail[512];        /* one line of evidence: the reason for a bad
                                outcome, or notes for an ok one */
    char *evidence_json;     /* (optional) JSON object text with details;
                                owned, free with eval_result_release */
};

void eval_result_init(struct eval_result *r);
void eval_result_release(struct eval_result *r);
/* *dst = *src with its own copy of the evidence (dst is overwritten, not
 * released). KEVO_ENOMEM (dst's evidence NULL) if the copy fails. */
int eval_result_copy(struct eval_result *dst, const struct eval_result *src)
    KEVO_WUR;

/* Called once per candidate, in submission order. Returning non-zero stops
 * the batch early (the remaining results are not produced). */
typedef int (*eval_cb)(void *ud, int index, const struct eval_result *r);

struct evaluator_ops {
    const char *name;
    /* Evaluates cands[0..n) and calls cb for each, in order. Returns
     * KEVO_OK, KEVO_ESTOPPED if cb asked to stop, or an error that makes
     * further evaluation impossible (e.g. no GPU). */
    int (*eval_batch)(void *self, const struct candidate *const *cands,
                      int n, eval_cb cb, void *ud);
    /* (optional) Noise-aware acceptance: re-measures challenger and
     * incumbent interleaved; sets *accept to 1 if the challenger is faster
     * by more than the measured noise. ratio = incumbent/challenger time. */
    int (*confirm)(void *self, const struct candidate *challenger,
                   const struct candidate *incumbent, int *accept,
                   double *ratio, double *noise);
    /* (optional) The best time known so far, for cascades: candidates far
     * slower may stop timing early. */
    void (*set_best)(void *self, double best_median_ns);
    /* (optional) 1 if the evaluator can evaluate template t at point vals.
     * One that answers from a recorded table admits only the table's
     * points, and the engine makes no other candidate. */
    int (*admit)(void *self, const struct tpl *t, const int64_t *vals);
    /* (optional) The hardware profile of candidate c (profile.h), taken
     * outside any timed window on fresh inputs. A profile that cannot be
     * taken (counters restricted, another profiler attached, c does not
     * run) is KEVO_OK with out->available = 0 and a note; an error makes
     * further evaluation impossible. */
    int (*profile)(void *self, const struct candidate *c, struct kprof *out);
    /* (optional) Profiles will be asked in this run (a new best is
     * profiled once found): start now what the first one needs, without
     * waiting for it, so that it does not wait then (the GPU evaluator
     * starts its profiler's worker, gpu/worker.h 11, which measures
     * nothing while it starts). Between batches; evaluates nothing, and
     * nothing the engine decides depends on it. */
    void (*profile_soon)(void *self);
    /* (optional) Starts compiling cands[0..n), the batch the engine will
     * hand to eval_batch next (issue 32: the pipeline), behind every
     * compile a batch needs now; the binaries go to the compile cache,
     * where that eval_batch finds them. A compile of the same source
     * already queued or running is joined, never repeated. Evaluates
     * nothing, calls no callback and does not wait for a compile; nothing
     * the engine decides depends on it (a prefetch that is lost only
     * means the batch compiles as usual). Borrows cands for the call. */
    void (*prefetch)(void *self, const struct candidate *const *cands,
                     int n);
    /* (optional) From the next batch on, at most max_n of a batch's
     * candidates may come back with r->deferred set (0, the default:
     * none): those whose compile has not ended when every other one of
     * the batch is measured and nothing is left to measure, so that a
     * few slow compiles do not hold the batch (and the generation) while
     * the GPU waits. Their compiles go on (into the compile cache); the
     * engine hands them over again in its next batch. */
    void (*set_defer)(void *self, int max_n);
    /* (optional) From the next batch on, once the monotonic clock
     * (fs_now_ns) passes at_ns (0: never), no new candidate is measured:
     * the jobs already on a GPU end, and every candidate not measured by
     * then comes back with r->deferred = 2 (its compile, if any, goes on
     * into the cache), whatever the set_defer allowance, so that a run
     * ends at its time budget with all it measured and no compile to wait
     * for. Only with set_defer above. */
    void (*set_deadline)(void *self, long long at_ns);
    /* (optional) From the next batch on, with on, a candidate flagged
     * optional that is not measured when every other one of the batch is
     * measured or deferred comes back dropped (r->deferred = 3): they fill
     * the GPU's wait for compiles and never make the batch longer. */
    void (*set_drop)(void *self, int on);
    /* (optional) Called from another thread while eval_batch runs: every
     * candidate of that batch not measured yet comes back as soon as it
     * can with r->deferred = 1, unmeasured (its compile, if any, goes on
     * into the cache), and that eval_batch returns KEVO_OK; one being
     * measured ends as usual. Between batches, or after the batch's last
     * result, it does nothing. The fan-out defers so with evaluators that
     * cannot say which of their candidates are compiled (an MPI rank's
     * queue): fanout.h. */
    void (*give_back)(void *self);
    /* (optional) JSON object text describing the environment (GPU, driver,
     * versions) for the manifest; new string, caller frees. */
    char *(*environment)(void *self);
    void (*destroy)(void *self);
};

struct evaluator {
    const struct evaluator_ops *ops;
    void *self;
};

#endif
