/*
 * registry.c - the problems kevo ships, handed to the core registry
 * (probreg.h) at start-up. Adding a problem = one file in fitness/ plus one
 * line here; nothing in src/ changes.
 */
#include "fitness.h"

static const struct problem *const builtins[] = {
    &prob_gemm,
    &prob_softmax,
};

int fitness_register(void)
{
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++) {
        int rc = problem_register(builtins[i]);
        if (rc)
            return rc;
    }
    return problem_kind_attach("file", &userprob_gpu);
}
