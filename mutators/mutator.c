/*
 * mutator.c - lookups in the table of cheap mutators (registry.c): by
 * name, by number of parents, and a seeded draw among those with a number
 * of parents. Holds no table itself.
 */
#include <string.h>

#include "mutator.h"

const struct mutator *mutator_for(int n_parents)
{
    for (int i = 0; kevo_mutators[i]; i++)
        if (kevo_mutators[i]->n_parents == n_parents)
            return kevo_mutators[i];
    return NULL;
}

const struct mutator *mutator_find(const char *name)
{
    for (int i = 0; kevo_mutators[i]; i++)
        if (!strcmp(kevo_mutators[i]->name, name))
            return kevo_mutators[i];
    return NULL;
}

const struct mutator *mutator_draw(int n_parents, struct rng *rng)
{
    int n = 0;
    for (int i = 0; kevo_mutators[i]; i++)
        n += kevo_mutators[i]->n_parents == n_parents;
    if (n < 2) /* none, or the only one: no draw */
        return mutator_for(n_parents);
    int k = (int)rng_below(rng, (uint64_t)n);
    for (int i = 0; kevo_mutators[i]; i++)
        if (kevo_mutators[i]->n_parents == n_parents && k-- == 0)
            return kevo_mutators[i];
    return NULL;
}
