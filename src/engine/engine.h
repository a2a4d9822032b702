/*
 * engine.h - the evolutionary search: islands of kernels, tournament
 * selection with elitism ((mu + lambda) survivors), migration between
 * islands, a MAP-Elites archive for diversity, the mutators of mutators/,
 * and budgets. Every random choice comes from one seeded PRNG.
 *
 * Determinism, resume and replay: the engine's decisions depend only on
 * the seed and on the results it receives. It asks the run log (runlog.h)
 * for every result, confirmation and LLM answer, and hands it every
 * record it makes; a generation ends with a "gen" record and an atomic
 * checkpoint. Whether an answer is recorded (a resume re-deriving the
 * records after its checkpoint, a replay) or live (the GPU, an API) is the
 * run log's business: a resumed run writes exactly the journal an
 * uninterrupted run writes, a replay proves the same decisions, and any
 * difference is KEVO_EDIVERGE at the first differing record.
 */
#ifndef KEVO_ENGINE_H
#define KEVO_ENGINE_H

#include <cJSON.h>
#include <signal.h>

#include "eval.h"
#include "problem.h"
#include "progress.h"
#include "runlog.h"
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
    struct runlog *log;               /* results, answers, records;
                                         borrowed (runlog.h) */
    const char *run_dir;              /* sources/ and checkpoint.json
                                         (written when the log writes) */
    volatile sig_atomic_t *stop;      /* 1 = stop after this evaluation */
    struct progress *prog;            /* may be NULL */
    double elapsed_before_s;          /* run time of earlier sessions */
    int compilers;                    /* this session's compile processes,
                                         said in its "gen" records for kevo
                                         status (0 = not known: none said) */
    /* LLM mutation (engine_llm.c). llm_on says the run uses it (from the
     * spec): then the engine asks for proposals, rewrites, crossovers and
     * repairs, chooses operators with a bandit, and journals one "llm"
     * record per answer; the run log gives the answers (recorded ones from
     * the journal and transcripts, new ones from its LLM client). */
    int llm_on;
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
 * being resumed (the log then starts at its journal position), or NULL
 * for a fresh start. Borrows env's pointers for
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
/* Text of a stop reason: "finished (time budget)", ... (a run that ends
 * on a budget stays resumable: kevo resume with a larger one). */
const char *engine_stop_text(enum engine_stop s);
/* Short name of a stop reason for JSON and end.json: "generations",
 * "evals", "time", "stagnation", "exhausted", "signal", "none". */
const char *engine_stop_name(enum engine_stop s);
/*
 * The run's numbers as a new JSON object, the fields of --json events:
 * generation (last completed), evaluations, outcomes {name: count}, best
 * {fitness, unit, ratio, median_ns, template, point {NAME: value}, hash,
 * generation} when there is one, budget {generations|evals|time_s|
 * stagnation: {used, limit}} for those in force, elapsed_s, and end /
 * end_text once stopped. NULL without memory; caller frees.
 */
cJSON *engine_stats_json(const struct engine *e);
void engine_free(struct engine *e);

#endif
