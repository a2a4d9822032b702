/*
 * main.c - kevo's entry point: git-style command dispatch. The only file
 * that exits. Wires the GPU evaluator into the search commands and runs
 * the hidden `__worker` command that the GPU evaluator starts itself with.
 */
#include <stdio.h>
#include <string.h>

#include "cmd_gpu.h"
#include "cmd_outputs.h"
#include "cmd_promote.h"
#include "cmd_repro.h"
#include "cmd_sanitize.h"
#include "cmd_run.h"
#include "cmd_search.h"
#include "fitness.h"
#include "gpueval.h"
#include "gpuset.h"
#include "hash.h"
#include "jit.h"
#include "rundir.h"
#include "secret.h"
#include "version.h"
#include "worker.h"

static int gpu_create(const struct spec *s, const struct problem *p,
                      struct evaluator *out, struct tpl_device *dev,
                      char *err, size_t errcap)
{
    struct gpueval_opts o = {
        .problem = p,
        .dtype = s->dtype,
        .shape = s->shape,
        .arch = s->arch[0] ? s->arch : NULL,
        .n_compilers = s->compilers,
        .compile_timeout_ms = s->compile_timeout_ms,
        .kernel_timeout_ms = s->kernel_timeout_ms,
        /* derived from the run seed so a run is reproducible; it never
         * reaches a candidate's source */
        .harness_seed = hash_final(hash_u64(HASH_SEED ^ 0x6b65766fULL,
                                            s->seed)),
    };
    if (s->gpus[0]) { /* several GPUs, one worker each (gpuset.h) */
        int ids[SPEC_MAX_GPUS], all = !strcmp(s->gpus, "all");
        int n = all ? 0 : spec_gpu_list(s->gpus, 0, ids, SPEC_MAX_GPUS, err,
                                        errcap);
        return n < 0 ? KEVO_EINVAL
                     : gpuset_new(&o, all, ids, n, out, dev, err, errcap);
    }
    return gpueval_new(&o, out, dev, err, errcap);
}

static const struct evaluator_factory factories[] = {
    {"gpu", gpu_create},
    {NULL, NULL},
};

struct command {
    const char *name;
    const char *summary;
    int needs_gpu;
    int (*run)(int argc, char **argv);
};

static int run_cmd(int argc, char **argv)
{
    return cmd_run_main(argc, argv, factories);
}

static int resume_cmd(int argc, char **argv)
{
    return cmd_resume_main(argc, argv, factories);
}

static const struct command commands[] = {
    {"list", "problems, templates (with the size of their space), mutators",
     0, cmd_list_main},
    {"run", "evolve kernels for a problem and shape; writes runs/<name>/", 1,
     run_cmd},
    {"resume", "continue a stopped, crashed or killed run", 1, resume_cmd},
    {"status", "where a run stands: generation, evaluations, best, budget",
     0, cmd_status_main},
    {"eval", "compile, check and time one kernel template", 1,
     cmd_eval_main},
    {"doctor", "check the GPU, driver, NVRTC, CUPTI and cuBLAS", 0,
     cmd_doctor_main},
    {"replay", "re-run a run's search on its recorded results; prove it "
     "identical", 0, cmd_replay_main},
    {"verify", "re-measure a run's best kernels in a fresh GPU worker", 1,
     cmd_verify_main},
    {"bench", "the fixed benchmark suite: one run per case, one table", 1,
     cmd_bench_main},
    {"report", "Markdown + HTML report of a run, with charts", 0, cmd_report_main},
    {"leaderboard", "best kernel of each run, by problem/shape/GPU", 0, cmd_board_main},
    {"export", "the winning kernel as .cu, C launcher or PyTorch op", 0, cmd_export_main},
    {"promote", "add a verified LLM-born template of a run to the library",
     0, cmd_promote_main},
    {"table", "a run's measured points as a table for run --simulate", 0,
     cmd_table_main},
    {"bench-search", "search strategies compared on a recorded table (no "
     "GPU)", 0, cmd_bench_search_main},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: kevo <command> [options]   (kevo <command> --help)\n\n"
               "kevo evolves fast CUDA kernels for one GPU.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-8s %s%s\n", commands[i].name, commands[i].summary,
                commands[i].needs_gpu ? " (needs a GPU)" : "");
    fprintf(f, "\nkevo %s (%s), NVRTC %s\n", KEVO_VERSION, kevo_git_commit(),
            jit_nvrtc_version());
}

int main(int argc, char **argv)
{
    /* the plug-ins, handed to the core registry before anything looks a
     * problem up (the worker too: it loads .problem files) */
    if (fitness_register()) {
        fprintf(stderr, "kevo: cannot register the built-in problems\n");
        return EXIT_ERROR;
    }
    if (argc >= 2 && !strcmp(argv[1], "__worker"))
        return worker_main(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "__sanitize-probe"))
        return cmd_sanprobe_main(argc - 1, argv + 1);
    if (argc == 3 && !strcmp(argv[1], "help")) {
        /* kevo help CMD = kevo CMD --help */
        static char help[] = "--help";
        char *hv[] = {argv[2], help, NULL};
        for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
            if (!strcmp(argv[2], commands[i].name))
                return commands[i].run(2, hv);
        fprintf(stderr, "kevo: '%s' is not a kevo command (see kevo --help)\n",
                argv[2]);
        return EXIT_USAGE;
    }
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_DONE;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("kevo %s (%s)\n", KEVO_VERSION, kevo_git_commit());
        return EXIT_DONE;
    }
    if (secret_add_defaults()) { /* keys reach no file, no prompt */
        fprintf(stderr, "kevo: out of memory\n");
        return EXIT_ERROR;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "kevo: '%s' is not a kevo command (see kevo --help)\n",
            argv[1]);
    return EXIT_USAGE;
}
