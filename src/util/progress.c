/*
 * progress.c - live status line and log lines (see progress.h).
 */
#include "progress.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"

void progress_init(struct progress *p, enum progress_mode mode, FILE *out)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    if (mode == PROG_AUTO)
        mode = isatty(fileno(out)) ? PROG_TTY : PROG_PLAIN;
    p->mode = mode;
}

void progress_fmt_fitness(double v, const char *unit, char *out, size_t cap)
{
    static const char *const pre[] = {"", "K", "M", "G", "T", "P"};
    int i = 0;
    while (v >= 1000 && i < 5) {
        v /= 1000;
        i++;
    }
    snprintf(out, cap, "%.3g %s%s", v, pre[i], unit ? unit : "");
}

static void fmt_duration(double s, char *out, size_t cap)
{
    if (s < 0)
        snprintf(out, cap, "-");
    else if (s < 120)
        snprintf(out, cap, "%.0fs", s);
    else if (s < 7200)
        snprintf(out, cap, "%.0fm", s / 60);
    else
        snprintf(out, cap, "%.1fh", s / 3600);
}

void progress_update(struct progress *p, const struct progress_state *s)
{
    if (p->mode != PROG_TTY)
        return;
    long long now = fs_now_ns();
    if (p->line_open && now - p->last_draw_ns < 100000000LL)
        return;
    p->last_draw_ns = now;
    char best[96] = "-", left[32], el[32];
    if (s->best > 0)
        progress_fmt_fitness(s->best, s->unit, best, sizeof best);
    if (s->best > 0 && s->best_ratio > 0) { /* vs the baseline */
        size_t n = strlen(best);
        snprintf(best + n, sizeof best - n, " (%.3gx)", s->best_ratio);
    }
    char idle[48] = "";
    if (s->gpu_idle_pct >= 0)
        snprintf(idle, sizeof idle, " | gpu idle %.0f%%%s", s->gpu_idle_pct,
                 s->compile_bound ? " (compile-bound)" : "");
    fmt_duration(s->left_s, left, sizeof left);
    fmt_duration(s->elapsed_s, el, sizeof el);
    fprintf(p->out, "\r\033[Kgen %d | evals %ld | best %s%s%.40s | %.0f/min%s | "
            "%s elapsed, %s left",
            s->gen, s->evals, best, s->best_what ? " " : "",
            s->best_what ? s->best_what : "", s->rate_per_min, idle, el, left);
    fflush(p->out);
    p->line_open = 1;
}

void progress_log(struct progress *p, const char *event, const char *line)
{
    progress_event(p, event, line, NULL);
}

void progress_event(struct progress *p, const char *event, const char *line,
                    const cJSON *fields)
{
    if (p->mode == PROG_QUIET)
        return;
    if (p->mode == PROG_JSON) {
        cJSON *o = cJSON_CreateObject();
        const cJSON *f;
        cJSON_AddStringToObject(o, "event", event);
        cJSON_ArrayForEach(f, fields)
            if (f->string && strcmp(f->string, "event") &&
                strcmp(f->string, "message"))
                cJSON_AddItemToObject(o, f->string, cJSON_Duplicate(f, 1));
        cJSON_AddStringToObject(o, "message", line);
        char *s = cJSON_PrintUnformatted(o);
        fprintf(p->out, "%s\n", s);
        free(s);
        cJSON_Delete(o);
        fflush(p->out);
        return;
    }
    if (p->line_open)
        fputs("\r\033[K", p->out);
    p->line_open = 0;
    fprintf(p->out, "%s\n", line);
    fflush(p->out);
}

void progress_finish(struct progress *p)
{
    if (p->line_open)
        fputc('\n', p->out);
    p->line_open = 0;
    fflush(p->out);
}
