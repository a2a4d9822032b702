/*
 * cmd_run.h - the search commands: `kevo run`, `kevo resume`, `kevo status`
 * and `kevo list`. The evaluator is chosen by name from a table of
 * factories that the executable provides (kevo: "gpu"; the test tools add
 * their deterministic evaluator), so this file never names a GPU.
 */
#ifndef KEVO_CMD_RUN_H
#define KEVO_CMD_RUN_H

#include "cli.h"
#include "evfactory.h"

/* Each returns the process exit code: 0 done, 1 error, 2 usage, 3 needs a
 * GPU, 130 stopped by a signal (resumable). factories ends with a NULL
 * name. */
int cmd_run_main(int argc, char **argv,
                 const struct evaluator_factory *factories);
int cmd_resume_main(int argc, char **argv,
                    const struct evaluator_factory *factories);
int cmd_status_main(int argc, char **argv);
int cmd_list_main(int argc, char **argv);

#endif
