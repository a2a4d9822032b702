/*
 * test_templates.c - every shipped template compiles with NVRTC for
 * sm_90a (no GPU needed) at its default point and at random valid points
 * of its space, for every dtype it declares; the same for the templates of
 * the example user problems (examples/problems/<p>/<p>.problem: the .cu
 * files next to it, and those in its tests/ folder at their default).
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fsutil.h"
#include "jit.h"
#include "rng.h"
#include "tpl.h"

#define RANDOM_POINTS 3

static int random_valid(const struct tpl *t, struct rng *r, int64_t *vals)
{
    for (int tries = 0; tries < 10000; tries++) {
        for (int i = 0; i < t->n_params; i++)
            vals[i] = t->params[i].values[rng_below(
                r, (uint64_t)t->params[i].n_values)];
        if (tpl_point_valid(t, vals, NULL))
            return 0;
    }
    return -1;
}

/* A shape of the template's problem: every size 4096 (odd = 0), or odd
 * sizes near it (odd = 1), so that a template's shape facts take both
 * values. */
static struct shape test_shape(const struct tpl *t, int odd)
{
    const struct problem *p = problem_find(t->problem);
    struct shape s = {.n_dims = p ? p->n_dims : 0};
    for (int d = 0; d < s.n_dims; d++)
        s.d[d] = odd ? 4099 - 2 * d : 4096;
    return s;
}

static int compile_point(const struct tpl *t, const int64_t *vals,
                         enum dtype dt, int odd)
{
    struct shape shape = test_shape(t, odd);
    char *src = tpl_instantiate(t, vals, dt, &shape);
    if (!src) {
        fprintf(stderr, "  %s: no source at shape %d (a fact fails?)\n",
                t->name, odd);
        return 0;
    }
    struct jit_output out;
    memset(&out, 0, sizeof out);
    int rc = jit_compile(src, t->name, "sm_90a", &out);
    int good = rc == KEVO_OK && out.ok && out.cubin_len > 0;
    if (!good)
        fprintf(stderr, "  %s (%s) at %s: %s\n", t->name, dtype_name(dt),
                strchr(src, ' ') ? strchr(src, ' ') + 1 : "", out.log);
    /* the worker refuses printf (compile_error at every point on the
     * GPU) and must be able to read the module globals it watches */
    if (good && jit_cubin_calls(out.cubin, out.cubin_len, "vprintf")) {
        fprintf(stderr, "  %s (%s): the cubin calls printf; the GPU worker "
                "refuses it\n", t->name, dtype_name(dt));
        good = 0;
    }
    if (good && jit_cubin_globals(out.cubin, out.cubin_len, NULL, 0) < 0) {
        fprintf(stderr, "  %s (%s): cannot read the cubin's symbol table\n",
                t->name, dtype_name(dt));
        good = 0;
    }
    free(src);
    jit_output_release(&out);
    return good;
}

/* Compiles every template of tpls[0..n) at its default and RANDOM_POINTS
 * random valid points for each of its dtypes; frees them. */
static int compile_all(struct tpl **tpls, int n, struct rng *r,
                       int *problems)
{
    int compiled = 0;
    for (int i = 0; i < n; i++) {
        const struct tpl *t = tpls[i];
        if (problems)
            *problems |= !strcmp(t->problem, "gemm") ? 1 : 2;
        for (int dt = 0; dt < DTYPE_COUNT; dt++) {
            if (!(t->dtype_mask & 1u << dt))
                continue;
            int64_t vals[TPL_MAX_PARAMS];
            /* the default at both shapes where facts make them differ;
             * the random points alternate */
            tpl_default_point(t, vals);
            for (int odd = 0; odd <= (t->n_facts > 0); odd++) {
                CHECK(compile_point(t, vals, (enum dtype)dt, odd));
                compiled++;
            }
            for (int k = 0; k < RANDOM_POINTS; k++) {
                CHECK(random_valid(t, r, vals) == 0);
                CHECK(compile_point(t, vals, (enum dtype)dt, k & 1));
                compiled++;
            }
        }
        tpl_free(tpls[i]);
    }
    free(tpls);
    return compiled;
}

static void test_every_template_compiles(void)
{
    struct tpl **tpls;
    int n;
    char err[512];
    CHECK_MSG(tpl_load_dir("templates", &tpls, &n, err, sizeof err) == 0,
              "%s", err);
    CHECK(n >= 2);
    struct rng r;
    rng_seed(&r, 2026);
    int problems = 0;
    int compiled = compile_all(tpls, n, &r, &problems);
    CHECK(problems == 3); /* at least one GEMM and one softmax template */
    printf("  %d template instances compiled for sm_90a\n", compiled);
}

/* examples/problems/<p>/<p>.problem: the problem loads and every template
 * next to it compiles. */
static void test_example_problems(void)
{
    glob_t g;
    CHECK(glob("examples/problems/*/*.problem", 0, NULL, &g) == 0);
    struct rng r;
    rng_seed(&r, 2027);
    int compiled = 0, n_probs = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *pf = g.gl_pathv[i];
        const struct problem *p = NULL;
        char err[1024], dir[1024];
        CHECK_MSG(problem_load_file(pf, &p, err, sizeof err) == 0, "%s", err);
        if (!p)
            continue;
        n_probs++;
        snprintf(dir, sizeof dir, "%s", pf);
        *strrchr(dir, '/') = '\0';
        struct tpl **tpls;
        int n = 0;
        CHECK_MSG(tpl_load_flat(dir, &tpls, &n, err, sizeof err) == 0, "%s",
                  err);
        CHECK_MSG(n >= 1, "%s: no template next to it", pf);
        for (int k = 0; k < n; k++)
            CHECK_MSG(!strcmp(tpls[k]->problem, p->name), "%s: problem %s",
                      tpls[k]->path, tpls[k]->problem);
        if (n > 0)
            compiled += compile_all(tpls, n, &r, NULL);
        /* the GPU tests' kernels (tests/gpu/userprob.sh): no params */
        strcat(dir, "/tests");
        n = 0;
        CHECK_MSG(tpl_load_flat(dir, &tpls, &n, err, sizeof err) == 0 ||
                      !fs_is_dir(dir), "%s", err);
        for (int k = 0; k < n; k++) {
            for (int dt = 0; dt < DTYPE_COUNT; dt++) {
                int64_t vals[TPL_MAX_PARAMS];
                tpl_default_point(tpls[k], vals);
                if (tpls[k]->dtype_mask & 1u << dt) {
                    CHECK(compile_point(tpls[k], vals, (enum dtype)dt, 0));
                    compiled++;
                }
            }
            tpl_free(tpls[k]);
        }
        if (n > 0)
            free(tpls);
    }
    globfree(&g);
    CHECK(n_probs >= 5); /* scale, layernorm, rmsnorm, bias_gelu, colsum */
    printf("  %d problems, %d template instances compiled for sm_90a\n",
           n_probs, compiled);
}

/* The split-K points for long K with few tiles (hgemm_wgmma SK=3,
 * hgemm_packed SK=4): valid, planned on the whole grid (one block a
 * multiprocessor: their ranges wait for one another, so every cluster
 * must be resident), and compiled without register spills at these
 * points (a deferred epilogue's registers live across the reduction once
 * spilled into the mainloop: bench/results/2026-11-25-h100-s12; with
 * EPO=0, points spill a few words outside the mainloop, as they did
 * before the shared reduction). */
static void test_split_k_points(void)
{
    static const struct {
        const char *path, *params, *shape;
        enum dtype dt;
    } pts[] = {
        {"templates/gemm/hgemm_wgmma.cu", "SK=3", "512x512x32768", DTYPE_BF16},
        {"templates/gemm/hgemm_wgmma.cu", "SK=3 BN=128 STAGES=6",
         "256x256x131072", DTYPE_FP16},
        {"templates/gemm/hgemm_wgmma.cu", "SK=3 CLUSTER=1 MCK=0 BK=32 STAGES=7",
         "1024x1024x16384", DTYPE_BF16},
        {"templates/gemm/hgemm_packed.cu", "SK=4 CLN=0", "512x512x32767",
         DTYPE_BF16},
        {"templates/gemm/hgemm_packed.cu",
         "SK=4 CLN=0 BN=128 BT=0 BM=64 CONSUMERS=1", "300x700x20001",
         DTYPE_FP16},
    };
    for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++) {
        struct tpl *t = NULL;
        char err[512];
        CHECK_MSG(tpl_load(pts[k].path, &t, err, sizeof err) == 0, "%s",
                  err);
        if (!t)
            continue;
        int64_t vals[TPL_MAX_PARAMS];
        tpl_default_point(t, vals);
        char buf[128];
        snprintf(buf, sizeof buf, "%s", pts[k].params);
        for (char *kv = strtok(buf, " "); kv; kv = strtok(NULL, " "))
            CHECK_MSG(tpl_set_param(t, vals, kv) >= 0, "%s: no param %s",
                      t->name, kv);
        CHECK_MSG(tpl_point_valid(t, vals, NULL), "%s %s: not valid",
                  t->name, pts[k].params);
        struct shape sh;
        CHECK_MSG(problem_parse_shape(problem_find(t->problem), pts[k].shape,
                                      &sh, err, sizeof err) == 0,
                  "%s", err);
        struct launch_plan plan;
        char why[512] = "";
        CHECK_MSG(tpl_prepare(t, vals, pts[k].dt, &sh, NULL, &plan, why,
                              sizeof why) == 0,
                  "%s %s at %s: %s", t->name, pts[k].params, pts[k].shape,
                  why);
        /* the GEMM launch (the last) covers every multiprocessor */
        CHECK_MSG(plan.l[plan.n - 1].grid[0] == tpl_device_default.sms,
                  "%s %s: grid %u, not %lld", t->name, pts[k].params,
                  plan.l[plan.n - 1].grid[0],
                  (long long)tpl_device_default.sms);
        char *src = tpl_instantiate(t, vals, pts[k].dt, &sh);
        CHECK(src != NULL);
        struct jit_output out;
        memset(&out, 0, sizeof out);
        if (src)
            CHECK(jit_compile(src, t->name, "sm_90a", &out) == KEVO_OK);
        CHECK_MSG(out.ok, "%s %s: %s", t->name, pts[k].params,
                  out.log ? out.log : "");
        CHECK_MSG(out.spill_stores == 0 && out.spill_loads == 0,
                  "%s %s: spills %d / %d bytes", t->name, pts[k].params,
                  out.spill_stores, out.spill_loads);
        free(src);
        jit_output_release(&out);
        tpl_free(t);
    }
}

int main(void)
{
    RUN(test_every_template_compiles,
        "every template compiles with NVRTC at its default and random "
        "valid points, for each of its dtypes");
    RUN(test_split_k_points,
        "the long-K split-K points plan the whole grid and compile "
        "without spills");
    RUN(test_example_problems,
        "every examples/problems/<p>/<p>.problem loads and its templates "
        "compile at their default and random valid points");
    TEST_DONE();
}
