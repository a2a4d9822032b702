/*
 * llm_store.h - the LLM transcript store of a run directory:
 * <run>/llm/<key>.json holds one request and its final answer (written
 * atomically, never the API key), <run>/llm/index.jsonl lists requests in
 * submission order ({"seq","key","kind"}, one fdatasync'ed line each).
 * Also the content address of a request, the cache look-up, the spending
 * recorded by earlier sessions (for budgets) and reading another run's
 * answers in order (replay). Knows nothing of HTTP or threads.
 */
#ifndef KEVO_LLM_STORE_H
#define KEVO_LLM_STORE_H

#include <stddef.h>

#include "llm.h"
#include "status.h"

/* Everything a transcript records (all borrowed). */
struct llm_rec {
    const char *provider; /* "openai", "anthropic", "replay" */
    const char *base_url; /* effective base URL ("" for replay) */
    const char *model;
    int max_tokens;
    double temperature;
    const char *kind, *system, *user;
    long seq;                  /* line of the index that asked it */
    const struct llm_ans *ans; /* the final answer */
    const char *replayed_from; /* replay: the recorded run, else NULL */
};

struct llm_store;

/* Opens (creating) run_dir/llm/ and its index; *out is new, free with
 * llm_store_free(). Errors name the path. */
int llm_store_open(const char *run_dir, struct llm_store **out, char *err,
                   size_t errcap) KEVO_WUR;
void llm_store_free(struct llm_store *s);
/* Lines in the index: the seq of the next request. */
long llm_store_count(const struct llm_store *s);
/* Appends {"seq","key","kind"} to the index and fdatasyncs it. */
int llm_store_index(struct llm_store *s, long seq, const char *key,
                    const char *kind) KEVO_WUR;
/* Writes <key>.json for r atomically. */
int llm_store_put(struct llm_store *s, const struct llm_rec *r) KEVO_WUR;
/*
 * Loads the stored answer for key into *ans (status, http_status, text,
 * truncated, tokens, detail; cached = 1, attempts 0, no cost). Only final
 * outcomes of the prompt itself are served: "ok" and "failed". KEVO_ENOENT
 * when there is none (or it is "fatal"/"budget"/"abandoned", which say
 * nothing about the prompt).
 */
int llm_store_get(const struct llm_store *s, const char *key,
                  struct llm_ans *ans) KEVO_WUR;
/* The same for run_dir's transcripts, without opening the store (which
 * creates and appends to the index): for reading a run back. */
int llm_store_read(const char *run_dir, const char *key,
                   struct llm_ans *ans) KEVO_WUR;
/* Tokens and cost of the requests earlier sessions sent (transcripts with
 * attempts > 0), for budgets that span a resume. */
void llm_store_spent(const struct llm_store *s, double *tokens,
                     double *cost_usd);

/* Content address of a request: 16 hex digits of a hash of everything
 * that determines its answer (never the API key). */
void llm_store_key(const char *provider, const char *base_url,
                   const char *model, int max_tokens, double temperature,
                   const char *system, const char *user, char out[17]);

/* A recorded run's answers in order, for the replay provider. */
struct llm_replay;
/* Reads dir/llm/index.jsonl. Errors name the path. */
int llm_replay_open(const char *dir, struct llm_replay **out, char *err,
                    size_t errcap) KEVO_WUR;
/* The n-th recorded answer (status and text as recorded, cached = 1,
 * attempts 0, no cost). A missing answer is KEVO_OK with LLM_FAILED and
 * the reason in ans->detail; other errors are KEVO_ENOMEM. */
int llm_replay_get(const struct llm_replay *r, long n,
                   struct llm_ans *ans) KEVO_WUR;
void llm_replay_free(struct llm_replay *r);

/* "ok", "failed", "fatal", "budget", "abandoned". */
const char *llm_status_name(enum llm_status s);

#endif
