/*
 * ckptw.h - the checkpoint written on a thread of its own (issue 32):
 * printing a generation's checkpoint (126 KB of JSON on softmax, its
 * numbers printed one by one) and writing it took 8-9 ms of the engine's
 * time between two batches on the build host, while every GPU waited.
 *
 * The engine makes the checkpoint's JSON (what it says is fixed then) and
 * hands it over; the thread prints it and writes it atomically
 * (fs_write_atomic) while the next generation is bred and measured. One
 * at a time, in order: a put waits for the one before. A kill before a
 * write lands leaves the checkpoint before it, as a kill between a
 * generation's record and its checkpoint always could (the resume
 * replays the journal past it). A write that fails is reported by the
 * next put or by ckptw_wait.
 */
#ifndef KEVO_CKPTW_H
#define KEVO_CKPTW_H

#include <pthread.h>
#include <stddef.h>

#include <cJSON.h>

#include "status.h"

struct ckptw {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int started;         /* 1: th runs (and mu, cv are initialised) */
    cJSON *todo;         /* handed over, not written yet (owned) */
    char path[4096];     /* where todo goes */
    int busy;            /* 1: todo taken, being written */
    int quit;
    int rc;              /* the last write's status, until reported */
    char failed[4096];   /* its path */
};

/* Hands o (owned from now on) to the thread, to be written to path once
 * the write before it is done. Returns that earlier write's status (its
 * path in failed[]); o is then not written. Without a thread (it cannot
 * start) writes o here. */
int ckptw_put(struct ckptw *w, const char *path, cJSON *o) KEVO_WUR;
/* Waits until nothing is left to write; the status of the last write not
 * reported yet (its path in failed[]). */
int ckptw_wait(struct ckptw *w) KEVO_WUR;
/* Waits, then ends the thread. */
void ckptw_release(struct ckptw *w);

#endif
