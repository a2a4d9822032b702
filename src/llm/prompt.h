/*
 * prompt.h - prompt text files with {{PLACEHOLDER}}s, and the bounded
 * string builder that makes their values. The LLM mutators (mutators/
 * llm_*.c) load a file from the prompts directory, set the facts they know
 * as named values and fill the file; the text files stay editable by
 * people. Knows nothing of problems, templates or LLMs.
 *
 * A placeholder is "{{NAME}}" with NAME in [A-Z][A-Z0-9_]*. Filling is one
 * pass: values are inserted as they are (a value that contains "{{" is
 * not expanded again). Any other "{{" in a prompt file is an error, and so
 * is a placeholder with no value: both are reported with the file and line.
 */
#ifndef KEVO_PROMPT_H
#define KEVO_PROMPT_H

#include <stddef.h>

#include "status.h"

#define PROMPT_MAX_VARS 64
#define PROMPT_NAME_MAX 32
#define PROMPT_FILE_MAX (256u << 10) /* longest prompt file, bytes */
#define PROMPT_TEXT_MAX (1u << 20)   /* longest value or filled prompt */

/* A growing string with a cap. Failures (no memory, over the cap) are
 * sticky: later adds do nothing and prompt_buf_take returns NULL. */
struct prompt_buf {
    char *s;      /* the text, NUL-terminated once anything was added */
    size_t len;   /* bytes in s, without the NUL */
    size_t cap;   /* bytes allocated */
    size_t limit; /* most bytes it may hold */
    int failed;   /* 1: out of memory or over limit */
};

/* limit 0 means PROMPT_TEXT_MAX. */
void prompt_buf_init(struct prompt_buf *b, size_t limit);
void prompt_buf_add(struct prompt_buf *b, const char *s, size_t n);
void prompt_buf_adds(struct prompt_buf *b, const char *s);
void prompt_buf_addf(struct prompt_buf *b, const char *fmt, ...)
    KEVO_PRINTF(2, 3);
/* Returns the text (new string, "" if nothing was added; caller frees) and
 * leaves b empty; NULL if b failed (b is released either way). */
char *prompt_buf_take(struct prompt_buf *b);
void prompt_buf_release(struct prompt_buf *b);

/* Named values for the placeholders. Setting fails stickily too (then
 * prompt_fill reports out of memory), so callers set many in a row. */
struct prompt_var {
    char name[PROMPT_NAME_MAX]; /* "PROBLEM" */
    char *value;                /* owned */
};

struct prompt_vars {
    int n;
    struct prompt_var v[PROMPT_MAX_VARS];
    int failed; /* a set failed: no memory, bad name or table full */
};

void prompt_vars_init(struct prompt_vars *pv);
void prompt_vars_release(struct prompt_vars *pv);
/* Sets name to a copy of value (NULL = ""), replacing an earlier value. */
void prompt_vars_set(struct prompt_vars *pv, const char *name,
                     const char *value);
void prompt_vars_setf(struct prompt_vars *pv, const char *name, const char *fmt,
                      ...) KEVO_PRINTF(3, 4);
/* Like prompt_vars_set but takes ownership of value (freed even on
 * failure); value NULL marks the table failed (a builder that failed). */
void prompt_vars_take(struct prompt_vars *pv, const char *name, char *value);
/* The value of name, or NULL if not set. Borrowed. */
const char *prompt_vars_get(const struct prompt_vars *pv, const char *name);

/*
 * Reads dir/file into *out (new string; caller frees). Errors: KEVO_ENOENT
 * or KEVO_EIO "cannot read '<dir>/<file>': ...", KEVO_EPARSE if it holds a
 * NUL byte or is longer than PROMPT_FILE_MAX.
 */
int prompt_load(const char *dir, const char *file, char **out, char *err,
                size_t errcap) KEVO_WUR;
/*
 * Replaces every {{NAME}} in text by its value into *out (new string;
 * caller frees). where names the text in messages. Errors: KEVO_EPARSE
 * "<where>:<line>: unknown placeholder '{{NAME}}'" or "... malformed
 * placeholder '{{...'"; KEVO_ENOMEM if pv failed or the result would pass
 * PROMPT_TEXT_MAX.
 */
int prompt_fill(const char *where, const char *text,
                const struct prompt_vars *pv, char **out, char *err,
                size_t errcap) KEVO_WUR;
/* prompt_load + prompt_fill, with "<dir>/<file>" as where. */
int prompt_render(const char *dir, const char *file,
                  const struct prompt_vars *pv, char **out, char *err,
                  size_t errcap) KEVO_WUR;

#endif
