/*
 * compile_time.c - NVRTC's time for a template at one shape (a benchmark,
 * not a test; no GPU needed): the default point and N distinct random valid
 * points (pointset_sample), each instantiated for the shape (its facts included) and compiled as the
 * GPU worker's pool does (jit_compile: kevo's options, no NVRTC cache),
 * one at a time. Prints one line per point (wall seconds, cubin bytes,
 * registers, spill stores/loads, then CPU seconds and PTX bytes: the
 * first columns keep their places for scripts) and the total; the same seed draws the same points, so two versions of
 * a template can be compared point by point.
 *
 * usage: compile_time TEMPLATE.cu DTYPE SHAPE [N [SEED]]
 * With CT_DUMP=DIR set, point k's source and cubin also go to
 * DIR/point-k.cu and DIR/point-k.cubin (for cuobjdump -sass).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jit.h"
#include "rng.h"
#include "sample.h"
#include "tpl.h"

static double clock_s(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: compile_time TEMPLATE.cu DTYPE SHAPE "
                        "[N [SEED]]\n");
        return 2;
    }
    struct tpl *t;
    char err[512];
    enum dtype dt;
    struct shape s;
    if (tpl_load(argv[1], &t, err, sizeof err)) {
        fprintf(stderr, "compile_time: %s\n", err);
        return 2;
    }
    if (dtype_parse(argv[2], &dt) ||
        problem_parse_shape(problem_find(t->problem), argv[3], &s, err,
                            sizeof err)) {
        fprintf(stderr, "compile_time: bad dtype '%s' or shape '%s' %s\n",
                argv[2], argv[3], err);
        tpl_free(t);
        return 2;
    }
    int n = argc > 4 ? atoi(argv[4]) : 8;
    struct rng r;
    rng_seed(&r, argc > 5 ? strtoull(argv[5], NULL, 10) : 1);
    struct pointset ps;
    pointset_init(&ps, t->n_params);
    if (n > 0 && pointset_sample(&ps, t, NULL, NULL, NULL, n, &r)) {
        fprintf(stderr, "compile_time: cannot sample %d points\n", n);
        tpl_free(t);
        return 2;
    }
    double total = 0, total_cpu = 0;
    size_t total_ptx = 0;
    int bad = 0;
    for (long k = 0; k <= ps.n && !bad; k++) {
        int64_t vals[TPL_MAX_PARAMS];
        if (k == 0)
            tpl_default_point(t, vals);
        else
            pointset_get(&ps, t, k - 1, vals);
        char *src = tpl_instantiate(t, vals, dt, &s);
        if (!src) {
            fprintf(stderr, "compile_time: no source (a fact fails?)\n");
            bad = 1;
            break;
        }
        struct jit_output o;
        double t0 = clock_s(CLOCK_MONOTONIC);
        double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        int rc = jit_compile(src, t->name, "sm_90a", &o);
        double dt_s = clock_s(CLOCK_MONOTONIC) - t0;
        double cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        const char *pt = src + strlen("// kevo: "); /* the point's name */
        printf("%6.3f s %8zu B %3d regs %4d/%-4d spill %6.3f cpu %8zu ptx  "
               "%.*s\n",
               dt_s, o.cubin_len, o.regs, o.spill_stores, o.spill_loads,
               cpu_s, o.ptx_len, (int)strcspn(pt, "\n"), pt);
        total_cpu += cpu_s;
        total_ptx += o.ptx_len;
        bad = rc != KEVO_OK || !o.ok;
        const char *dump = getenv("CT_DUMP");
        if (dump && *dump) {
            char path[4096];
            FILE *f;
            snprintf(path, sizeof path, "%s/point-%ld.cu", dump, k);
            if ((f = fopen(path, "w"))) {
                fputs(src, f);
                fclose(f);
            }
            snprintf(path, sizeof path, "%s/point-%ld.cubin", dump, k);
            if (!bad && (f = fopen(path, "wb"))) {
                fwrite(o.cubin, 1, o.cubin_len, f);
                fclose(f);
            }
        }
        if (bad)
            fprintf(stderr, "%s\n", o.log ? o.log : "");
        total += dt_s;
        jit_output_release(&o);
        free(src);
    }
    printf("total %.3f s %.3f cpu %zu ptx over %ld points (%s, %s, %s)\n",
           total, total_cpu, total_ptx, ps.n + 1, t->name, argv[2], argv[3]);
    pointset_release(&ps);
    tpl_free(t);
    return bad;
}
