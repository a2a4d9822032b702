/*
 * spec.h - the full specification of a run: what to optimize, how to
 * search, and when to stop. Comes from a JSON spec file and/or command
 * line flags; written whole into the run's manifest.json so that resume,
 * status and replay need nothing else.
 */
#ifndef KEVO_SPEC_H
#define KEVO_SPEC_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "problem.h"
#include "status.h"

#define SPEC_MAX_TEMPLATES 64
#define SPEC_MAX_GPUS 64 /* GPUs one run drives (<= FANOUT_MAX_SUBS) */

struct spec {
    char name[128];          /* run name: runs/<name> */
    char problem[32];
    enum dtype dtype;
    struct shape shape;
    int n_templates;         /* 0 = every template of the problem */
    char templates[SPEC_MAX_TEMPLATES][64];
    uint64_t seed;
    /* search */
    int islands;             /* number of islands */
    int population;          /* members per island */
    int offspring;           /* children per island per generation */
    int tournament;          /* tournament size */
    int migrate_every;       /* generations between migrations (0: never) */
    int init_random;         /* random initial points per template */
    double archive_prob;     /* chance a parent comes from the archive */
    double crossover_prob;   /* chance of crossover instead of tweak */
    /* issue 13: "evolve" (the GA) or "sweep" (every valid point of the
     * templates in a seeded random order: recording tables, random
     * search); "lhs" (Latin hypercube over the valid points) or "random"
     * first generation; offspring drawn per slot for the surrogate to
     * screen (0: no surrogate). Runs recorded before these existed load
     * with spec_legacy_search's values. */
    char strategy[16];
    char init[16];
    int surrogate;
    /* session 13: the tweak mutator repairs a step that breaks a
     * constraint by moving one other parameter (1), or draws again (0:
     * what runs made before it did, so their replays stay exact) */
    int tweak_repair;
    /* session 20: a candidate source's first line names the compiled
     * params only (1), so launch-only neighbours are one source; 0: every
     * param, what runs made before it did (a manifest without it reads as
     * 0; tpl_instantiate_hdr) */
    int source_header;
    /* issue 32: generation g+1 is bred from the results up to g-1 while g
     * is measured, and compiled meanwhile (1); or after g (0: what runs
     * made before it did; a manifest without it reads as 0). Only runs
     * without LLM mutation pipeline (engine_pipe.c). */
    int pipeline;
    /* 1: the engine takes hardware profiles of new bests and LLM parents
     * (engine_prof.c; a manifest without the key reads as 1, what runs
     * did before it); 0: none live (a replay still takes the journal's) */
    int profile;
    /* issue 32: each generation also measures launch-only neighbours of
     * measured points (no compile) in the GPU time the last generation
     * left idle (1, engine_fill.c); 0: what runs made before it did (a
     * manifest without it reads as 0) */
    int fill;
    /* issue 32: with fill, generation 0 also holds up to 4 x fill0
     * launch-only neighbours of each of its own points, measured while
     * their compiles end and dropped when the rest is measured
     * (engine_fill.c): 0 to 4 (2, the default: 8 a point; 1: 4, what runs
     * made at b060d89..4d3595c recorded); 0: none, what runs made before
     * it did (a manifest without it reads as 0), and what runs on an
     * evaluator that cannot drop them record */
    int fill0;
    /* issue 32: with fill, every later generation also holds spare
     * launch-only neighbours past its planned fill, optional: measured
     * only while compiles keep the GPU from the rest, dropped when the
     * rest is measured (engine_fill.c): fill_spare halves of the planned
     * fill's size, 0 to 4 (2, the default: as many; 1: what runs made at
     * 2c2de0f..3d0ac44 recorded; 4: twice as many, for GPUs that measured
     * every spare one, as two MPI ranks did in session 24); 0: none, what
     * runs made before it did (a manifest without it reads as 0), and
     * what runs on an evaluator that cannot drop them record */
    int fill_spare;
    /* issue 32: with the spare fill, a generation whose bred children
     * need more compile time than the GPU time its required candidates
     * fill gets that many more spare ones (engine_fill.c compile_spare):
     * 1, the default; 0: the spare by fill_spare alone, what runs made
     * before it did (a manifest without it reads as 0) */
    int fill_compile;
    /* issue 32: the fill draws on every point of a measured binary (each
     * combination of its launch-only values, engine_fill.c): 1, the
     * default; 0: points one launch-only param away, what runs made
     * before it did (a manifest without it reads as 0) */
    int fill_grid;
    /* issue 32: the surrogate's trees each draw from a PRNG of their own
     * and grow on several threads (surrogate.h apart): 1, the default;
     * 0: one PRNG for all, what runs made before it did (a manifest
     * without it reads as 0) */
    int forest_apart;
    /* issue 32: a generation's fill, planned and spare together, holds
     * at most this many launch-only neighbours per bred child
     * (engine_fill.c): 1 to 64, 8 by default, what every run made before
     * the key recorded (a manifest without it reads as 8). With at most 4,
     * softmax fp32 4096^2 on an H200 with 16 CPUs (8 ms to measure a
     * candidate, 440 ms to compile one) sat at the cap in most
     * generations and the GPU idled 55 % of the run
     * (bench/results/2026-11-28-h200-s18, call 2). Four H200s measured
     * softmax's fill to 8 and then waited for compiles inside each
     * generation (bench/results/2026-11-30-h200x4-s34). */
    int fill_per_bred;
    /* issue 32: the evaluator may hand back unmeasured the few candidates
     * whose compile has not ended when the rest of the generation is
     * measured; they join the next generation (1, engine_defer.c); 0:
     * every candidate is measured in its generation, what runs made
     * before it did (a manifest without it reads as 0). Runs with LLM
     * mutation or the pipeline do not defer. */
    int defer;
    /* "kevo run --simulate": the recorded table answering for the GPU */
    char table[1024];
    /* budgets (0 = unlimited) */
    int max_generations;     /* SPEC_GENERATIONS_UNSET until resolved */
    long max_evals;
    double max_time_s;
    int stagnation;          /* stop after this many gens without a new best */
    /* evaluation */
    char evaluator[32];      /* "gpu" (tests register others) */
    char arch[16];           /* "" = from the device */
    char gpus[256];          /* "" = one GPU, as before multi-GPU (the
                                default); "all" or "0,1,3": one worker per
                                GPU under one fan-out (spec_gpu_list) */
    int compilers;           /* compile processes, 0 = CPUs */
    int compile_timeout_ms;
    int kernel_timeout_ms;
    /* LLM mutation (llm.h): llm is "openai:MODEL[@URL]",
     * "anthropic:MODEL[@URL]", "replay:RUN_DIR" or "off"; a run records
     * what it resolved to, so resume and replay use the same */
    char llm[1200];
    char llm_key_env[64];     /* "" = the provider's default variable */
    double llm_budget_tokens; /* 0 = none */
    double llm_budget_usd;
    double llm_price_in;      /* USD per million tokens (cost accounting) */
    double llm_price_out;
    int llm_per_gen;          /* LLM requests per generation at most */
    int llm_propose;          /* proposals asked for at the start */
    int llm_repairs;          /* repair attempts per LLM lineage */
    double llm_cost;          /* an LLM request's cost in evaluations,
                                 for the operator bandit */
};

/* max_generations before spec_resolve_budgets: not given. */
#define SPEC_GENERATIONS_UNSET (-1)
/* The generation cap of a run that names no budget at all. */
#define SPEC_GENERATIONS_DEFAULT 20

/* 1 if name can name a run directory: not empty, no '/', not "." or "..". */
int spec_name_ok(const char *name);

/* 1 if the spec turns LLM mutation on. */
int spec_llm_on(const struct spec *s);

/* Defaults for everything (problem/dtype/shape left empty). */
void spec_defaults(struct spec *s);
/* The search settings of runs made before they existed (issue 13: random
 * first generation, no surrogate; session 13: no tweak repair; issue 32:
 * no pipeline): a
 * manifest without them means these. */
void spec_legacy_search(struct spec *s);
/*
 * Overlays the members present in JSON text (from path, for messages) on
 * *s. Errors name the file, line and member: "<path>:<line>: <what>".
 */
int spec_parse_json(struct spec *s, const char *text, const char *path,
                    char *err, size_t errcap) KEVO_WUR;
/* Reads and parses a spec file. */
int spec_load(struct spec *s, const char *path, char *err,
              size_t errcap) KEVO_WUR;
/*
 * Settles the generation cap when none was given: none (0) if a time or
 * evaluation budget is set, else SPEC_GENERATIONS_DEFAULT. An explicit
 * --generations / "generations" always stands.
 */
void spec_resolve_budgets(struct spec *s);
/* The budgets in force as a new JSON object: only those set, e.g.
 * {"time_s": 600} or {"generations": 20, "stagnation": 5}; {} = none. */
cJSON *spec_budgets_json(const struct spec *s);
/* Completes and checks a spec: problem exists, dtype supported, shape
 * given and valid, numbers in range. */
int spec_validate(const struct spec *s, char *err, size_t errcap) KEVO_WUR;
/*
 * Resolves a GPU list: "all" (devices 0 .. n_avail-1) or comma-separated
 * distinct device numbers, each < n_avail when n_avail > 0 (n_avail <= 0:
 * unknown, only the syntax and "all" needing a count are checked). Fills
 * ids[0..max) and returns how many, or -1 with a message naming the list
 * and what is wrong in err.
 */
int spec_gpu_list(const char *text, int n_avail, int *ids, int max,
                  char *err, size_t errcap);
/* The spec as a new JSON object. */
cJSON *spec_to_json(const struct spec *s);
/* Parses "8h", "30m", "90s", "1.5h", "45" (seconds). -1 on error. */
double spec_parse_duration(const char *text);

#endif
