/*
 * registry.c - the table of cheap mutators (see mutator.h): the one list
 * the engine, the operator bandit and `kevo list` read. Adding a mutator
 * is its file plus one line here; lookups are in mutator.c, so a test can
 * link its own table.
 */
#include <stddef.h>

#include "mutator.h"

extern const struct mutator mut_tweak;
extern const struct mutator mut_crossover;

const struct mutator *const kevo_mutators[] = {
    &mut_tweak,
    &mut_crossover,
    NULL,
};
