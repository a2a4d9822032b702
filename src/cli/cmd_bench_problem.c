/*
 * cmd_bench_problem.c - `kevo bench --torch-problem F` (or --problem-file
 * F, --problem P) with no candidate: loads the problem, starts a GPU
 * worker for it, which runs every check that precedes candidates (for a
 * PyTorch module: the fp64 reference twice, bitwise equal and finite; the
 * tolerance calibration) and times every baseline (torch eager and
 * torch.compile, or a .problem's / built-in's own), then prints them. How
 * a KernelBench file is tried "unchanged". It evaluates nothing and writes
 * no run directory.
 */
#include "cmd_repro.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli.h"
#include "eval.h"
#include "gpu.h"
#include "gpueval.h"
#include "progress.h"
#include "record.h"
#include "tolerance.h"
#include "tpl.h"

#define MAX_SETS 32

static const char usage[] =
    "usage: kevo bench --torch-problem F.py [--set NAME=VALUE] [--dtype D]\n"
    "       kevo bench --problem-file F.problem | --problem P [--shape S]\n"
    "\n"
    "With a problem and no candidate: starts a GPU worker for it, runs the\n"
    "checks that precede candidates (a PyTorch module: its fp64 run twice,\n"
    "bitwise equal and finite, then the tolerance calibration) and times\n"
    "every baseline (torch eager and torch.compile, timed like a candidate:\n"
    "kevo's L2 flush, CUPTI records of the kernels one call launched, the\n"
    "median; 'wall' is the CUDA-event time around the call), then prints\n"
    "them. Nothing is written.\n"
    "\n"
    "  --set NAME=VALUE  one size by name (repeatable); a PyTorch module's\n"
    "                    shape defaults to its own sizes\n"
    "  --shape S         all sizes, e.g. 128x4000\n"
    "  --dtype D         fp32 | fp16 | bf16 (default fp32)\n"
    "  --seed N          harness seed (default 1)\n"
    "  --json            the worker's environment object on stdout\n"
    "\n"
    "exit status: 0 every step passed, 1 a step failed, 2 usage, 3 no GPU\n";

struct pbench {
    const struct problem *p;
    const char *shape, *dtype;
    const char *sets[MAX_SETS];
    int n_sets, json;
    unsigned long long seed;
};

int cmd_bench_wants_problem(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--torch-problem") ||
            !strncmp(argv[i], "--torch-problem=", 16) ||
            !strcmp(argv[i], "--problem-file") ||
            !strncmp(argv[i], "--problem-file=", 15) ||
            !strcmp(argv[i], "--problem") ||
            !strncmp(argv[i], "--problem=", 10))
            return 1;
    return 0;
}

static int load(const char *file, const char *name, struct pbench *b)
{
    char err[1024];
    int rc = KEVO_OK;
    if (file)
        rc = problem_load_file(file, &b->p, err, sizeof err);
    else if (!(b->p = problem_find(name)) &&
             !(rc = cli_user_problem(name, err, sizeof err)))
        b->p = problem_find(name);
    if (!rc && !b->p) {
        snprintf(err, sizeof err, "unknown problem '%s'", name);
        rc = KEVO_EINVAL;
    }
    if (rc)
        fprintf(stderr, "kevo bench: %s\n", err);
    return rc ? EXIT_ERROR : 0;
}

static int parse(int argc, char **argv, struct pbench *b)
{
    static const struct option opts[] = {
        {"torch-problem", 1, 0, 'F'}, {"problem-file", 1, 0, 'F'},
        {"problem", 1, 0, 'p'}, {"set", 1, 0, 'X'}, {"shape", 1, 0, 's'},
        {"dtype", 1, 0, 'd'}, {"seed", 1, 0, 'S'}, {"json", 0, 0, 'j'},
        {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    const char *file = NULL, *name = NULL;
    int c;
    optind = 1;
    opterr = 0;
    b->seed = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(usage, stdout); return -1;
        case 'F': file = optarg; break;
        case 'p': name = optarg; break;
        case 's': b->shape = optarg; break;
        case 'd': b->dtype = optarg; break;
        case 'j': b->json = 1; break;
        case 'S': b->seed = strtoull(optarg, NULL, 0); break;
        case 'X':
            if (b->n_sets == MAX_SETS) {
                fprintf(stderr, "kevo bench: more than %d --set\n", MAX_SETS);
                return EXIT_USAGE;
            }
            b->sets[b->n_sets++] = optarg;
            break;
        default:
            fprintf(stderr, "kevo bench: unknown option '%s' with a problem "
                    "(see kevo bench --help)\n", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "kevo bench: unexpected argument '%s'\n",
                argv[optind]);
        return EXIT_USAGE;
    }
    if (!!file == !!name) {
        fprintf(stderr, "kevo bench: give one problem (--torch-problem, "
                "--problem-file or --problem)\n");
        return EXIT_USAGE;
    }
    return load(file, name, b);
}

/* The gpueval options: shape (the module's own sizes, --shape, --set),
 * dtype; prints the error and returns EXIT_USAGE. */
static int options(const struct pbench *b, struct gpueval_opts *o)
{
    char err[512];
    const char *sh = b->shape ? b->shape : problem_default_shape(b->p);
    memset(o, 0, sizeof *o);
    o->problem = b->p;
    o->harness_seed = b->seed;
    o->n_compilers = 1;
    o->dtype = DTYPE_FP32;
    if (b->dtype && (dtype_parse(b->dtype, &o->dtype) ||
                     !(b->p->dtype_mask & 1u << o->dtype))) {
        fprintf(stderr, "kevo bench: --dtype: '%s' is not a dtype of %s\n",
                b->dtype, b->p->name);
        return EXIT_USAGE;
    }
    if (!sh) {
        fprintf(stderr, "kevo bench: --shape is required for %s\n",
                b->p->name);
        return EXIT_USAGE;
    }
    int rc = problem_parse_shape(b->p, sh, &o->shape, err, sizeof err);
    for (int i = 0; i < b->n_sets && !rc; i++)
        rc = problem_shape_set(b->p, &o->shape, b->sets[i], err, sizeof err);
    if (!rc && b->p->check_shape)
        rc = b->p->check_shape(b->p, &o->shape, err, sizeof err);
    if (rc) {
        fprintf(stderr, "kevo bench: %s\n", err);
        return EXIT_USAGE;
    }
    return 0;
}

static void fmt_us(double ns, char *out, size_t cap)
{
    snprintf(out, cap, "%.2f us", ns / 1e3);
}

/* Every baseline, the tolerance, and what was skipped. */
static void print(const struct pbench *b, const struct gpueval_opts *o,
                  const char *env_json)
{
    cJSON *j = cJSON_Parse(env_json);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "device"), *x;
    char shape[64], tol[2048], t[32], w[32], f[64];
    problem_format_shape(&o->shape, shape, sizeof shape);
    printf("# %s, %s %s %s, timer %s\n",
           record_str(d, "name") ? record_str(d, "name") : "GPU", b->p->name,
           dtype_name(o->dtype), shape,
           record_str(j, "timer") ? record_str(j, "timer") : "?");
    printf("checks: passed (inputs, fp64 reference%s)\n",
           b->p->file_text && b->p->description == b->p->file_text
               ? " twice: bitwise equal and finite" : "");
    cli_tolerance_line(b->p, &o->shape, o->dtype, j, tol, sizeof tol);
    if (tol[0])
        printf("%s\n", tol);
    int n = 0;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(j, "baselines")) {
        struct record_baseline bl;
        record_get_baseline(x, &bl);
        fmt_us(bl.median_ns, t, sizeof t);
        progress_fmt_fitness(bl.fitness, b->p->work_unit, f, sizeof f);
        w[0] = '\0';
        if (bl.wall_ns > 0) {
            char u[32];
            fmt_us(bl.wall_ns, u, sizeof u);
            snprintf(w, sizeof w, ", wall %s", u);
        }
        printf("baseline %s: %s = %s%s\n", bl.name[0] ? bl.name : "?", t, f,
               w);
        n++;
    }
    if (!n)
        printf("baseline: none (the problem has no baseline)\n");
    const char *note = record_str(j, "baseline_note");
    if (note && *note)
        printf("note: %s\n", note);
    cJSON_Delete(j);
}

int cmd_bench_problem_main(int argc, char **argv)
{
    struct pbench b;
    struct gpueval_opts o;
    memset(&b, 0, sizeof b);
    int x = parse(argc, argv, &b);
    if (!x)
        x = options(&b, &o);
    if (x)
        return x < 0 ? EXIT_DONE : x;
    if (!gpu_driver_present()) {
        fprintf(stderr, "kevo bench needs a GPU: no NVIDIA driver "
                "(libcuda.so.1 not found)\n");
        return EXIT_NOGPU;
    }
    struct evaluator ev;
    struct tpl_device dev;
    char err[1024];
    int rc = gpueval_new(&o, &ev, &dev, err, sizeof err);
    if (rc) {
        fprintf(stderr, "kevo bench%s%s\n", rc == KEVO_ENODEV
                ? " needs a GPU: " : ": ", err);
        return rc == KEVO_ENODEV ? EXIT_NOGPU : EXIT_ERROR;
    }
    char *env = ev.ops->environment ? ev.ops->environment(ev.self) : NULL;
    if (!env) {
        fprintf(stderr, "kevo bench: the worker reported no environment\n");
        x = EXIT_ERROR;
    } else if (b.json) {
        printf("%s\n", env);
    } else {
        print(&b, &o, env);
    }
    free(env);
    ev.ops->destroy(ev.self);
    return x;
}
