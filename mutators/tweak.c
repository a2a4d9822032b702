/*
 * tweak.c - parameter tweak: step one or two parameters to a neighbouring
 * value in their declared list (tile 64 -> 32 or 128), and now and then
 * jump one parameter to any value, so the search can leave a basin. Only
 * children that satisfy the template's constraints are returned. With
 * ctx->repair (runs since session 13; earlier runs replay without it), a
 * step that breaks a constraint is repaired, where one other parameter
 * can, by moving that one to its nearest value that satisfies them all (a
 * switch that only applies to 2-CTA clusters turned off when the step
 * leaves them), so a default with such switches on is not a dead end.
 */
#include <string.h>

#include "mutator.h"

#define TWEAK_TRIES 32

/* Steps one parameter; returns its index. */
static int step_param(const struct mut_ctx *ctx, const struct tpl *t,
                      struct genome *g)
{
    int i = (int)rng_below(ctx->rng, (uint64_t)t->n_params);
    const struct tpl_param *p = &t->params[i];
    if (p->n_values < 2)
        return i;
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
    return i;
}

/* Makes g valid by moving one parameter other than the stepped ones
 * (mask) to the value nearest its current one that satisfies every
 * constraint, the parameters tried from a random one on; 0 when done. */
static int repair(const struct mut_ctx *ctx, const struct tpl *t,
                  struct genome *g, uint64_t stepped)
{
    const int n = t->n_params;
    const int first = (int)rng_below(ctx->rng, (uint64_t)n);
    for (int k = 0; k < n; k++) {
        const int j = (first + k) % n;
        const struct tpl_param *p = &t->params[j];
        if ((stepped >> j) & 1 || p->n_values < 2)
            continue;
        const int64_t keep = g->vals[j];
        const int at = tpl_value_index(t, j, keep);
        for (int d = 1; d < p->n_values; d++)
            for (int side = -1; side <= 1; side += 2) {
                const int to = (at < 0 ? 0 : at) + side * d;
                if (to < 0 || to >= p->n_values)
                    continue;
                g->vals[j] = p->values[to];
                if (tpl_point_valid(t, g->vals, ctx->dev))
                    return 0;
            }
        g->vals[j] = keep;
    }
    return -1;
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
        uint64_t stepped = 0;
        for (int s = 0; s < steps; s++)
            stepped |= 1ull << step_param(ctx, t, child);
        if (!memcmp(child->vals, par[0]->vals,
                    sizeof(int64_t) * (size_t)t->n_params))
            continue;
        if (tpl_point_valid(t, child->vals, ctx->dev) ||
            (ctx->repair && !repair(ctx, t, child, stepped)))
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
