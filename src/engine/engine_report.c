/*
 * engine_report.c - what a run shows while it runs (progress.h): the
 * lines of a new best and of each generation, with the ratio to the
 * baseline, and for --json the same events as fields (generation,
 * evaluations, outcomes, best, budget used, end); and end.json, how a
 * session ended, for `kevo status`. Decides nothing: the engine's
 * choices never depend on what is shown.
 */
#include "engine.h"
#include "engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "genome.h"
#include "hash.h"

const char *engine_stop_name(enum engine_stop s)
{
    switch (s) {
    case STOP_NONE: return "none";
    case STOP_GENERATIONS: return "generations";
    case STOP_EVALS: return "evals";
    case STOP_TIME: return "time";
    case STOP_STAGNATION: return "stagnation";
    case STOP_EXHAUSTED: return "exhausted";
    case STOP_SIGNAL: return "signal";
    }
    return "?";
}

/* The point of g as {"NAME": value, ...}. */
static cJSON *point_json(const struct tpl *t, const int64_t *vals)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; o && i < t->n_params; i++)
        cJSON_AddNumberToObject(o, t->params[i].name, (double)vals[i]);
    return o;
}

static cJSON *best_json(const struct engine *e)
{
    const struct engine_stats *st = &e->st;
    const struct tpl *t = engine_template(e, st->best_tpl);
    cJSON *o = cJSON_CreateObject();
    char hex[17];
    if (!o || !t)
        return o;
    cJSON_AddNumberToObject(o, "fitness", st->best_fitness);
    cJSON_AddStringToObject(o, "unit", e->env.problem->work_unit);
    if (st->best_ratio > 0)
        cJSON_AddNumberToObject(o, "ratio", st->best_ratio);
    cJSON_AddNumberToObject(o, "median_ns", st->best_median_ns);
    cJSON_AddStringToObject(o, "template", t->name);
    cJSON_AddItemToObject(o, "point", point_json(t, st->best_vals));
    hash_hex(st->best_hash, hex);
    cJSON_AddStringToObject(o, "hash", hex);
    cJSON_AddNumberToObject(o, "generation", st->best_gen);
    return o;
}

static void add_used(cJSON *b, const char *key, double used, double limit)
{
    cJSON *u = cJSON_CreateObject();
    cJSON_AddNumberToObject(u, "used", used);
    cJSON_AddNumberToObject(u, "limit", limit);
    cJSON_AddItemToObject(b, key, u);
}

/* The budgets in force, each {"used": x, "limit": y}. */
static cJSON *budget_json(const struct engine *e)
{
    const struct spec *s = e->env.spec;
    const struct engine_stats *st = &e->st;
    cJSON *b = cJSON_CreateObject();
    if (!b)
        return NULL;
    if (s->max_generations > 0)
        add_used(b, "generations", st->gen + 1, s->max_generations);
    if (s->max_evals > 0)
        add_used(b, "evals", (double)st->evals, (double)s->max_evals);
    if (s->max_time_s > 0)
        add_used(b, "time_s", engine_elapsed_s(e), s->max_time_s);
    if (s->stagnation > 0)
        add_used(b, "stagnation", st->gen < 0 ? 0 : st->gen - st->best_gen,
                 s->stagnation);
    return b;
}

cJSON *engine_stats_json(const struct engine *e)
{
    const struct engine_stats *st = &e->st;
    cJSON *o = cJSON_CreateObject(), *oc;
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "generation", st->gen);
    cJSON_AddNumberToObject(o, "evaluations", (double)st->evals);
    if ((oc = cJSON_AddObjectToObject(o, "outcomes")))
        for (int k = 0; k < EVAL_OUTCOME_COUNT; k++)
            cJSON_AddNumberToObject(oc, eval_outcome_name(k),
                                    (double)st->outcomes[k]);
    if (st->best_tpl >= 0)
        cJSON_AddItemToObject(o, "best", best_json(e));
    cJSON_AddItemToObject(o, "budget", budget_json(e));
    cJSON_AddNumberToObject(o, "elapsed_s", engine_elapsed_s(e));
    if (st->stop != STOP_NONE) {
        cJSON_AddStringToObject(o, "end", engine_stop_name(st->stop));
        cJSON_AddStringToObject(o, "end_text", engine_stop_text(st->stop));
    }
    return o;
}

/* " (0.93x baseline)" for a known ratio, else "". */
static void ratio_text(double ratio, char *out, size_t cap)
{
    if (ratio > 0)
        snprintf(out, cap, " (%.3gx baseline)", ratio);
    else
        out[0] = '\0';
}

void engine_report_best(struct engine *e)
{
    if (!e->env.prog)
        return;
    char line[640], fit[64], ratio[48];
    progress_fmt_fitness(e->st.best_fitness, e->env.problem->work_unit, fit,
                         sizeof fit);
    ratio_text(e->st.best_ratio, ratio, sizeof ratio);
    snprintf(line, sizeof line, "new best: %s%s %s", fit, ratio,
             e->best_what);
    cJSON *f = cJSON_CreateObject();
    if (f) {
        cJSON_AddNumberToObject(f, "generation", e->gen);
        cJSON_AddNumberToObject(f, "evaluations", (double)e->st.evals);
        cJSON_AddItemToObject(f, "best", best_json(e));
    }
    progress_event(e->env.prog, "best", line, f);
    cJSON_Delete(f);
}

void engine_report_gen(struct engine *e)
{
    if (!e->env.prog)
        return;
    char line[900], fit[64] = "-", ratio[48] = "";
    if (e->st.best_tpl >= 0) {
        progress_fmt_fitness(e->st.best_fitness, e->env.problem->work_unit,
                             fit, sizeof fit);
        ratio_text(e->st.best_ratio, ratio, sizeof ratio);
    }
    int n = snprintf(line, sizeof line, "gen %d: %d evaluated, %ld total (",
                     e->gen, e->n_kids, e->st.evals);
    for (int o = 0, first = 1; o < EVAL_OUTCOME_COUNT; o++)
        if (e->st.outcomes[o]) {
            n += snprintf(line + n, sizeof line - (size_t)n, "%s%s %ld",
                          first ? "" : ", ", eval_outcome_name(o),
                          e->st.outcomes[o]);
            first = 0;
        }
    snprintf(line + n, sizeof line - (size_t)n, "); best %s%s%s%s", fit,
             ratio, e->st.best_tpl >= 0 ? " " : "",
             e->st.best_tpl >= 0 ? e->best_what : "");
    cJSON *f = engine_stats_json(e);
    if (f)
        cJSON_AddNumberToObject(f, "evaluated", e->n_kids);
    progress_event(e->env.prog, "gen", line, f);
    cJSON_Delete(f);
}

void engine_clear_end(const struct engine *e)
{
    char path[4096];
    if (runlog_writes(e->env.log) &&
        !fs_join(path, sizeof path, e->env.run_dir, "end.json"))
        unlink(path); /* none yet: nothing to do */
}

int engine_note_end(const struct engine *e)
{
    if (!runlog_writes(e->env.log) || e->st.stop == STOP_NONE ||
        e->st.stop == STOP_SIGNAL)
        return KEVO_OK;
    char path[4096];
    if (fs_join(path, sizeof path, e->env.run_dir, "end.json"))
        return KEVO_EINVAL;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return KEVO_ENOMEM;
    cJSON_AddStringToObject(o, "end", engine_stop_name(e->st.stop));
    cJSON_AddStringToObject(o, "text", engine_stop_text(e->st.stop));
    cJSON_AddNumberToObject(o, "evaluations", (double)e->st.evals);
    cJSON_AddNumberToObject(o, "generation", e->st.gen);
    cJSON_AddNumberToObject(o, "elapsed_s", engine_elapsed_s(e));
    char *s = cJSON_Print(o);
    cJSON_Delete(o);
    int rc = s ? fs_write_atomic(path, s, strlen(s)) : KEVO_ENOMEM;
    free(s);
    return rc;
}
