/*
 * cli.h - what the commands share (cli.c): exit codes, kevo's data
 * directories, an existing run's LLM inputs, writing outputs.
 */
#ifndef KEVO_CLI_H
#define KEVO_CLI_H

#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Exit codes. */
enum { EXIT_DONE = 0, EXIT_ERROR = 1, EXIT_USAGE = 2, EXIT_NOGPU = 3,
       EXIT_STOPPED = 130 };

/* Finds the templates directory: dir if given, else $KEVO_TEMPLATES, else
 * ./templates, else next to the executable (../templates, templates). */
int cli_templates_dir(const char *given, char *out, size_t cap);
/* The directory `kevo list` searches for user-defined problems (DIR/x.problem
 * and DIR/y/x.problem): given, else $KEVO_PROBLEMS, else problems/, else
 * examples/problems/ (found as cli_templates_dir finds templates/). */
int cli_problems_dir(const char *given, char *out, size_t cap);
/* --problem NAME for a user problem: loads NAME/NAME.problem or
 * NAME.problem from cli_problems_dir(NULL). KEVO_ENOENT (err untouched)
 * when there is none; a bad file's error otherwise. */
int cli_user_problem(const char *name, char *err, size_t errcap);
/* Finds the LLM prompt files: $KEVO_PROMPTS, ./mutators/prompts, or next
 * to the executable. */
int cli_prompts_dir(char *out, size_t cap);
/* What the LLM side of an existing run needs to build the same prompts
 * again: the prompts directory and the run's gpu_facts.txt (*facts is
 * new). Errors name what is missing. */
int cli_llm_inputs(const char *run_dir, char *prompts, size_t cap,
                   char **facts, char *err, size_t errcap);

/* A seed for a fresh measurement (kevo eval, kevo verify): time and pid,
 * hashed. */
uint64_t cli_fresh_seed(void);
/* Writes the whole text to path (replacing it; never through a link in a
 * run directory: fsutil.h). The status (KEVO_ENOSPC, KEVO_ELINK, ...)
 * names nothing; the caller adds the path. */
int outputs_write_file(const char *path, const char *text) KEVO_WUR;
/* Prints a JSON value to stdout, formatted, with a newline. */
void outputs_print_json(const cJSON *o);

#endif
