/*
 * bgwrite.c - the run directory's files written on a thread of its own
 * (see bgwrite.h).
 */
#include "bgwrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpus.h"
#include "fsutil.h"

struct bgwrite_job {
    char *path;        /* owned */
    char *text;        /* a source (owned), or NULL */
    cJSON *json;       /* the checkpoint (owned), or NULL */
    struct bgwrite_job *next;
};

static void job_free(struct bgwrite_job *j)
{
    free(j->path);
    free(j->text);
    cJSON_Delete(j->json);
    free(j);
}

static int write_job(const struct bgwrite_job *j)
{
    if (j->text) {
        int rc = fs_write_new(j->path, j->text, strlen(j->text), 0);
        return rc == KEVO_EEXIST ? KEVO_OK : rc;
    }
    char *s = cJSON_Print(j->json);
    if (!s)
        return KEVO_ENOMEM;
    int rc = fs_write_atomic(j->path, s, strlen(s));
    free(s);
    return rc;
}

/* Mutex held: the first failure is the one reported. */
static void note(struct bgwrite *w, int rc, const char *path)
{
    if (rc && !w->rc) {
        w->rc = rc;
        snprintf(w->failed, sizeof w->failed, "%s", path);
    }
}

static void *writer(void *arg)
{
    struct bgwrite *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->head && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        struct bgwrite_job *j = w->head;
        if (!j)
            break;
        w->head = j->next;
        if (!w->head)
            w->tail = NULL;
        w->busy = 1;
        pthread_mutex_unlock(&w->mu);
        int rc = write_job(j);
        pthread_mutex_lock(&w->mu);
        note(w, rc, j->path);
        job_free(j);
        w->busy = 0;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Starts the thread (every signal blocked in it: Ctrl-C reaches the
 * engine's thread); 0 if it runs. */
static int start(struct bgwrite *w)
{
    if (w->started)
        return 0;
    if (pthread_mutex_init(&w->mu, NULL))
        return -1;
    if (pthread_cond_init(&w->cv, NULL)) {
        pthread_mutex_destroy(&w->mu);
        return -1;
    }
    if (cpus_thread(&w->th, writer, w)) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        return -1;
    }
    w->started = 1;
    return 0;
}

/* failed[] = path, from the engine's thread (under the mutex once the
 * writer runs: it notes its own failures there). */
static void set_failed(struct bgwrite *w, const char *path)
{
    if (w->started)
        pthread_mutex_lock(&w->mu);
    snprintf(w->failed, sizeof w->failed, "%s", path);
    if (w->started)
        pthread_mutex_unlock(&w->mu);
}

/* Writes j on this thread; its status (path in failed[]). */
static int write_here(struct bgwrite *w, const struct bgwrite_job *j)
{
    int rc = write_job(j);
    if (rc)
        set_failed(w, j->path);
    return rc;
}

/* Queues j, or writes it here without a thread; see bgwrite_new. */
static int put(struct bgwrite *w, struct bgwrite_job *j)
{
    if (start(w)) {
        int rc = write_here(w, j);
        job_free(j);
        return rc;
    }
    pthread_mutex_lock(&w->mu);
    if (w->tail)
        w->tail->next = j;
    else
        w->head = j;
    w->tail = j;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return KEVO_OK;
}

static struct bgwrite_job *job_new(const char *path)
{
    struct bgwrite_job *j = calloc(1, sizeof *j);
    if (j && !(j->path = strdup(path))) {
        free(j);
        j = NULL;
    }
    return j;
}

int bgwrite_new(struct bgwrite *w, const char *path, char *text)
{
    struct bgwrite_job *j = job_new(path);
    if (!j) { /* (no memory for the job) written here */
        struct bgwrite_job here = {.path = (char *)path, .text = text};
        int rc = write_here(w, &here);
        free(text);
        return rc;
    }
    j->text = text;
    return put(w, j);
}

/* Mutex held: waits until nothing is queued or being written; the first
 * failure, reported once. */
static int settle(struct bgwrite *w)
{
    while (w->head || w->busy)
        pthread_cond_wait(&w->cv, &w->mu);
    int rc = w->rc;
    w->rc = 0;
    return rc;
}

int bgwrite_json(struct bgwrite *w, const char *path, cJSON *o)
{
    int rc = KEVO_OK;
    if (w->started) { /* (what failed before it is reported now) */
        pthread_mutex_lock(&w->mu);
        rc = w->rc;
        w->rc = 0;
        pthread_mutex_unlock(&w->mu);
    }
    struct bgwrite_job *j = rc ? NULL : job_new(path);
    if (!j) {
        cJSON_Delete(o);
        if (!rc)
            set_failed(w, path);
        return rc ? rc : KEVO_ENOMEM;
    }
    j->json = o;
    return put(w, j);
}

int bgwrite_wait(struct bgwrite *w)
{
    if (!w->started)
        return KEVO_OK;
    pthread_mutex_lock(&w->mu);
    int rc = settle(w);
    pthread_mutex_unlock(&w->mu);
    return rc;
}

void bgwrite_release(struct bgwrite *w)
{
    if (!w->started)
        return;
    pthread_mutex_lock(&w->mu);
    (void)settle(w);
    w->quit = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    w->started = 0;
}
