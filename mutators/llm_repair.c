/*
 * llm_repair.c - the LLM operator for a parent that failed: shows its
 * template and the failure's evidence (compile log, max error and first
 * bad index, fault; prompts/repair.txt) and asks for a fixed template that
 * keeps the design.
 */
#include "llm_facts.h"

static int repair_build(const struct llm_prompt_ctx *ctx,
                        const struct llm_parent *par, char **system,
                        char **user, char *err, size_t errcap)
{
    struct prompt_vars pv;
    *system = *user = NULL;
    int rc = llm_facts_check_parents("llm_repair", 1, par, err, errcap);
    if (rc)
        return rc;
    prompt_vars_init(&pv);
    llm_facts_parent(&pv, "PARENT", ctx, &par[0]);
    rc = llm_prompts_build(ctx, &pv, "repair.txt", system, user, err, errcap);
    prompt_vars_release(&pv);
    return rc;
}

const struct llm_mutator llm_repair = {
    .name = "llm_repair",
    .role = LLM_ROLE_REPAIR,
    .summary = "LLM fixes a template that failed (compile error, wrong, ...)",
    .n_parents = 1,
    .build = repair_build,
};
