/*
 * registry.c - the problems kevo ships, handed to the core registry
 * (probreg.h) at start-up. Adding a problem = one file in fitness/ plus one
 * line here; nothing in src/ changes.
 */
#include "fitness.h"
#include "torchprob.h"

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
    int rc = problem_kind_add(&torchprob_kind);
    if (!rc)
        rc = problem_kind_attach("torch", &torchprob_gpu);
    return rc ? rc : problem_kind_attach("file", &userprob_gpu);
}
