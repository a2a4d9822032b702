/*
 * bench_engine.c - the engine's own overhead per evaluation (a benchmark,
 * not a test): a population of 1000 on the real template library, an
 * instant deterministic evaluator, the journal, sources and checkpoints
 * written to a temporary run directory as in a real run. Prints
 * microseconds per evaluation (target: under 50).
 *
 * usage: bench_engine [templates-dir] [generations]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_run.h"
#include "engine.h"
#include "fsutil.h"
#include "testeval.h"

static int bench(struct tpl **tpls, int n, const char *problem,
                 const char *shape, int gens, int io)
{
    struct spec s;
    char err[512], dir[512], path[600];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/kevo-bench.XXXXXX", tmp ? tmp : "/tmp");
    spec_defaults(&s);
    snprintf(s.problem, sizeof s.problem, "%s", problem);
    const struct problem *p = problem_find(problem);
    if (problem_parse_shape(p, shape, &s.shape, err, sizeof err))
        return 1;
    s.islands = 1;
    s.population = 1000;
    s.offspring = 1000;
    s.tournament = 4;
    s.init_random = 1000;
    s.max_generations = gens;
    if (!mkdtemp(dir))
        return 1;
    struct evaluator ev;
    struct jnl *j;
    struct testeval_stats st = {0};
    snprintf(path, sizeof path, "%s/sources", dir);
    if (fs_mkdirs(path) || testeval_new(&ev, &st))
        return 1;
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    if (jnl_create(path, &j))
        return 1;
    struct tpl *mine[64];
    int k = 0;
    for (int i = 0; i < n && k < 64; i++)
        if (!strcmp(tpls[i]->problem, problem))
            mine[k++] = tpls[i];
    struct runlog_cfg lc = {.live = 1, .jnl = io ? j : NULL, .ev = ev};
    struct runlog *log;
    if (runlog_new(&lc, &log))
        return 1;
    struct engine_env env = {.spec = &s, .problem = p, .tpls = mine,
                             .n_tpls = k, .dev = tpl_device_default,
                             .log = log, .run_dir = dir};
    struct engine *e;
    long long t0 = fs_now_ns();
    if (engine_new(&env, NULL, &e, err, sizeof err) ||
        engine_run(e, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        return 1;
    }
    double us = (double)(fs_now_ns() - t0) / 1e3;
    long evals = engine_stats(e)->evals;
    printf("%-8s %d templates, population 1000, %d generations: %ld "
           "evaluations, %6.1f us per evaluation (%s)\n", problem, k, gens,
           evals, us / (double)evals,
           io ? "engine + journal, sources, checkpoints on disk"
              : "engine decisions only, no run directory I/O");
    engine_free(e);
    runlog_free(log);
    jnl_close(j);
    ev.ops->destroy(ev.self);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    return system(path) != 0;
}

int main(int argc, char **argv)
{
    char dir[4096], err[512];
    struct tpl **tpls;
    int n, gens = argc > 2 ? atoi(argv[2]) : 10;
    if (cli_templates_dir(argc > 1 ? argv[1] : NULL, dir, sizeof dir) ||
        tpl_load_dir(dir, &tpls, &n, err, sizeof err)) {
        fprintf(stderr, "bench_engine: cannot load templates\n");
        return 1;
    }
    int rc = 0;
    for (int io = 0; io < 2; io++) {
        rc |= bench(tpls, n, "gemm", "4096x4096x4096", gens, io);
        rc |= bench(tpls, n, "softmax", "4096x4096", gens, io);
    }
    for (int i = 0; i < n; i++)
        tpl_free(tpls[i]);
    free(tpls);
    return rc;
}
