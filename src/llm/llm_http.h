/*
 * llm_http.h - the wire formats of the two HTTP APIs kevo speaks: OpenAI-
 * compatible chat completions and the Anthropic Messages API. Builds a
 * request's URL, headers and JSON body, parses an answer's text, usage and
 * stop reason, and reads error bodies and Retry-After. Pure functions: no
 * sockets and no threads (llm.c drives the transfers), so every format
 * detail is testable without a server.
 */
#ifndef KEVO_LLM_HTTP_H
#define KEVO_LLM_HTTP_H

#include <stddef.h>

#include <curl/curl.h>

#include "llm.h"
#include "status.h"

/* What a successful (HTTP 200) answer holds. */
struct llm_reply {
    char *text;      /* the answer text, new (caller frees) */
    int truncated;   /* 1: stopped at max_tokens */
    long tokens_in;  /* prompt tokens the API billed, 0..LLM_TOKENS_MAX;
                        -1: no usage number, or not a count (a string,
                        negative, NaN): estimate it */
    long tokens_out; /* answer tokens the API billed (the same) */
};

/* One HTTP API: a table, one entry per provider (STYLE rule 3). */
struct llm_api {
    const char *name;            /* "openai", "anthropic" */
    const char *default_base;    /* base URL when the config has none */
    const char *default_key_env; /* variable holding the key */
    const char *path;            /* appended to the base URL */
    /* Returns the JSON body for one request, new (caller frees), or NULL
     * when out of memory. base is the effective base URL. */
    char *(*body)(const struct llm_cfg *c, const char *base, const char *system,
                  const char *user);
    /* Appends the auth and version headers to *h. key may be NULL (no
     * key). Returns KEVO_ENOMEM when out of memory. */
    int (*headers)(struct curl_slist **h, const char *key);
    /* Parses an HTTP 200 body into *out. A body that is not the API's
     * answer envelope is KEVO_EPARSE with the reason in err. */
    int (*parse)(const char *body, struct llm_reply *out, char *err,
                 size_t errcap);
};

extern const struct llm_api llm_api_openai, llm_api_anthropic;

/* Writes base (trailing '/' removed) + api->path into out[cap]; a base
 * that already ends in the path's first segment ("/v1") is not doubled.
 * KEVO_EINVAL if it does not fit. */
int llm_http_url(const struct llm_api *api, const char *base, char *out,
                 size_t cap) KEVO_WUR;
/* 1 if base is OpenAI's own API (which wants max_completion_tokens and
 * rejects temperature for reasoning models), else 0. */
int llm_http_is_openai_com(const char *base);
/* The server's one-line reason from an error body (error.message,
 * error, message or detail), whitespace collapsed, at most ~120 chars;
 * "" when there is none. */
void llm_http_error_message(const char *body, char *out, size_t cap);
/* Seconds to wait from a Retry-After value (delta-seconds or an HTTP
 * date, RFC 9110 10.2.3) at wall time now_s; -1 if unparseable. */
double llm_http_retry_after(const char *value, double now_s);
void llm_reply_release(struct llm_reply *r);

#endif
