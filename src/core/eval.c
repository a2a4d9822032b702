/*
 * eval.c - outcome names and result lifecycle (see eval.h).
 */
#include "eval.h"

#include <stdlib.h>
#include <string.h>

static const char *const outcome_names[EVAL_OUTCOME_COUNT] = {
    "ok", "compile_error", "wrong", "crashed", "timeout", "cheat",
    "unsupported",
};

const char *eval_outcome_name(enum eval_outcome o)
{
    return (unsigned)o < EVAL_OUTCOME_COUNT ? outcome_names[o] : "?";
}

int eval_outcome_parse(const char *s, enum eval_outcome *out)
{
    for (int i = 0; i < EVAL_OUTCOME_COUNT; i++)
        if (!strcmp(s, outcome_names[i])) {
            *out = (enum eval_outcome)i;
            return 0;
        }
    return -1;
}

void eval_result_init(struct eval_result *r)
{
    memset(r, 0, sizeof *r);
    r->gpu = -1;
}

void eval_result_release(struct eval_result *r)
{
    free(r->evidence_json);
    eval_result_init(r);
}

int eval_result_copy(struct eval_result *dst, const struct eval_result *src)
{
    *dst = *src;
    dst->evidence_json = NULL;
    if (src->evidence_json && !(dst->evidence_json = strdup(src->evidence_json)))
        return KEVO_ENOMEM;
    return KEVO_OK;
}
