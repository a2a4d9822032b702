/*
 * worker_client.h - the coordinator's side of the GPU worker (worker.c;
 * prefix wclient_): starts the worker process (fork + exec of the kevo
 * executable with "__worker"), sends it
 * requests, enforces a deadline per phase, and turns a dead or silent
 * worker into a crashed/timeout answer. After a crash or timeout the
 * worker is SIGKILLed and reaped; the next request starts a fresh one and
 * re-sends the init message. Protocol and guarantees: worker.h.
 */
#ifndef KEVO_WORKER_CLIENT_H
#define KEVO_WORKER_CLIENT_H

#include <stddef.h>

#include "status.h"

struct wclient_opts {
    const char *exe;         /* NULL = /proc/self/exe */
    const char *init_json;   /* WM_INIT body; copied, re-sent on restart */
    int kernel_timeout_ms;   /* deadline of each phase (0 = 10000) */
    int timing_budget_ms;    /* added for "timing"/"confirm" (0 = 10000) */
    int init_timeout_ms;     /* start, init and baselines (0 = 120000) */
    int verbose;             /* 1: log restarts to stderr */
};

enum wclient_status {
    WCLIENT_ANSWER,   /* the worker answered; see type/json */
    WCLIENT_CRASHED,  /* it died or reported a fatal CUDA error; see reason */
    WCLIENT_TIMEOUT   /* it missed a deadline and was killed; see reason */
};

struct wclient_reply {
    int status;        /* enum wclient_status */
    int type;          /* message type of the answer (worker.h) */
    char *json;        /* owned answer body (WCLIENT_ANSWER) */
    char phase[64];    /* last phase the worker announced */
    char reason[512];  /* for crashed/timeout */
    double idle_ms;    /* spent in the idle callback while waiting */
    long long read_ns; /* when the answer was read (fs_now_ns) */
};

void wclient_reply_release(struct wclient_reply *r);

struct wclient;

/*
 * Starts a worker and initializes it (the answer to init is kept, see
 * wclient_ready_json). Returns KEVO_ENODEV with the worker's reason when it
 * finds no GPU, KEVO_ECUDA / KEVO_ETIMEOUT / KEVO_EIO when it cannot
 * start. *out is new; free with wclient_free().
 */
int wclient_new(const struct wclient_opts *o, struct wclient **out, char *err,
            size_t errcap) KEVO_WUR;
/*
 * wclient_new in two halves: wclient_start starts the worker and sends it
 * the init, without waiting (the worker's start, seconds of CUDA context
 * and harness compiles, overlaps the caller's work); wclient_wait_ready
 * reads its READY, within the init deadline from the start (a READY
 * already there when it looks counts, however late it looks), calling
 * idle(ud) every few ms while it waits (NULL: none), with wclient_new's
 * errors (on one the worker is reaped: the next request starts a fresh
 * one). wclient_send waits for it first if nobody did.
 */
typedef void (*wclient_idle_fn)(void *ud);
int wclient_start(const struct wclient_opts *o, struct wclient **out,
                  char *err, size_t errcap) KEVO_WUR;
int wclient_wait_ready(struct wclient *w, wclient_idle_fn idle, void *ud,
                       char *err, size_t errcap) KEVO_WUR;
/* 1 between wclient_start and the READY's reading. */
int wclient_starting(const struct wclient *w);
/* Asks the worker to quit, then kills and reaps it. w may be NULL. */
void wclient_free(struct wclient *w);

/*
 * Sends one request (type from worker.h, json body, optional blob) and
 * waits for its answer, skipping progress messages. Restarts the worker
 * first if it is not running. Returns KEVO_OK with rep filled (the caller
 * releases it) for an answer, a crash and a timeout alike; an error only
 * when no worker can be started (rep.reason says why).
 */
int wclient_call(struct wclient *w, int type, const char *json, const void *blob,
             size_t blob_len, struct wclient_reply *rep) KEVO_WUR;

/* The two halves of wclient_call, so the caller can work while the worker
 * does (one request at a time: KEVO_EINTERNAL if one is out). wclient_send
 * returns an error only when no worker can be started; a failed send
 * leaves rep as a crash, which wclient_await (on the same rep) keeps.
 * wclient_await calls idle(ud) every few ms while it waits (NULL: none); the
 * watchdog's first deadline counts from the send. */
int wclient_send(struct wclient *w, int type, const char *json, const void *blob,
             size_t blob_len, struct wclient_reply *rep) KEVO_WUR;
void wclient_await(struct wclient *w, struct wclient_reply *rep, wclient_idle_fn idle,
               void *ud);

/* Sends one more request while one is out (wclient_send's), so the
 * worker finds it the moment it answers that one (worker.h 12): 1 if it
 * went out, 0 if not (none out, one queued already, the worker starting,
 * a frame larger than the socket's free send space, whose write could
 * wait for the running request to end, or the write failed: then the
 * worker is gone and the first request's await says how). Its answer comes after the first's, read by the next
 * wclient_await; its deadline counts from the first's answer. A crash or
 * a timeout of the first loses it: wclient_outstanding is 0 after that
 * await, and the caller sends it again. */
int wclient_queue(struct wclient *w, int type, const char *json,
                  const void *blob, size_t blob_len) KEVO_WUR;
/* Requests out whose answers were not read yet (0 to 2). */
int wclient_outstanding(const struct wclient *w);

/* Body of the worker's latest WM_READY answer (borrowed). */
const char *wclient_ready_json(const struct wclient *w);
/* Workers started after the first. */
int wclient_restarts(const struct wclient *w);
/* Process id of the running worker, 0 if none (for tests). */
int wclient_pid(const struct wclient *w);

#endif
