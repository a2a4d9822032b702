/*
 * llm.h - LLM providers over HTTP: OpenAI-compatible chat completions
 * (OpenAI, vLLM, llama.cpp server, Ollama, LM Studio: chosen by base URL),
 * the Anthropic Messages API, and `replay`, which answers from a recorded
 * run. One background thread drives libcurl multi, so several requests are
 * in flight while the caller (the engine) keeps the GPU busy.
 *
 * Keys come only from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY or
 * a variable the user names); a key is never written to a log, journal,
 * transcript, error message or anything under the run directory, nor sent
 * in a prompt: llm_new registers every configured key (and a base URL's
 * credential) with secret.h, and answers, details and prompts are
 * scrubbed as they pass (a server that echoes the key, a prompt quoting a
 * compile log that holds it). Usage numbers are validated: a count that is
 * not a number >= 0 is estimated from the bytes (about 4 a token), a huge
 * one is clamped to LLM_TOKENS_MAX, so a budget is reached, not overflowed.
 *
 * Transcripts: every request and its final answer (after retries) are
 * stored content-addressed as <run>/llm/<key>.json, key = hash of what
 * determines the answer (provider, base URL, model, parameters, system and
 * user text; never the key). <run>/llm/index.jsonl lists requests in
 * submission order ({"seq","key","kind"}). A request whose key is already
 * stored is answered from there without a network request (cached = 1, no
 * cost): identical prompts are never paid for twice, and a resumed run gets
 * exactly the answers it got before. Only outcomes of the prompt itself
 * ("ok", "failed") are served so; "fatal" and "budget" transcripts are
 * asked again. Budgets count what earlier sessions of the run spent. The
 * replay provider answers the n-th request with the n-th answer of another
 * run's index, so a re-run sees the same sequence of proposals with no API.
 *
 * Errors: 401/403/404 (bad key, unknown model, wrong URL) are fatal for the
 * provider: that request and every later one answer LLM_FATAL at once and
 * llm_disabled() says why; the run goes on without LLM mutation. 429, 5xx,
 * timeouts and dropped connections are retried with exponential backoff
 * and jitter, honouring Retry-After, up to max_retries; then LLM_FAILED.
 * A wait (llm_wait_until) can be given up at any time: the request is then
 * abandoned by llm_free, which stores it as such.
 */
#ifndef KEVO_LLM_H
#define KEVO_LLM_H

#include <stddef.h>

#include "status.h"

enum llm_provider { LLM_OPENAI, LLM_ANTHROPIC, LLM_REPLAY };

struct llm_cfg {
    enum llm_provider provider;
    char base_url[512];      /* "" = the provider's default */
    char model[128];
    char key_env[64];        /* env variable with the key; "" = default
                                for the provider; "-" = no key (local) */
    char replay_dir[1024];   /* LLM_REPLAY: the recorded run directory */
    int max_tokens;          /* answer limit, default 8192 */
    double temperature;      /* default 0.7 */
    int connect_timeout_ms;  /* default 10000 */
    int timeout_ms;          /* whole request, default 300000 */
    int max_retries;         /* default 4 */
    int max_inflight;        /* concurrent requests, default 4 */
    double price_in;         /* USD per million input tokens (0 = unknown) */
    double price_out;        /* USD per million output tokens */
    double budget_tokens;    /* stop asking past this many (0 = none) */
    double budget_usd;       /* stop asking past this cost (0 = none) */
};

/* Defaults (provider OPENAI, no model). */
void llm_cfg_defaults(struct llm_cfg *c);
/*
 * Parses a --llm value: "openai:MODEL[@BASE_URL]", "anthropic:MODEL[@URL]",
 * "replay:RUN_DIR" (and "none"/"off": returns KEVO_ENOENT). Errors name
 * what is wrong.
 */
int llm_cfg_parse(const char *text, struct llm_cfg *c, char *err,
                  size_t errcap) KEVO_WUR;
/* Copies text into out[cap] with the userinfo of every URL in it
 * replaced by three stars ("user:secret@host" after the scheme becomes
 * "***@host"): what is written or printed of a --llm value or base URL.
 * out may be text. */
void llm_redact(const char *text, char *out, size_t cap);
/* Parses a --llm-budget value: "200k" / "2M" tokens, or "$5" / "5usd". */
int llm_budget_parse(const char *text, struct llm_cfg *c, char *err,
                     size_t errcap) KEVO_WUR;

enum llm_status {
    LLM_OK,      /* text holds the answer */
    LLM_FAILED,  /* transient errors outlasted the retries, or timeout,
                    another 4xx, or a malformed answer (asked twice) */
    LLM_FATAL,   /* 401/403/404 or a malformed URL: provider off */
    LLM_BUDGET,  /* not sent: the token/cost budget is spent */
    LLM_ABANDONED, /* the run stopped (time budget, Ctrl-C) before the
                      answer came: only in transcripts, asked again on a
                      resume */
};

struct llm_req {
    const char *kind;    /* "propose", "rewrite", ...: for the index */
    const char *system;  /* system prompt */
    const char *user;    /* user message */
    long seq;            /* the caller's number for this request, the
                            same on a resume (replay answers request n
                            with the recorded run's answer n); < 0: the
                            next number of this session */
};

/* Most tokens one answer is counted for: a larger (hostile) usage number
 * is clamped to it, which spends any budget. */
#define LLM_TOKENS_MAX 1e9

struct llm_ans {
    enum llm_status status;
    int http_status;       /* last HTTP status (0 = none) */
    int attempts;          /* requests made (0 when cached/replayed) */
    int cached;            /* 1: from the transcript store, no request */
    char *text;            /* answer text (LLM_OK), owned */
    int truncated;         /* 1: the model hit max_tokens */
    long tokens_in, tokens_out;
    double cost_usd;
    double latency_ms;
    char key[17];          /* content address of the request (hex) */
    char detail[256];      /* why, for a failure (never holds a key) */
};

struct llm;

/* Starts a client writing transcripts under run_dir/llm/ (run_dir may be
 * NULL: no transcripts, no cache). For LLM_OPENAI/ANTHROPIC a missing key
 * (variable unset or empty) is KEVO_ENOENT with a message naming the
 * variable. */
int llm_new(const struct llm_cfg *cfg, const char *run_dir, struct llm **out,
            char *err, size_t errcap) KEVO_WUR;
/* Queues a request and returns at once with its ticket (0, 1, 2, ... in
 * submission order). */
int llm_submit(struct llm *l, const struct llm_req *r, long *ticket) KEVO_WUR;
/* Waits for a ticket's final answer (retries included) and moves it into
 * *out (caller releases it). Each ticket is collected once. */
int llm_wait(struct llm *l, long ticket, struct llm_ans *out) KEVO_WUR;
/* llm_wait that gives up when give_up(ud) returns non-zero (asked about
 * every LLM_GIVE_UP_POLL_MS while the answer is not there): then
 * KEVO_ESTOPPED, and the ticket stays uncollected; its request goes on
 * until llm_free, which abandons it (an "abandoned" transcript). give_up
 * NULL waits like llm_wait. */
#define LLM_GIVE_UP_POLL_MS 100
int llm_wait_until(struct llm *l, long ticket, int (*give_up)(void *),
                   void *ud, struct llm_ans *out) KEVO_WUR;
/* 1 (and a reason) once the provider is off after a fatal error. */
int llm_disabled(const struct llm *l, char *why, size_t whycap);
/* Totals of this session (answers from the store count no tokens). */
struct llm_usage {
    long requests;  /* answers that needed the network (>= 1 attempt) */
    long cached;    /* answers from the store, a twin or the replay */
    long failed;    /* LLM_FAILED and LLM_FATAL answers */
    long tokens_in, tokens_out;
    double cost_usd;
};
void llm_usage(const struct llm *l, struct llm_usage *u);
/* "openai:gpt-5 @ https://api.openai.com/v1" for messages (no key). */
const char *llm_describe(const struct llm *l);
void llm_ans_release(struct llm_ans *a);
/* Cancels what is in flight (each unanswered request gets an "abandoned"
 * transcript, so a resume asks it again) and stops the thread. */
void llm_free(struct llm *l);

#endif
