/*
 * testeval.h - the deterministic test evaluator (tests only): a synthetic
 * fitness landscape over template parameters, with some genomes failing
 * (wrong, compile_error, crashed) by hash, an optional delay per
 * evaluation (env KEVO_TEST_EVAL_US) so runs can be killed mid-way, and a
 * deterministic confirm(). A template whose text says
 * "kevo-test: speedup X" scores X times higher (for LLM proposals that must
 * win when better); one that says "kevo-test: compile_error" never
 * compiles. Lets the engine be tested without a GPU.
 * With a run's "gpus" (--gpus 0,1,2) the factory makes one independent
 * instance per listed GPU under the fan-out (fanout.h), each answering the
 * same deterministic result per candidate; env KEVO_TEST_GPUS sets how
 * many GPUs "all" means (default 4), KEVO_TEST_GPU_FAIL="G:N" makes GPU
 * G's instance fail from its N-th evaluation on.
 * KEVO_TEST_PROFILE=1 gives it a profile op (a synthetic two-launch,
 * memory-bound profile per genome); =restricted, one whose counters are
 * restricted to admins (CUPTI error 35, as gpu/prof.c words it).
 * KEVO_TEST_IDLE_MS=X records X ms of worker idle in every result's
 * evidence (phase_ms.worker_idle), as the GPU evaluator records its wait
 * for compiles (the fill, engine_fill.c, is sized by it).
 * KEVO_TEST_TRIP_MS=J,T records J ms of the worker's job and T ms of its
 * round trip (phase_ms.job, .round_trip: kevo status's jobs line).
 * KEVO_TEST_EVIDENCE=1 adds evidence JSON shaped like the GPU
 * evaluator's: a compile log for compile errors; the copy baseline and
 * two launches' resources for ok results.
 * It has the pipeline's prefetch op (eval.h), which compiles nothing;
 * KEVO_TEST_COMPILE_LOG=FILE appends a line per candidate handed to it
 * ("prefetch SRCHASH GENOMEHASH") and per candidate a batch evaluates
 * ("batch SRCHASH GENOMEHASH", before the first result).
 * KEVO_TEST_DEFER=M gives it set_defer (eval.h): about one candidate in M
 * of a batch comes back deferred (up to the batch's allowance, first ones
 * first), chosen by its source hash mixed with the batch's last genome
 * hash, so a run resumed inside a batch defers what the interrupted one
 * did, and a deferred candidate is measured in a later batch.
 */
#ifndef KEVO_TESTEVAL_H
#define KEVO_TESTEVAL_H

#include <stddef.h>

#include "evfactory.h"
#include "eval.h"

struct testeval_stats {
    long evaluated;  /* candidates evaluated (not taken from a journal) */
    long confirms;
    long deferred;   /* candidates handed back deferred (KEVO_TEST_DEFER) */
};

/* Makes a test evaluator; stats (may be NULL) counts its work. */
int testeval_new(struct evaluator *out, struct testeval_stats *stats);
/* A fan-out of test evaluators, one per GPU of the list gpus (spec.h
 * spec_gpu_list). KEVO_EINVAL with a message for a bad list. */
int testeval_new_gpus(const char *gpus, struct evaluator *out, char *err,
                      size_t errcap);
/* The factory entry named "test" for cmd_run. */
extern const struct evaluator_factory testeval_factory;
/* Fitness the test landscape gives (tpl, vals); 0 for failing genomes. */
double testeval_fitness(const struct tpl *t, const int64_t *vals,
                        uint64_t genome_hash, enum eval_outcome *outcome);

#endif
