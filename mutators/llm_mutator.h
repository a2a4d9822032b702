/*
 * llm_mutator.h - the LLM operators: propose, rewrite, crossover, repair.
 * One file per operator in mutators/ (llm_propose.c, ...); each builds the
 * prompt for its request from the prompt text files in mutators/prompts/
 * (loaded at run time, so a user can edit them) and the facts it is given.
 * The answer is parsed and validated by answer.h into a new template,
 * which the engine adds to the run so that the cheap mutators explore its
 * parameter space.
 *
 * Prompts state the problem, its ABI, the GPU's facts, the parent(s) with
 * their measured numbers, and the exact answer format (a template with
 * `// kevo:` directives, see tpl.h).
 */
#ifndef KEVO_LLM_MUTATOR_H
#define KEVO_LLM_MUTATOR_H

#include <stddef.h>
#include <stdint.h>

#include "eval.h"
#include "problem.h"
#include "tpl.h"

/* What the prompt says about one parent. */
struct llm_parent {
    const struct tpl *tpl;       /* its template (text = the template) */
    const int64_t *vals;         /* its point, tpl->n_params values */
    const struct eval_result *r; /* its measured result: outcome, times,
                                    fitness, ratio, roofline, resources,
                                    detail (compile log / wrong-answer
                                    evidence) */
    const struct kprof *prof;    /* (optional) its hardware profile */
};

struct llm_prompt_ctx {
    const char *prompts_dir;        /* mutators/prompts */
    const struct problem *problem;
    enum dtype dtype;
    const struct shape *shape;
    const char *gpu_facts;          /* arch, SMs, shared memory, L2,
                                       bandwidth and FLOP ceilings (text) */
    double best_fitness;            /* current best, work_unit (0 = none) */
    double baseline_fitness;        /* main baseline (0 = unknown) */
    const char *baseline_name;      /* (optional) its name: "cublas",
                                       "copy"; a copy is reported in bytes/s,
                                       never as the problem's work unit */
    double baseline_ns;             /* (optional) its time per call */
    int n_variants;                 /* propose: how many to ask for */
    int variant;                    /* propose: which one this request is,
                                       0 .. n_variants-1 (one answer per
                                       request; the text differs by it) */
};

/* What the engine uses an LLM operator for (it iterates
 * kevo_llm_mutators and never names one): proposals of new templates in
 * generation 0, variation of parents as a bandit arm beside the cheap
 * mutators, repair of a child that failed to compile or was wrong. */
enum llm_role { LLM_ROLE_PROPOSE, LLM_ROLE_VARY, LLM_ROLE_REPAIR };

struct llm_mutator {
    const char *name;     /* "llm_propose", "llm_rewrite", ... */
    enum llm_role role;
    const char *summary;  /* one line for `kevo list` */
    int n_parents;        /* 0 (propose), 1 (rewrite, repair), 2 */
    /* Builds the request: *system and *user are new strings (caller
     * frees). Errors (a prompt file missing or malformed) name the file. */
    int (*build)(const struct llm_prompt_ctx *ctx,
                 const struct llm_parent *par, char **system, char **user,
                 char *err, size_t errcap);
};

extern const struct llm_mutator llm_propose, llm_rewrite, llm_crossover,
    llm_repair;
/* NULL-terminated: propose, rewrite, crossover, repair. */
extern const struct llm_mutator *const kevo_llm_mutators[];
const struct llm_mutator *llm_mutator_find(const char *name);
/* The first operator of the table with role r and n_parents parents (-1:
 * any number), or NULL. */
const struct llm_mutator *llm_mutator_for(enum llm_role r, int n_parents);

#endif
