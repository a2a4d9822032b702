/*
 * bgwrite.h - the run directory's files written on a thread of its own
 * (issue 32): the new sources of a generation (sources/, a hundred or so
 * on softmax, each a file created and linked into place) and its
 * checkpoint (126 KB of JSON on softmax, its numbers printed one by one)
 * took 13-38 and 8-9 ms of the engine's time between two batches on the
 * build host (bench/results/2026-11-30-host-s33), while every GPU waited.
 *
 * The engine hands over what to write (a source's text, the checkpoint's
 * JSON: what they say is fixed then) and goes on; the thread writes them
 * one at a time, in order. A source is written as fs_write_new does (one
 * that exists is left as it is), the checkpoint as fs_write_atomic. The
 * engine waits (bgwrite_wait) before it records a generation's end, so
 * the sources a generation record names are on disk first; a kill before
 * a checkpoint lands leaves the one before it, as a kill between a
 * generation's record and its checkpoint always could (the resume replays
 * the journal past it and writes that generation's sources again).
 * A write that fails is reported once, by the next bgwrite_wait or
 * bgwrite_json, with its path.
 */
#ifndef KEVO_BGWRITE_H
#define KEVO_BGWRITE_H

#include <pthread.h>
#include <stddef.h>

#include <cJSON.h>

#include "status.h"

struct bgwrite_job;

struct bgwrite {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int started;               /* 1: th runs (mu, cv initialised) */
    struct bgwrite_job *head, *tail; /* to write, in order (owned) */
    int busy;                  /* 1: the thread writes one taken off */
    int quit;
    int rc;                    /* the first failure not reported yet */
    char failed[4096];         /* its path */
};

/* Queues text (owned from now on: freed once written) for path, created
 * only if it does not exist. Without a thread (it cannot start) or memory
 * for the job, writes it here; returns that write's status (path in
 * failed[]), else KEVO_OK. */
int bgwrite_new(struct bgwrite *w, const char *path, char *text) KEVO_WUR;
/* Queues o (owned from now on) to replace path atomically, printed, once
 * everything before it is written. Returns the status of the writes
 * before it that failed and were not reported (their first path in
 * failed[]); o is then dropped. Without a thread, writes it here. */
int bgwrite_json(struct bgwrite *w, const char *path, cJSON *o) KEVO_WUR;
/* Waits until everything queued is written; the first failure not
 * reported yet (its path in failed[]), reported now. */
int bgwrite_wait(struct bgwrite *w) KEVO_WUR;
/* Waits, then ends the thread. */
void bgwrite_release(struct bgwrite *w);

#endif
