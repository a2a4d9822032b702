/*
 * llm_crossover.c - the LLM operator with two parents of different
 * families: shows both with their numbers (prompts/crossover.txt) and asks
 * for one template that combines their strengths.
 */
#include "llm_facts.h"

static int crossover_build(const struct llm_prompt_ctx *ctx,
                           const struct llm_parent *par, char **system,
                           char **user, char *err, size_t errcap)
{
    struct prompt_vars pv;
    *system = *user = NULL;
    int rc = llm_facts_check_parents("llm_crossover", 2, par, err, errcap);
    if (rc)
        return rc;
    prompt_vars_init(&pv);
    llm_facts_parent(&pv, "A", ctx, &par[0]);
    llm_facts_parent(&pv, "B", ctx, &par[1]);
    rc =
        llm_prompts_build(ctx, &pv, "crossover.txt", system, user, err, errcap);
    prompt_vars_release(&pv);
    return rc;
}

const struct llm_mutator llm_crossover = {
    .name = "llm_crossover",
    .role = LLM_ROLE_VARY,
    .summary = "LLM combines two templates of different families",
    .n_parents = 2,
    .build = crossover_build,
};
