/*
 * wrk.h - the coordinator's side of the GPU worker: starts the worker
 * process (fork + exec of the kevo executable with "__worker"), sends it
 * requests, enforces a deadline per phase, and turns a dead or silent
 * worker into a crashed/timeout answer. After a crash or timeout the
 * worker is SIGKILLed and reaped; the next request starts a fresh one and
 * re-sends the init message. Protocol and guarantees: worker.h.
 */
#ifndef KEVO_WRK_H
#define KEVO_WRK_H

#include <stddef.h>

#include "status.h"

struct wrk_opts {
    const char *exe;         /* NULL = /proc/self/exe */
    const char *init_json;   /* WM_INIT body; copied, re-sent on restart */
    int kernel_timeout_ms;   /* deadline of each phase (0 = 10000) */
    int timing_budget_ms;    /* added for "timing"/"confirm" (0 = 10000) */
    int init_timeout_ms;     /* start, init and baselines (0 = 120000) */
    int verbose;             /* 1: log restarts to stderr */
};

enum wrk_status {
    WRK_ANSWER,   /* the worker answered; see type/json */
    WRK_CRASHED,  /* it died or reported a fatal CUDA error; see reason */
    WRK_TIMEOUT   /* it missed a deadline and was killed; see reason */
};

struct wrk_reply {
    int status;        /* enum wrk_status */
    int type;          /* message type of the answer (worker.h) */
    char *json;        /* owned answer body (WRK_ANSWER) */
    char phase[64];    /* last phase the worker announced */
    char reason[512];  /* for crashed/timeout */
};

void wrk_reply_release(struct wrk_reply *r);

struct wrk;

/*
 * Starts a worker and initializes it (the answer to init is kept, see
 * wrk_ready_json). Returns KEVO_ENODEV with the worker's reason when it
 * finds no GPU, KEVO_ECUDA / KEVO_ETIMEOUT / KEVO_EIO when it cannot
 * start. *out is new; free with wrk_free().
 */
int wrk_new(const struct wrk_opts *o, struct wrk **out, char *err,
            size_t errcap) KEVO_WUR;
/* Asks the worker to quit, then kills and reaps it. w may be NULL. */
void wrk_free(struct wrk *w);

/*
 * Sends one request (type from worker.h, json body, optional blob) and
 * waits for its answer, skipping progress messages. Restarts the worker
 * first if it is not running. Returns KEVO_OK with rep filled (the caller
 * releases it) for an answer, a crash and a timeout alike; an error only
 * when no worker can be started (rep.reason says why).
 */
int wrk_call(struct wrk *w, int type, const char *json, const void *blob,
             size_t blob_len, struct wrk_reply *rep) KEVO_WUR;

/* The two halves of wrk_call, so the caller can work while the worker
 * does (one request at a time: KEVO_EINTERNAL if one is out). wrk_send
 * returns an error only when no worker can be started; a failed send
 * leaves rep as a crash, which wrk_await (on the same rep) keeps.
 * wrk_await calls idle(ud) every few ms while it waits (NULL: none); the
 * watchdog's first deadline counts from the send. */
typedef void (*wrk_idle_fn)(void *ud);
int wrk_send(struct wrk *w, int type, const char *json, const void *blob,
             size_t blob_len, struct wrk_reply *rep) KEVO_WUR;
void wrk_await(struct wrk *w, struct wrk_reply *rep, wrk_idle_fn idle,
               void *ud);

/* Body of the worker's latest WM_READY answer (borrowed). */
const char *wrk_ready_json(const struct wrk *w);
/* Workers started after the first. */
int wrk_restarts(const struct wrk *w);
/* Process id of the running worker, 0 if none (for tests). */
int wrk_pid(const struct wrk *w);

#endif
