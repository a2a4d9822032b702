/*
 * kevo_test.c - kevo's search commands wired to the deterministic test
 * evaluator (tests/support/testeval.c) instead of the GPU, so that the
 * CLI, run directories, signals and kill -9 / resume can be tested on a
 * machine with no GPU. Used only by tests.
 */
#include <stdio.h>
#include <string.h>

#include "cmd_run.h"
#include "testeval.h"

int main(int argc, char **argv)
{
    struct evaluator_factory f[2] = {testeval_factory, {NULL, NULL}};
    if (argc < 2) {
        fprintf(stderr, "usage: kevo_test run|resume|status|list ...\n");
        return 2;
    }
    if (!strcmp(argv[1], "run"))
        return cmd_run_main(argc - 1, argv + 1, f);
    if (!strcmp(argv[1], "resume"))
        return cmd_resume_main(argc - 1, argv + 1, f);
    if (!strcmp(argv[1], "status"))
        return cmd_status_main(argc - 1, argv + 1);
    if (!strcmp(argv[1], "list"))
        return cmd_list_main(argc - 1, argv + 1);
    fprintf(stderr, "kevo_test: unknown command '%s'\n", argv[1]);
    return 2;
}
