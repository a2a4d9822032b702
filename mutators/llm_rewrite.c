/*
 * llm_rewrite.c - the LLM operator with one measured parent: shows its
 * template, point, times, resources and counters (prompts/rewrite.txt) and
 * asks for a faster template with the same ABI and tunable parameters.
 */
#include "llm_facts.h"

static int rewrite_build(const struct llm_prompt_ctx *ctx,
                         const struct llm_parent *par, char **system,
                         char **user, char *err, size_t errcap)
{
    struct prompt_vars pv;
    *system = *user = NULL;
    int rc = llm_facts_check_parents("llm_rewrite", 1, par, err, errcap);
    if (rc)
        return rc;
    prompt_vars_init(&pv);
    llm_facts_parent(&pv, "PARENT", ctx, &par[0]);
    rc = llm_prompts_build(ctx, &pv, "rewrite.txt", system, user, err, errcap);
    prompt_vars_release(&pv);
    return rc;
}

const struct llm_mutator llm_rewrite = {
    .name = "llm_rewrite",
    .role = LLM_ROLE_VARY,
    .summary = "LLM rewrites a measured template into a faster one",
    .n_parents = 1,
    .build = rewrite_build,
};
