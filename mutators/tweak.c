/*
 * tweak.c - parameter tweak: step one or two parameters to a neighbouring
 * value in their declared list (tile 64 -> 32 or 128), and now and then
 * jump one parameter to any value, so the search can leave a basin. Only
 * children that satisfy the template's constraints are returned.
 */
#include <string.h>

#include "mutator.h"

#define TWEAK_TRIES 32

static void step_param(const struct mut_ctx *ctx, const struct tpl *t,
                       struct genome *g)
{
    int i = (int)rng_below(ctx->rng, (uint64_t)t->n_params);
    const struct tpl_param *p = &t->params[i];
    if (p->n_values < 2)
        return;
    int at = tpl_value_index(t, i, g->vals[i]);
    int to;
    if (at < 0 || rng_unit(ctx->rng) < 0.15) {
        to = (int)rng_below(ctx->rng, (uint64_t)p->n_values);
    } else {
        to = at + (rng_below(ctx->rng, 2) ? 1 : -1);
        if (to < 0)
            to = 1;
        if (to >= p->n_values)
            to = p->n_values - 2;
    }
    g->vals[i] = p->values[to];
}

static int tweak_apply(const struct mut_ctx *ctx,
                       const struct genome *const *par, struct genome *child)
{
    const struct tpl *t = ctx->tpls[par[0]->tpl];
    if (t->n_params == 0)
        return -1;
    for (int tries = 0; tries < TWEAK_TRIES; tries++) {
        *child = *par[0];
        int steps = 1 + (rng_unit(ctx->rng) < 0.3);
        for (int s = 0; s < steps; s++)
            step_param(ctx, t, child);
        if (memcmp(child->vals, par[0]->vals,
                   sizeof(int64_t) * (size_t)t->n_params) &&
            tpl_point_valid(t, child->vals, ctx->dev))
            return 0;
    }
    return -1;
}

const struct mutator mut_tweak = {
    .name = "tweak",
    .summary = "step one or two parameters to a neighbouring value",
    .n_parents = 1,
    .apply = tweak_apply,
};
