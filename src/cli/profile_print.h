/*
 * profile_print.h - `kevo eval --profile` / `kevo verify --profile`: asks
 * the evaluator for a candidate's hardware profile and prints it (one
 * JSON line, or the diagnosis and one line of raw metrics per launch).
 */
#ifndef KEVO_PROFILE_PRINT_H
#define KEVO_PROFILE_PRINT_H

#include "eval.h"
#include "problem.h"
#include "status.h"

/*
 * Profiles c with ev (which must have a profile op; KEVO_EINVAL naming
 * label otherwise) and prints it under label on stdout. A profile that is
 * not available is printed as such (KEVO_OK); an evaluator error is
 * returned.
 */
int cli_print_profile(const struct evaluator *ev, const struct candidate *c,
                      const struct problem *p, const struct shape *s,
                      enum dtype dt, const char *label, int json) KEVO_WUR;

#endif
