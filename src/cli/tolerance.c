/*
 * tolerance.c - the run's tolerance between worker, coordinator and run
 * directory (see tolerance.h): one pair for every output, or one per
 * output (PyTorch modules with several outputs).
 */
#include "tolerance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probreg.h"
#include "wire.h"

/* Hands p one pair (output k; -1: every output) with its note. */
static void adopt_one(const struct problem *p, int k, enum dtype dt,
                      const struct wire_tolerance *one)
{
    char note[256];
    wire_tolerance_note(one, dtype_name(dt), note, sizeof note);
    struct out_tol o = {.atol = one->atol, .rtol = one->rtol,
                        .used = one->used, .source = one->source,
                        .note = note};
    problem_set_tolerance(p, k, &o);
}

static void adopt(const struct problem *p, enum dtype dt,
                  const struct wire_tolerance *t)
{
    if (!t->n_out) { /* one pair (also every manifest before per-output) */
        adopt_one(p, -1, dt, t);
        return;
    }
    for (int k = 0; k < t->n_out; k++) {
        struct wire_tolerance one;
        wire_tolerance_one(t, k, &one);
        adopt_one(p, k, dt, &one);
    }
}

/* p's own tolerance at s and dt, per output when p has one per output. */
static void own_tolerance(const struct problem *p, const struct shape *s,
                          enum dtype dt, struct wire_tolerance *t)
{
    memset(t, 0, sizeof *t);
    p->tolerance(p, s, dt, &t->atol, &t->rtol);
    snprintf(t->source, sizeof t->source, "%s", p->tolerance_note
             ? "given" : "dtype");
    wire_tolerance_outputs(t, p, s, dt);
}

char *cli_tolerance_env(const struct problem *p, const struct shape *s,
                        enum dtype dt, const char *env_json)
{
    cJSON *j = env_json ? cJSON_Parse(env_json) : cJSON_CreateObject();
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return NULL;
    }
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(j, "tolerance");
    struct wire_tolerance t;
    if (cJSON_IsObject(o)) {
        wire_tolerance_get(o, &t);
        adopt(p, dt, &t);
    } else { /* no worker: the problem's own */
        own_tolerance(p, s, dt, &t);
        cJSON *n = cJSON_AddObjectToObject(j, "tolerance");
        if (n)
            wire_tolerance_put(n, &t);
        if (n) /* the same notes now as on resume */
            wire_tolerance_get(n, &t);
        adopt(p, dt, &t);
    }
    char *out = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return out;
}

void cli_tolerance_adopt(const struct problem *p, enum dtype dt,
                         const cJSON *env)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(env, "tolerance");
    struct wire_tolerance t;
    if (!cJSON_IsObject(o))
        return;
    wire_tolerance_get(o, &t);
    adopt(p, dt, &t);
}

void cli_tolerance_line(const struct problem *p, const struct shape *s,
                        enum dtype dt, const cJSON *env, char *out,
                        size_t cap)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(env, "tolerance");
    struct wire_tolerance t;
    char text[2000], outs[200] = "";
    out[0] = '\0';
    if (!cJSON_IsObject(o))
        return;
    wire_tolerance_get(o, &t);
    wire_tolerance_text(&t, dtype_name(dt), text, sizeof text);
    if (t.n_out) { /* the names are in the text */
        snprintf(out, cap, "tolerance per output: %s", text);
        return;
    }
    if (p && s) {
        const char *names[PROB_MAX_BUFS];
        int n = problem_outputs(p, s, dt, names);
        size_t k = 0;
        for (int i = 0; i < n && k < sizeof outs; i++)
            k += (size_t)snprintf(outs + k, sizeof outs - k, "%s%s",
                                  k ? ", " : " for ", names[i]);
    }
    snprintf(out, cap, "tolerance%s: %s", outs, text);
}
