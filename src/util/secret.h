/*
 * secret.h - the values kevo must never store or send: API keys. They are
 * registered once where they are read (the LLM client, start-up), and
 * every sink that writes or sends text someone else wrote (the journal,
 * LLM transcripts and prompts, sources/, best.cu, progress lines) passes
 * it through secret_scrub() first. A key that a server echoes, or that a
 * candidate's compile log carries (`#include "/proc/self/environ"`), then
 * reaches no file and no prompt.
 *
 * What is matched, for each registered value: the value itself, its JSON
 * string form (when that differs), its base64 form at each of the three
 * byte alignments (the characters that depend on the key alone), and a
 * text that ends with the key's first SECRET_EDGE_MIN or more characters or
 * starts with its last ones (a key cut by a truncated log line). Every match
 * becomes "***". Values shorter than SECRET_MIN_LEN are not registered
 * (too likely to occur by chance).
 *
 * Thread safety: registration takes a lock; scrubbing reads a published
 * count and never locks, so registration is meant for start-up but is
 * safe at any time.
 */
#ifndef KEVO_SECRET_H
#define KEVO_SECRET_H

#include <stddef.h>

#include "status.h"

#define SECRET_MIN_LEN 8  /* shorter values are not secrets we can match */
#define SECRET_EDGE_MIN 8 /* shortest cut-off key piece scrubbed at an edge */
#define SECRET_MAX 16     /* registered values at most (later ones: dropped) */

/* Registers value (copied) and its variants. Returns KEVO_OK, also for a
 * value that is too short (ignored) or already registered; KEVO_ENOMEM. */
int secret_add(const char *value) KEVO_WUR;
/* secret_add of the value of environment variable name, if set. */
int secret_add_env(const char *name) KEVO_WUR;
/* Registers the keys of the variables kevo reads keys from by default
 * (OPENAI_API_KEY, ANTHROPIC_API_KEY). */
int secret_add_defaults(void) KEVO_WUR;
/* Replaces every registered value (and variant) in the NUL-terminated
 * text s, in place, by "***" (never longer). Returns the number of
 * replacements. */
int secret_scrub(char *s);
/* A new copy of the n bytes at s (NUL-terminated) with secret_scrub
 * applied; NULL without memory. Caller frees. */
char *secret_scrub_dup(const char *s, size_t n);
/* 1 if s holds a registered value or variant (what secret_scrub would
 * replace), else 0. */
int secret_found(const char *s);
/* Forgets every registered value (tests). */
void secret_clear(void);

#endif
