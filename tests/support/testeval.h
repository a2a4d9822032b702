/*
 * testeval.h - the deterministic test evaluator (tests only): a synthetic
 * fitness landscape over template parameters, with some genomes failing
 * (wrong, compile_error, crashed) by hash, an optional delay per
 * evaluation (env KEVO_TEST_EVAL_US) so runs can be killed mid-way, and a
 * deterministic confirm(). A template whose text says
 * "kevo-test: speedup X" scores X times higher (for LLM proposals that must
 * win when better). Lets the engine be tested without a GPU.
 */
#ifndef KEVO_TESTEVAL_H
#define KEVO_TESTEVAL_H

#include "evfactory.h"
#include "eval.h"

struct testeval_stats {
    long evaluated;  /* candidates evaluated (not taken from a journal) */
    long confirms;
};

/* Makes a test evaluator; stats (may be NULL) counts its work. */
int testeval_new(struct evaluator *out, struct testeval_stats *stats);
/* The factory entry named "test" for cmd_run. */
extern const struct evaluator_factory testeval_factory;
/* Fitness the test landscape gives (tpl, vals); 0 for failing genomes. */
double testeval_fitness(const struct tpl *t, const int64_t *vals,
                        uint64_t genome_hash, enum eval_outcome *outcome);

#endif
