/*
 * answer.h - turning an LLM answer into a template, or a reason why not.
 * Parsing is PCRE2 (the fenced code block, the `// kevo:` directives, the
 * kernel signatures); validation happens before anything is compiled:
 * the template parses (tpl.h), solves the run's problem and supports its
 * dtype, every launched kernel has the problem's ABI (buffers in declared
 * order, the sizes as int, then void *ws, then declared extras), every
 * declared parameter is used, and the launch plan evaluates to sane dims
 * for the run's shape at the default point. A rejected answer is an
 * outcome with a reason, never a crash.
 */
#ifndef KEVO_ANSWER_H
#define KEVO_ANSWER_H

#include <stddef.h>

#include "problem.h"
#include "status.h"
#include "tpl.h"

enum answer_reject {
    ANSWER_OK,
    ANSWER_NO_CODE,       /* no fenced code block */
    ANSWER_BAD_TEMPLATE,  /* directives missing or malformed (tpl_parse) */
    ANSWER_WRONG_PROBLEM, /* another problem, or not the run's dtype */
    ANSWER_BAD_ABI,       /* a launched kernel's signature is not the ABI */
    ANSWER_BAD_PARAM,     /* a parameter declared but unused, or used but
                             undeclared */
    ANSWER_BAD_LAUNCH,    /* the launch plan does not evaluate for the run */
    ANSWER_REJECT_COUNT
};

/* "ok", "no_code", "bad_template", ... */
const char *answer_reject_name(enum answer_reject r);

struct answer_ctx {
    const struct problem *problem;
    enum dtype dtype;
    const struct shape *shape;
    const struct tpl_device *dev;
    const char *name;   /* name for the new template, e.g. "llm_3fa2c1d0" */
};

/*
 * Extracts and validates the template in an LLM answer. On success
 * returns ANSWER_OK with *out a new template (tpl->path "") and *source
 * its text (new string); otherwise a reason code with a one-line
 * explanation in why[whycap] (e.g. the tpl_parse error with its line).
 */
enum answer_reject answer_parse(const struct answer_ctx *ctx,
                                const char *text, struct tpl **out,
                                char **source, char *why, size_t whycap);

#endif
