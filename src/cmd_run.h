/*
 * cmd_run.h - the search commands: `kevo run`, `kevo resume`, `kevo status`
 * and `kevo list`. The evaluator is chosen by name from a table of
 * factories that the executable provides (kevo: "gpu"; the test tools add
 * their deterministic evaluator), so this file never names a GPU.
 */
#ifndef KEVO_CMD_RUN_H
#define KEVO_CMD_RUN_H

#include "eval.h"
#include "problem.h"
#include "spec.h"
#include "tpl.h"

struct evaluator_factory {
    const char *name;
    /* Makes an evaluator for spec s. Fills *dev with the device facts
     * (or leaves the defaults). KEVO_ENODEV with a message = no GPU. */
    int (*create)(const struct spec *s, const struct problem *p,
                  struct evaluator *out, struct tpl_device *dev, char *err,
                  size_t errcap);
};

/* Each returns the process exit code: 0 done, 1 error, 2 usage, 3 needs a
 * GPU, 130 stopped by a signal (resumable). factories ends with a NULL
 * name. */
int cmd_run_main(int argc, char **argv,
                 const struct evaluator_factory *factories);
int cmd_resume_main(int argc, char **argv,
                    const struct evaluator_factory *factories);
int cmd_status_main(int argc, char **argv);
int cmd_list_main(int argc, char **argv);

/* Exit codes. */
enum { EXIT_DONE = 0, EXIT_ERROR = 1, EXIT_USAGE = 2, EXIT_NOGPU = 3,
       EXIT_STOPPED = 130 };

/* Finds the templates directory: dir if given, else $KEVO_TEMPLATES, else
 * ./templates, else next to the executable (../templates, templates). */
int cli_templates_dir(const char *given, char *out, size_t cap);
/* Finds the LLM prompt files: $KEVO_PROMPTS, ./mutators/prompts, or next
 * to the executable. */
int cli_prompts_dir(char *out, size_t cap);
/* What the LLM side of an existing run needs to build the same prompts
 * again: the prompts directory and the run's gpu_facts.txt (*facts is
 * new). Errors name what is missing. */
int cli_llm_inputs(const char *run_dir, char *prompts, size_t cap,
                   char **facts, char *err, size_t errcap);

#endif
