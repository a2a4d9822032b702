/*
 * test_progress.c - the live status line (progress.h): it says how idle
 * the GPUs were this session and when the run is compile-bound (issue 32),
 * and says nothing of it while that is unknown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "progress.h"

/* The TTY line progress_update draws for s, into out[cap]. */
static void draw(const struct progress_state *s, char *out, size_t cap)
{
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return;
    struct progress p;
    progress_init(&p, PROG_TTY, f);
    progress_update(&p, s);
    size_t n = (size_t)ftell(f);
    rewind(f);
    n = fread(out, 1, n < cap - 1 ? n : cap - 1, f);
    out[n] = '\0';
    fclose(f);
}

static void test_line_says_gpu_idle_and_compile_bound(void)
{
    char line[512];
    struct progress_state s = {.gen = 3, .evals = 120, .unit = "FLOP/s",
                               .elapsed_s = 30, .rate_per_min = 240,
                               .left_s = 5, .gpu_idle_pct = 73.4,
                               .compile_bound = 1, .last = "ok"};
    draw(&s, line, sizeof line);
    CHECK_MSG(strstr(line, "| 240/min | gpu idle 73% (compile-bound) |"),
              "%s", line);
    s.compile_bound = 0;
    s.gpu_idle_pct = 12;
    draw(&s, line, sizeof line);
    CHECK_MSG(strstr(line, "gpu idle 12% |") &&
                  !strstr(line, "compile-bound"), "%s", line);
    s.gpu_idle_pct = -1; /* no result yet this session */
    draw(&s, line, sizeof line);
    CHECK_MSG(!strstr(line, "gpu idle") && strstr(line, "| 240/min |"),
              "%s", line);
}

int main(void)
{
    RUN(test_line_says_gpu_idle_and_compile_bound,
        "the live line says how idle the GPUs were and when compiles are "
        "why, and nothing while it is unknown");
    TEST_DONE();
}
