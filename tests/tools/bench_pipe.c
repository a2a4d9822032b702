/*
 * bench_pipe.c - the pipeline's effect on the compile pool (issue 32; a
 * benchmark, not a test; no GPU needed): the engine with and without the
 * pipeline (spec pipeline 1 / 0), same seed and time budget, over an
 * evaluator whose compiles are real (kevo's NVRTC pool, jitpool.c, with
 * a fresh disk cache per run, the engine's prefetch going to
 * jit_pool_prefetch_later as the GPU evaluator's does) and whose GPU is
 * simulated: one measurement at a time, in batch order, each taking
 * GPU_MS of wall time while the pool goes on compiling, and the test
 * evaluator's landscape for fitness (so the search differs from a real
 * one; the compile stream is the real templates' at the real shape).
 * Prints per mode: evaluations, evaluations/min, compile-pool busy % (sum
 * of the compile wall times of the compiles evaluated / (run wall time x
 * compilers)) and the simulated GPU's idle %.
 *
 * usage: bench_pipe PROBLEM DTYPE SHAPE TEMPLATE SECONDS [GPU_MS [PROCS
 *        [ARCH]]]   (defaults: 20 ms, CPUs, sm_90a)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "engine.h"
#include "fsutil.h"
#include "jit.h"
#include "testeval.h"

struct simev {
    struct jit_pool *pool;
    double gpu_ms;            /* simulated measurement per compiled one */
    double busy_gpu_ms;       /* simulated GPU time spent */
    double compile_ms;        /* compiles' wall time (not cache hits) */
    long compiles, evals;
};

static void pump(struct simev *s, double ms)
{
    long long end = fs_now_ns() + (long long)(ms * 1e6);
    while (fs_now_ns() < end) {
        if (jit_pool_poll(s->pool, 0)) {
            /* the wait that needs it reports it */
        }
        struct timespec ts = {0, 500000};
        nanosleep(&ts, NULL);
    }
}

static int sim_batch(void *self, const struct candidate *const *c, int n,
                     eval_cb cb, void *ud)
{
    struct simev *s = self;
    int *tk = malloc(sizeof *tk * (size_t)(n > 0 ? n : 1)), rc = KEVO_OK;
    if (!tk)
        return KEVO_ENOMEM;
    for (int i = 0; i < n; i++)
        tk[i] = jit_pool_submit(s->pool, c[i]->source, c[i]->tpl->name);
    int i = 0;
    for (; i < n && !rc; i++) {
        struct jit_output o;
        struct eval_result r;
        eval_result_init(&r);
        if (tk[i] < 0 || (rc = jit_pool_wait(s->pool, tk[i], &o)))
            break;
        tk[i] = -1;
        if (!o.cached) {
            s->compile_ms += o.compile_ms;
            s->compiles++;
        }
        r.compile_ms = o.compile_ms;
        if (o.ok) {
            pump(s, s->gpu_ms);
            s->busy_gpu_ms += s->gpu_ms;
            r.fitness = testeval_fitness(c[i]->tpl, c[i]->vals,
                                         c[i]->genome_hash, &r.outcome);
            r.median_ns = r.fitness > 0 ? 1e15 / r.fitness : 0;
        } else {
            r.outcome = EVAL_COMPILE_ERROR;
        }
        jit_output_release(&o);
        s->evals++;
        int stop = cb(ud, i, &r);
        eval_result_release(&r);
        if (stop)
            rc = KEVO_ESTOPPED;
    }
    for (int k = 0; k < n; k++) { /* a stopped batch: collect the rest */
        struct jit_output o;
        if (tk[k] >= 0 && !jit_pool_wait(s->pool, tk[k], &o))
            jit_output_release(&o);
    }
    free(tk);
    return rc;
}

static void sim_prefetch(void *self, const struct candidate *const *c, int n)
{
    struct simev *s = self;
    for (int i = 0; i < n; i++)
        if (jit_pool_prefetch_later(s->pool, c[i]->source, c[i]->tpl->name)) {
            /* the batch's submit compiles it */
        }
}

static void sim_destroy(void *self)
{
    (void)self;
}

static const struct evaluator_ops sim_ops = {
    .name = "bench-pipe",
    .eval_batch = sim_batch,
    .prefetch = sim_prefetch,
    .destroy = sim_destroy,
};

struct args {
    const char *problem, *dtype, *shape, *tpl, *arch;
    double seconds, gpu_ms;
    int procs;
};

static int run_mode(const struct args *a, struct tpl *t, int pipeline)
{
    struct spec s;
    char err[512], dir[512], cache[600];
    snprintf(dir, sizeof dir, "/tmp/kevo-bench-pipe.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    snprintf(cache, sizeof cache, "%s/cache", dir);
    spec_defaults(&s);
    snprintf(s.problem, sizeof s.problem, "%s", a->problem);
    const struct problem *p = problem_find(a->problem);
    if (!p || dtype_parse(a->dtype, &s.dtype) ||
        problem_parse_shape(p, a->shape, &s.shape, err, sizeof err)) {
        fprintf(stderr, "bench_pipe: bad problem, dtype or shape\n");
        return 1;
    }
    s.max_time_s = a->seconds;
    s.max_generations = 0;
    s.islands = 2;
    s.population = 8;
    s.offspring = 8;
    s.pipeline = pipeline;
    struct jit_pool_opts po = {.n_procs = a->procs, .arch = a->arch,
                               .cache_dir = cache};
    struct simev sim = {.gpu_ms = a->gpu_ms};
    if (jit_pool_new(&po, &sim.pool)) {
        fprintf(stderr, "bench_pipe: cannot start the compile pool\n");
        return 1;
    }
    struct runlog_cfg lc = {.live = 1, .ev = {&sim_ops, &sim}};
    struct runlog *log;
    if (runlog_new(&lc, &log))
        return 1;
    struct tpl *tpls[1] = {t};
    struct engine_env env = {.spec = &s, .problem = p, .tpls = tpls,
                             .n_tpls = 1, .dev = tpl_device_default,
                             .log = log, .run_dir = dir};
    struct engine *e;
    long long t0 = fs_now_ns();
    int rc = engine_new(&env, NULL, &e, err, sizeof err);
    if (!rc && (rc = engine_run(e, err, sizeof err)))
        fprintf(stderr, "bench_pipe: %s\n", err);
    double wall_s = (double)(fs_now_ns() - t0) * 1e-9;
    int procs = a->procs > 0 ? a->procs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (!rc)
        printf("pipeline %d: %ld evaluations (%ld compiles, %d generations) "
               "in %.1f s: %.0f evaluations/min, compile pool busy %.0f %% "
               "of %d, simulated GPU idle %.0f %%\n", pipeline, sim.evals,
               sim.compiles, engine_stats(e)->gen + 1, wall_s,
               (double)sim.evals * 60 / wall_s,
               100 * sim.compile_ms / (wall_s * 1e3 * procs), procs,
               100 * (1 - sim.busy_gpu_ms / (wall_s * 1e3)));
    if (!rc)
        engine_free(e);
    runlog_free(log);
    jit_pool_free(sim.pool);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return rc || system(cmd) != 0;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: bench_pipe PROBLEM DTYPE SHAPE TEMPLATE "
                "SECONDS [GPU_MS [PROCS [ARCH]]]\n");
        return 2;
    }
    struct args a = {argv[1], argv[2], argv[3], argv[4],
                     argc > 8 ? argv[8] : "sm_90a", atof(argv[5]),
                     argc > 6 ? atof(argv[6]) : 20,
                     argc > 7 ? atoi(argv[7]) : 0};
    char dir[4096], err[512];
    struct tpl **tpls;
    int n, rc = 1, found = 0;
    if (cli_templates_dir(NULL, dir, sizeof dir) ||
        tpl_load_dir(dir, &tpls, &n, err, sizeof err)) {
        fprintf(stderr, "bench_pipe: cannot load templates\n");
        return 1;
    }
    for (int i = 0; i < n; i++)
        if (!found && !strcmp(tpls[i]->name, a.tpl)) {
            found = 1;
            rc = run_mode(&a, tpls[i], 0) | run_mode(&a, tpls[i], 1);
        }
    if (!found)
        fprintf(stderr, "bench_pipe: no template '%s'\n", a.tpl);
    for (int i = 0; i < n; i++)
        tpl_free(tpls[i]);
    free(tpls);
    return rc;
}
