/*
 * crossover.c - parameter crossover: uniform crossover of two parents of
 * the same template (each parameter from either parent). Children that
 * break a constraint are retried; if the parents agree everywhere the
 * operator declines.
 */
#include <string.h>

#include "mutator.h"

#define CROSS_TRIES 16

static int crossover_apply(const struct mut_ctx *ctx,
                           const struct genome *const *par,
                           struct genome *child)
{
    const struct tpl *t = ctx->tpls[par[0]->tpl];
    if (par[1]->tpl != par[0]->tpl)
        return -1;
    size_t bytes = sizeof(int64_t) * (size_t)t->n_params;
    for (int tries = 0; tries < CROSS_TRIES; tries++) {
        *child = *par[0];
        for (int i = 0; i < t->n_params; i++)
            if (rng_below(ctx->rng, 2))
                child->vals[i] = par[1]->vals[i];
        if (!memcmp(child->vals, par[0]->vals, bytes) ||
            !memcmp(child->vals, par[1]->vals, bytes))
            continue;
        if (tpl_point_valid(t, child->vals, ctx->dev))
            return 0;
    }
    return -1;
}

const struct mutator mut_crossover = {
    .name = "crossover",
    .summary = "mix the parameters of two parents of one template",
    .n_parents = 2,
    .apply = crossover_apply,
};
