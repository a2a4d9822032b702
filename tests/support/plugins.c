/*
 * plugins.c - test binaries start like kevo's main(): before main runs, the
 * plug-ins of fitness/ are handed to the core registry (probreg.h), so a
 * test finds "gemm" with problem_find and loads .problem files whose GPU
 * hooks are attached. Linked into every test and tool binary.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fitness.h"

__attribute__((constructor)) static void register_plugins(void)
{
    if (fitness_register()) {
        fprintf(stderr, "tests: cannot register the fitness plug-ins\n");
        abort(); /* a test binary, not kevo: nothing to save */
    }
}
