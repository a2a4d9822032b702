/*
 * engine.h - the evolutionary search: islands of kernels, tournament
 * selection with elitism ((mu + lambda) survivors), migration between
 * islands, a MAP-Elites archive for diversity, the mutators of mutators/,
 * and budgets. Every random choice comes from one seeded PRNG.
 *
 * Determinism and resume: the engine's decisions depend only on the seed
 * and on the results it receives. Every result (and every noise-aware
 * confirmation) is journaled before the engine moves on; a generation ends
 * with a "gen" record and an atomic checkpoint. A resumed engine starts
 * from the checkpoint and re-derives the records after it in order: a
 * record already in the journal is taken from there (never evaluated or
 * written again), the rest are evaluated. So a run killed at any moment
 * and resumed writes exactly the journal an uninterrupted run writes, and
 * any divergence is reported as KEVO_EDIVERGE at the first differing
 * record. The same mechanism replays a whole run from its journal.
 */
#ifndef KEVO_ENGINE_H
#define KEVO_ENGINE_H

#include <cJSON.h>
#include <signal.h>

#include "eval.h"
#include "jnl.h"
#include "problem.h"
#include "progress.h"
#include "sample.h"
#include "spec.h"
#include "status.h"
#include "tpl.h"

struct engine_env {
    const struct spec *spec;          /* borrowed */
    const struct problem *problem;
    struct tpl *const *tpls;          /* the run's templates, borrowed */
    int n_tpls;
    struct tpl_device dev;
    struct evaluator ev;              /* borrowed */
    const char *run_dir;              /* sources/ and checkpoint.json */
    struct jnl *jnl;                  /* borrowed; NULL = write nothing */
    const cJSON *existing;            /* records already in the journal
                                         (resume/replay), or NULL */
    volatile sig_atomic_t *stop;      /* 1 = stop after this evaluation */
    struct progress *prog;            /* may be NULL */
    double elapsed_before_s;          /* run time of earlier sessions */
    /* LLM mutation (engine_llm.c). llm_on says the run uses it (from the
     * spec): then the engine asks for proposals, rewrites, crossovers and
     * repairs, chooses operators with a bandit, and journals one "llm"
     * record per answer. Answers already in the journal are read from the
     * transcripts in llm_dir/llm/ (so a resume or a replay needs no
     * provider); new ones come from llm (NULL: none can be asked). */
    int llm_on;
    struct llm *llm;                  /* borrowed, may be NULL */
    const char *llm_dir;              /* NULL = run_dir */
    const char *prompts_dir;          /* mutators/prompts */
    const char *gpu_facts;            /* GPU facts for the prompts */
    /* (optional) Per template of tpls: its usable points (borrowed). The
     * search is then restricted to them (a recorded table), and the
     * engine need not enumerate any. */
    const struct pointset *points;
};

enum engine_stop {
    STOP_NONE,
    STOP_GENERATIONS,
    STOP_EVALS,
    STOP_TIME,
    STOP_STAGNATION,
    STOP_EXHAUSTED, /* no new candidate could be made */
    STOP_SIGNAL,
};

struct engine_stats {
    int gen;                        /* last completed generation (-1) */
    long evals;                     /* evaluations in the journal */
    long outcomes[EVAL_OUTCOME_COUNT];
    double best_fitness;            /* accepted incumbent (0 = none) */
    double best_median_ns;
    uint64_t best_hash;
    int best_tpl;                   /* -1 = none */
    int64_t best_vals[TPL_MAX_PARAMS];
    double best_ratio;
    int best_gen;
    double elapsed_s;               /* incl. earlier sessions */
    long session_evals;             /* evaluated (not replayed) now */
    enum engine_stop stop;
};

struct engine;

/*
 * Makes an engine. checkpoint is the parsed checkpoint.json of the run
 * being resumed, or NULL for a fresh start. Borrows env's pointers for
 * the engine's life. Errors (bad checkpoint) go to err.
 */
int engine_new(const struct engine_env *env, const cJSON *checkpoint,
               struct engine **out, char *err, size_t errcap) KEVO_WUR;
/*
 * Runs generations until a budget is reached (KEVO_OK, stats.stop says
 * which), a stop is requested (KEVO_ESTOPPED), or an error occurs.
 */
int engine_run(struct engine *e, char *err, size_t errcap) KEVO_WUR;
const struct engine_stats *engine_stats(const struct engine *e);
/* Template idx of the run (the env's, then those LLM answers added). */
const struct tpl *engine_template(const struct engine *e, int idx);
/* Text of a stop reason: "generation budget reached", ... */
const char *engine_stop_text(enum engine_stop s);
void engine_free(struct engine *e);

#endif
