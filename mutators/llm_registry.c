/*
 * llm_registry.c - the list of LLM mutators (see llm_mutator.h).
 */
#include <string.h>

#include "llm_mutator.h"

const struct llm_mutator *const kevo_llm_mutators[] = {
    &llm_propose, &llm_rewrite, &llm_crossover, &llm_repair, NULL,
};

const struct llm_mutator *llm_mutator_for(enum llm_role r, int n_parents)
{
    for (int i = 0; kevo_llm_mutators[i]; i++)
        if (kevo_llm_mutators[i]->role == r &&
            (n_parents < 0 || kevo_llm_mutators[i]->n_parents == n_parents))
            return kevo_llm_mutators[i];
    return NULL;
}

const struct llm_mutator *llm_mutator_find(const char *name)
{
    for (int i = 0; kevo_llm_mutators[i]; i++)
        if (!strcmp(kevo_llm_mutators[i]->name, name))
            return kevo_llm_mutators[i];
    return NULL;
}
