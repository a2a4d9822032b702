/*
 * llm_propose.c - the LLM operator without a parent: asks for a new
 * template from the problem's facts alone (prompts/propose.txt). The
 * engine sends n_variants requests with variant 0..n-1; the text names the
 * variant so each request asks for a different design and none is a cache
 * hit of another.
 */
#include "llm_facts.h"

static int propose_build(const struct llm_prompt_ctx *ctx,
                         const struct llm_parent *par, char **system,
                         char **user, char *err, size_t errcap)
{
    struct prompt_vars pv;
    int n = ctx->n_variants > 0 ? ctx->n_variants : 1;
    int v = ctx->variant >= 0 && ctx->variant < n ? ctx->variant : 0;
    prompt_vars_init(&pv);
    prompt_vars_setf(&pv, "N_VARIANTS", "%d", n);
    prompt_vars_setf(&pv, "VARIANT", "%d", v + 1);
    int rc =
        llm_prompts_build(ctx, &pv, "propose.txt", system, user, err, errcap);
    prompt_vars_release(&pv);
    return rc;
}

const struct llm_mutator llm_propose = {
    .name = "llm_propose",
    .role = LLM_ROLE_PROPOSE,
    .summary = "LLM writes a new template from the problem's facts (no parent)",
    .n_parents = 0,
    .build = propose_build,
};
