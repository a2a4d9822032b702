/*
 * test_ptxsize.c - the PTX a few fixed template points emit stays under a
 * recorded bound (tests/data/ptxsize/points.txt), so code growth in a
 * template is seen in CI. Why PTX: NVRTC's CPU time for a point grows with
 * the PTX it emits (about 2.9 ms a KB, issue 32), and the compile, not the
 * GPU, bounds evaluations per minute on the fp32 GEMM and softmax cases.
 * Sizes, not times: a bound with margin cannot flake on a busy machine.
 * No GPU needed (NVRTC only).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "jit.h"
#include "tpl.h"

#define POINTS_FILE "tests/data/ptxsize/points.txt"

/* One line "TEMPLATE DTYPE SHAPE MAX_PTX_BYTES [NAME=VALUE ...]": returns
 * the PTX bytes of that point, or -1 (reason on stderr). */
static long ptx_of(char *line, long *max_bytes)
{
    char *path = strtok(line, " \t"), *dts = strtok(NULL, " \t");
    char *shs = strtok(NULL, " \t"), *maxs = strtok(NULL, " \t\n");
    if (!path || !dts || !shs || !maxs) {
        fprintf(stderr, "  %s: malformed line\n", POINTS_FILE);
        return -1;
    }
    *max_bytes = strtol(maxs, NULL, 10);
    struct tpl *t = NULL;
    char err[512];
    enum dtype dt;
    struct shape sh;
    if (tpl_load(path, &t, err, sizeof err) || dtype_parse(dts, &dt) ||
        problem_parse_shape(problem_find(t->problem), shs, &sh, err,
                            sizeof err)) {
        fprintf(stderr, "  %s: %s\n", path, err);
        tpl_free(t);
        return -1;
    }
    int64_t vals[TPL_MAX_PARAMS];
    tpl_default_point(t, vals);
    long bytes = -1;
    for (char *kv = strtok(NULL, " \t\n"); kv; kv = strtok(NULL, " \t\n"))
        if (tpl_set_param(t, vals, kv) < 0) {
            fprintf(stderr, "  %s: no param %s\n", path, kv);
            goto out;
        }
    if (!tpl_point_valid(t, vals, NULL)) {
        fprintf(stderr, "  %s: point not valid\n", path);
        goto out;
    }
    char *src = tpl_instantiate(t, vals, dt, &sh);
    if (!src)
        goto out;
    struct jit_output o;
    if (jit_compile(src, t->name, "sm_90a", &o) == KEVO_OK && o.ok)
        bytes = (long)o.ptx_len;
    else
        fprintf(stderr, "  %s: %s\n", path, o.log ? o.log : "");
    jit_output_release(&o);
    free(src);
out:
    tpl_free(t);
    return bytes;
}

static void test_points_stay_under_their_ptx_bound(void)
{
    FILE *f = fopen(POINTS_FILE, "r");
    CHECK_MSG(f != NULL, "cannot open '%s'", POINTS_FILE);
    if (!f)
        return;
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char shown[1024];
        snprintf(shown, sizeof shown, "%.*s", (int)strcspn(line, "\n"),
                 line);
        long max_bytes = 0, bytes = ptx_of(line, &max_bytes);
        printf("  %8ld B PTX (bound %ld)  %s\n", bytes, max_bytes, shown);
        CHECK_MSG(bytes > 0, "%s: no PTX", shown);
        CHECK_MSG(bytes <= max_bytes,
                  "%s: %ld bytes of PTX, over the bound; if the growth is "
                  "wanted, raise the bound and say why in the commit",
                  shown, bytes);
        n++;
    }
    fclose(f);
    CHECK(n >= 4);
}

/* Every shipped template (templates/PROBLEM/NAME.cu) has a line: a new
 * one is held to its size from its first commit. */
static void test_every_template_has_a_bound(void)
{
    FILE *f = fopen(POINTS_FILE, "r");
    char text[16384] = "";
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    DIR *top = opendir("templates");
    CHECK(top != NULL);
    int seen = 0;
    for (struct dirent *p; top && (p = readdir(top));) {
        char dir[512];
        snprintf(dir, sizeof dir, "templates/%s", p->d_name);
        DIR *d = p->d_name[0] == '.' ? NULL : opendir(dir);
        for (struct dirent *e; d && (e = readdir(d));) {
            size_t len = strlen(e->d_name);
            if (len < 4 || strcmp(e->d_name + len - 3, ".cu"))
                continue;
            char want[600];
            snprintf(want, sizeof want, "\n%s/%s ", dir, e->d_name);
            CHECK_MSG(strstr(text, want) != NULL, "%s/%s has no line in %s",
                      dir, e->d_name, POINTS_FILE);
            seen++;
        }
        if (d)
            closedir(d);
    }
    if (top)
        closedir(top);
    CHECK(seen >= 10);
}

int main(void)
{
    RUN(test_points_stay_under_their_ptx_bound,
        "fixed template points emit no more PTX than their recorded bound");
    RUN(test_every_template_has_a_bound,
        "every shipped template has at least one such point");
    TEST_DONE();
}
