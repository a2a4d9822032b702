/*
 * tolerance.c - the run's tolerance between worker, coordinator and run
 * directory (see tolerance.h).
 */
#include "tolerance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probreg.h"
#include "wire.h"

static void adopt(const struct problem *p, enum dtype dt,
                  const struct wire_tolerance *t)
{
    char note[256];
    wire_tolerance_note(t, dtype_name(dt), note, sizeof note);
    problem_set_tolerance(p, t->atol, t->rtol, note);
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
        memset(&t, 0, sizeof t);
        p->tolerance(p, s, dt, &t.atol, &t.rtol);
        snprintf(t.source, sizeof t.source, "%s", p->tolerance_note
                 ? "given" : "dtype");
        cJSON *n = cJSON_AddObjectToObject(j, "tolerance");
        if (n)
            wire_tolerance_put(n, &t);
        adopt(p, dt, &t); /* the same note now as on resume */
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
    char text[400], outs[200] = "";
    out[0] = '\0';
    if (!cJSON_IsObject(o))
        return;
    wire_tolerance_get(o, &t);
    wire_tolerance_text(&t, dtype_name(dt), text, sizeof text);
    if (p && s) {
        struct buf_desc b[PROB_MAX_BUFS];
        int n = p->buffers(p, s, dt, b);
        size_t k = 0;
        for (int i = 0; i < n && k < sizeof outs; i++)
            if (b[i].role != BUF_IN)
                k += (size_t)snprintf(outs + k, sizeof outs - k, "%s%s",
                                      k ? ", " : " for ", b[i].name);
    }
    snprintf(out, cap, "tolerance%s: %s", outs, text);
}
