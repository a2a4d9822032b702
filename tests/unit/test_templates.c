/*
 * test_templates.c - every shipped template compiles with NVRTC for
 * sm_90a (no GPU needed) at its default point and at random valid points
 * of its space, for every dtype it declares.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
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

static int compile_point(const struct tpl *t, const int64_t *vals,
                         enum dtype dt)
{
    char *src = tpl_instantiate(t, vals, dt);
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
    int compiled = 0, problems = 0;
    for (int i = 0; i < n; i++) {
        const struct tpl *t = tpls[i];
        problems |= !strcmp(t->problem, "gemm") ? 1 : 2;
        for (int dt = 0; dt < DTYPE_COUNT; dt++) {
            if (!(t->dtype_mask & 1u << dt))
                continue;
            int64_t vals[TPL_MAX_PARAMS];
            tpl_default_point(t, vals);
            CHECK(compile_point(t, vals, (enum dtype)dt));
            compiled++;
            for (int k = 0; k < RANDOM_POINTS; k++) {
                CHECK(random_valid(t, &r, vals) == 0);
                CHECK(compile_point(t, vals, (enum dtype)dt));
                compiled++;
            }
        }
        tpl_free(tpls[i]);
    }
    free(tpls);
    CHECK(problems == 3); /* at least one GEMM and one softmax template */
    printf("  %d template instances compiled for sm_90a\n", compiled);
}

int main(void)
{
    RUN(test_every_template_compiles,
        "every template compiles with NVRTC at its default and random "
        "valid points, for each of its dtypes");
    TEST_DONE();
}
