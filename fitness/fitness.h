/*
 * fitness.h - the plug-in folder fitness/ as the rest of kevo sees it: one
 * call that hands every built-in problem, the GPU hooks of .problem files
 * and the PyTorch kind (torchprob.h) to the core registry (probreg.h). Only main.c (and the test
 * binaries' start-up, tests/support/plugins.c) calls it; nothing below the
 * engine names fitness/.
 */
#ifndef KEVO_FITNESS_H
#define KEVO_FITNESS_H

#include "probreg.h"
#include "status.h"

/* Registers the built-in problems and attaches the "file" kind's GPU
 * hooks. Call once, first thing; a second call is KEVO_EEXIST. */
int fitness_register(void) KEVO_WUR;

/* The problems and hooks it hands in (one file each in fitness/). */
extern const struct problem prob_gemm;
extern const struct problem prob_softmax;
extern const struct problem_gpu userprob_gpu;

#endif
