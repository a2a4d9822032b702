/*
 * tolerance.h - the run's tolerance as the coordinator shows and keeps it:
 * the worker reports the tolerance it checks with (its ready message's
 * "tolerance": PyTorch problems calibrate it there); the coordinator hands
 * it to its own copy of the problem (so prompts state what the worker
 * checks), keeps it in the manifest's environment (so status, report and a
 * resumed run's prompts read it back) and prints it at run start. Does not
 * compute a tolerance: problems and the worker do.
 */
#ifndef KEVO_CLI_TOLERANCE_H
#define KEVO_CLI_TOLERANCE_H

#include <stddef.h>

#include <cJSON.h>

#include "problem.h"

/* env_json with a "tolerance" object: the worker's if it sent one, else
 * p's own tolerance() at s and dt (an evaluator without a worker); either
 * is handed to p (problem_set_tolerance), so the prompts of the run's
 * start and of a resume (cli_tolerance_adopt of the manifest) are the
 * same text. Returns a new string (caller frees), or NULL without memory
 * or when env_json is not JSON. */
char *cli_tolerance_env(const struct problem *p, const struct shape *s,
                        enum dtype dt, const char *env_json);

/* Hands p the tolerance an environment object (a manifest's) records; a
 * no-op when it has none. For a resumed run. */
void cli_tolerance_adopt(const struct problem *p, enum dtype dt,
                         const cJSON *env);

/* "tolerance for out: atol 0.00027 rtol 1.9e-06 (calibrated: ...)" from
 * an environment object; "" when it records none. p names the outputs
 * (may be NULL). */
void cli_tolerance_line(const struct problem *p, const struct shape *s,
                        enum dtype dt, const cJSON *env, char *out,
                        size_t cap);

#endif
