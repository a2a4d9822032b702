/*
 * busy.c - GPU idle share and compile-boundness from journal phase times
 * (see busy.h).
 */
#include "busy.h"

#include <stdio.h>
#include <string.h>

void busy_init(struct busy *b)
{
    memset(b, 0, sizeof *b);
}

void busy_add(struct busy *b, const struct eval_result *r)
{
    if (r->compile_ms > 0)
        b->compile_ms += r->compile_ms;
    if (r->check_ms > 0)
        b->gpu_ms += r->check_ms;
    if (r->time_ms > 0)
        b->gpu_ms += r->time_ms;
    if (r->gpu >= 0 && r->gpu < 64)
        b->gpus |= 1ULL << r->gpu;
    b->evals++;
}

int busy_gpus(const struct busy *b)
{
    int n = __builtin_popcountll(b->gpus);
    return n > 0 ? n : 1;
}

double busy_idle_pct(const struct busy *b, double elapsed_s)
{
    if (b->evals == 0 || elapsed_s <= 0 ||
        (b->gpu_ms <= 0 && b->compile_ms <= 0))
        return -1; /* nothing measured, or a journal without phase times */
    double cap_ms = elapsed_s * 1e3 * busy_gpus(b);
    double idle = 100.0 * (1.0 - b->gpu_ms / cap_ms);
    return idle < 0 ? 0 : idle > 100 ? 100 : idle;
}

int busy_compile_bound(const struct busy *b, double elapsed_s)
{
    double idle = busy_idle_pct(b, elapsed_s);
    return idle >= BUSY_BOUND_IDLE_PCT && b->compile_ms > b->gpu_ms;
}

void busy_fmt(const struct busy *b, double elapsed_s, char *out, size_t cap)
{
    double idle = busy_idle_pct(b, elapsed_s);
    if (!cap)
        return;
    out[0] = '\0';
    if (idle < 0)
        return;
    int n = busy_gpus(b);
    int len = snprintf(out, cap, "idle %.0f %% of %.*f s on %d GPU%s", idle,
                       elapsed_s < 10 ? 1 : 0, elapsed_s, n, n > 1 ? "s" : "");
    if (len < 0 || (size_t)len >= cap || !busy_compile_bound(b, elapsed_s))
        return;
    snprintf(out + len, cap - (size_t)len,
             "; compile-bound: %.0f ms of compile a candidate against %.0f "
             "ms on the GPU, %.1f compiles in flight on average",
             b->compile_ms / (double)b->evals, b->gpu_ms / (double)b->evals,
             b->compile_ms / (elapsed_s * 1e3));
}
