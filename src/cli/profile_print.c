/*
 * profile_print.c - prints a candidate's hardware profile for the
 * commands that take --profile (see profile_print.h).
 */
#include "profile_print.h"

#include <stdio.h>
#include <stdlib.h>

#include <cJSON.h>

int cli_print_profile(const struct evaluator *ev, const struct candidate *c,
                      const struct problem *p, const struct shape *s,
                      enum dtype dt, const char *label, int json)
{
    struct kprof kp;
    if (!ev->ops->profile) {
        fprintf(stderr, "%s: the %s evaluator cannot profile\n", label,
                ev->ops->name);
        return KEVO_EINVAL;
    }
    int rc = ev->ops->profile(ev->self, c, &kp);
    if (rc)
        return rc;
    struct prof_ctx pc = prof_ctx_of(p, s, dt);
    char diag[1024];
    prof_diagnose(&kp, &pc, diag, sizeof diag);
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "file", label);
        cJSON_AddItemToObject(o, "profile", prof_json(&kp));
        cJSON_AddStringToObject(o, "diagnosis", diag);
        char *t = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        if (t)
            puts(t);
        free(t);
        return KEVO_OK;
    }
    printf("profile: %s: %s\n", label, diag);
    if (kp.available)
        printf("  %s; %.0f ms to profile\n", kp.note, kp.cost_ms);
    for (int i = 0; i < kp.n; i++) {
        char line[2048];
        prof_launch_text(&kp.l[i], line, sizeof line);
        printf("  launch %d (%s): %s\n", i + 1, kp.l[i].kernel, line);
    }
    return KEVO_OK;
}
