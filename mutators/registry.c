/*
 * registry.c - the list of mutators (see mutator.h).
 */
#include <string.h>

#include "mutator.h"

extern const struct mutator mut_tweak;
extern const struct mutator mut_crossover;

const struct mutator *const kevo_mutators[] = {
    &mut_tweak,
    &mut_crossover,
    NULL,
};

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
