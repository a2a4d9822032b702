/*
 * ckptw.c - the checkpoint written on a thread of its own (see ckptw.h).
 */
#include "ckptw.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"

static int write_now(const char *path, cJSON *o)
{
    char *s = cJSON_Print(o);
    cJSON_Delete(o);
    if (!s)
        return KEVO_ENOMEM;
    int rc = fs_write_atomic(path, s, strlen(s));
    free(s);
    return rc;
}

static void *writer(void *arg)
{
    struct ckptw *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->todo && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        if (!w->todo)
            break;
        cJSON *o = w->todo;
        char path[sizeof w->path];
        memcpy(path, w->path, sizeof path);
        w->todo = NULL;
        w->busy = 1;
        pthread_mutex_unlock(&w->mu);
        int rc = write_now(path, o);
        pthread_mutex_lock(&w->mu);
        w->busy = 0;
        if (rc && !w->rc) {
            w->rc = rc;
            memcpy(w->failed, path, sizeof w->failed);
        }
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Starts the thread (every signal blocked in it: Ctrl-C reaches the
 * engine's thread); 0 if it runs. */
static int start(struct ckptw *w)
{
    if (w->started)
        return 0;
    if (pthread_mutex_init(&w->mu, NULL))
        return -1;
    if (pthread_cond_init(&w->cv, NULL)) {
        pthread_mutex_destroy(&w->mu);
        return -1;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int bad = pthread_create(&w->th, NULL, writer, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (bad) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        return -1;
    }
    w->started = 1;
    return 0;
}

/* Mutex held: waits for the write in hand; its status, reported once. */
static int settle(struct ckptw *w)
{
    while (w->todo || w->busy)
        pthread_cond_wait(&w->cv, &w->mu);
    int rc = w->rc;
    w->rc = 0;
    return rc;
}

int ckptw_put(struct ckptw *w, const char *path, cJSON *o)
{
    if (strlen(path) >= sizeof w->path) {
        cJSON_Delete(o);
        snprintf(w->failed, sizeof w->failed, "%.200s", path);
        return KEVO_EINVAL;
    }
    if (start(w)) {
        int rc = write_now(path, o);
        if (rc)
            snprintf(w->failed, sizeof w->failed, "%s", path);
        return rc;
    }
    pthread_mutex_lock(&w->mu);
    int rc = settle(w);
    if (rc)
        cJSON_Delete(o);
    else {
        w->todo = o;
        snprintf(w->path, sizeof w->path, "%s", path);
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return rc;
}

int ckptw_wait(struct ckptw *w)
{
    if (!w->started)
        return KEVO_OK;
    pthread_mutex_lock(&w->mu);
    int rc = settle(w);
    pthread_mutex_unlock(&w->mu);
    return rc;
}

void ckptw_release(struct ckptw *w)
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
