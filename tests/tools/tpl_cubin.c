/*
 * tpl_cubin.c - one template point compiled exactly as kevo compiles it
 * (tpl_instantiate at the shape, jit_compile: kevo's NVRTC options and
 * in-memory headers, for sm_90a), the cubin written to a file. No GPU
 * needed; scripts/sass-compare.sh runs it on two versions of a template
 * and compares `cuobjdump -sass` of the cubins. Prints one line: regs,
 * spills, cubin bytes and the point's name. Exits 1 on a compile error
 * (the log on stderr), 2 on bad arguments or a point the template refuses.
 *
 * usage: tpl_cubin TEMPLATE.cu DTYPE SHAPE OUT.cubin [NAME=VALUE ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"
#include "tpl.h"

static int write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(p, 1, n, f);
    return fclose(f) || w != n ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: tpl_cubin TEMPLATE.cu DTYPE SHAPE OUT.cubin "
                        "[NAME=VALUE ...]\n");
        return 2;
    }
    struct tpl *t;
    char err[512] = "";
    enum dtype dt;
    struct shape s;
    if (tpl_load(argv[1], &t, err, sizeof err)) {
        fprintf(stderr, "tpl_cubin: %s\n", err);
        return 2;
    }
    int rc = 2;
    char *src = NULL;
    struct jit_output o;
    memset(&o, 0, sizeof o);
    if (dtype_parse(argv[2], &dt) ||
        problem_parse_shape(problem_find(t->problem), argv[3], &s, err,
                            sizeof err)) {
        fprintf(stderr, "tpl_cubin: bad dtype '%s' or shape '%s' %s\n",
                argv[2], argv[3], err);
        goto out;
    }
    int64_t vals[TPL_MAX_PARAMS];
    tpl_default_point(t, vals);
    for (int i = 5; i < argc; i++)
        if (tpl_set_param(t, vals, argv[i]) < 0) {
            fprintf(stderr, "tpl_cubin: %s: cannot set '%s'\n", t->name,
                    argv[i]);
            goto out;
        }
    char why[512] = "";
    if (!tpl_point_valid(t, vals, NULL)) {
        fprintf(stderr, "tpl_cubin: %s: the point is not valid\n", t->name);
        goto out;
    }
    if (!(src = tpl_instantiate(t, vals, dt, &s))) {
        fprintf(stderr, "tpl_cubin: %s: no source at %s %s\n", t->name,
                argv[3], why);
        goto out;
    }
    if (jit_compile(src, t->name, "sm_90a", &o) != KEVO_OK || !o.ok) {
        fprintf(stderr, "%s\n", o.log ? o.log : "");
        rc = 1;
        goto out;
    }
    if (write_file(argv[4], o.cubin, o.cubin_len)) {
        fprintf(stderr, "tpl_cubin: cannot write '%s'\n", argv[4]);
        goto out;
    }
    const char *pt = src + strlen("// kevo: ");
    printf("%3d regs %4d/%-4d spill %8zu B  %.*s\n", o.regs, o.spill_stores,
           o.spill_loads, o.cubin_len, (int)strcspn(pt, "\n"), pt);
    rc = 0;
out:
    jit_output_release(&o);
    free(src);
    tpl_free(t);
    return rc;
}
