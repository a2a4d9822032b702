/*
 * worker_client.c - starting, watching and restarting the GPU worker (see worker_client.h).
 * Owns the worker's process and its end of the socket pair; knows the
 * message types but not the meaning of jobs or results.
 */
#include "worker_client.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "fsutil.h"
#include "wmsg.h"
#include "worker.h"

struct wclient {
    struct wclient_opts o;
    char *init_json;   /* owned copy */
    char exe[4096];
    pid_t pid;         /* 0: not running */
    int fd;            /* our end of the socket pair, -1 if none */
    char *ready_json;  /* latest WM_READY body */
    int starts;
    int n_out;         /* requests out, their answers not read yet (at
                          most 2: wclient_queue's behind the first) */
    long long out_ns[2]; /* when each went out, oldest first */
    long long turn_ns; /* when the last answer was read: a queued
                          request's turn came then */
    int starting;      /* init sent, READY not read yet (wclient_start) */
    long long start_ns; /* when the init went out */
};

void wclient_reply_release(struct wclient_reply *r)
{
    free(r->json);
    memset(r, 0, sizeof *r);
}

static void describe_exit(int st, char *out, size_t cap)
{
    if (WIFSIGNALED(st))
        snprintf(out, cap, "killed by signal %d (%s)", WTERMSIG(st),
                 strsignal(WTERMSIG(st)));
    else if (WIFEXITED(st))
        snprintf(out, cap, "exited with status %d", WEXITSTATUS(st));
    else
        snprintf(out, cap, "ended (status 0x%x)", st);
}

/* Waits up to grace_ms for the worker to exit by itself, then SIGKILLs
 * it; reaps it and describes how it ended. */
static void reap(struct wclient *w, int grace_ms, char *how, size_t cap)
{
    int st = 0;
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    w->n_out = 0; /* a queued request is lost with the worker */
    if (!w->pid)
        return;
    long long dl = fs_now_ns() + (long long)grace_ms * 1000000;
    pid_t r;
    while ((r = waitpid(w->pid, &st, WNOHANG)) == 0 && fs_now_ns() < dl) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    if (r == 0) {
        kill(w->pid, SIGKILL);
        while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    if (how)
        describe_exit(st, how, cap);
    w->pid = 0;
}

static int spawn(struct wclient *w, char *err, size_t errcap)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
        snprintf(err, errcap, "socketpair: %s", strerror(errno));
        return KEVO_EIO;
    }
    char fdarg[16], ppid[24];
    snprintf(fdarg, sizeof fdarg, "%d", sv[1]);
    snprintf(ppid, sizeof ppid, "%ld", (long)getpid());
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errcap, "fork: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return KEVO_EIO;
    }
    if (pid == 0) {
        fcntl(sv[1], F_SETFD, 0); /* keep the worker's end across exec */
        char *argv[] = {"kevo", "__worker", fdarg, ppid, NULL};
        execv(w->exe, argv);
        _exit(127);
    }
    close(sv[1]);
    /* room for a queued job (wclient_queue) with its cubin: asked big,
     * the kernel caps it (at twice net.core.wmem_max: 416 KB where that
     * is Linux's default) */
    int want = 8 << 20;
    (void)setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &want, sizeof want);
    w->pid = pid;
    w->fd = sv[0];
    w->starts++;
    return KEVO_OK;
}

static int budget_ms(const struct wclient *w, const char *phase)
{
    if (!strcmp(phase, "timing") || !strcmp(phase, "confirm"))
        return w->o.kernel_timeout_ms + w->o.timing_budget_ms;
    if (!strcmp(phase, "init") || !strncmp(phase, "baseline", 8))
        return w->o.init_timeout_ms;
    return w->o.kernel_timeout_ms;
}

/* Waits until fd is readable or dl (ns) passes, calling idle every
 * IDLE_SLICE_MS meanwhile; the time in idle adds to rep->idle_ms. */
#define IDLE_SLICE_MS 5
static void wait_readable(int fd, long long dl, wclient_idle_fn idle, void *ud,
                          struct wclient_reply *rep)
{
    for (;;) {
        long long left = (dl - fs_now_ns()) / 1000000;
        if (left <= 0)
            return;
        struct pollfd p = {fd, POLLIN, 0};
        int n = poll(&p, 1, left < IDLE_SLICE_MS ? (int)left : IDLE_SLICE_MS);
        if (n != 0) /* readable, hung up, or an error: let recv decide */
            return;
        long long t0 = fs_now_ns();
        idle(ud);
        rep->idle_ms += (fs_now_ns() - t0) / 1e6;
    }
}

/* Reads until a non-progress message; fills rep. The first phase's
 * deadline counts from since_ns (when the request went out). */
static void await(struct wclient *w, const char *first_phase, long long since_ns,
                  wclient_idle_fn idle, void *ud, struct wclient_reply *rep)
{
    struct wmsg m;
    wmsg_init(&m);
    snprintf(rep->phase, sizeof rep->phase, "%s", first_phase);
    int limit = budget_ms(w, rep->phase);
    long long dl = since_ns + (long long)limit * 1000000;
    for (;;) {
        if (idle)
            wait_readable(w->fd, dl, idle, ud, rep);
        long long left = (dl - fs_now_ns()) / 1000000;
        int r = wmsg_recv(w->fd, left > 0 ? (int)left : 0, &m);
        if (r == KEVO_ETIMEOUT) {
            reap(w, 0, NULL, 0);
            rep->status = WCLIENT_TIMEOUT;
            snprintf(rep->reason, sizeof rep->reason,
                     "no answer within %d ms (phase: %s)", limit, rep->phase);
            break;
        }
        if (r) {
            char how[128];
            reap(w, 2000, how, sizeof how);
            rep->status = WCLIENT_CRASHED;
            snprintf(rep->reason, sizeof rep->reason,
                     "worker %s (phase: %s)", how, rep->phase);
            break;
        }
        cJSON *j = cJSON_Parse(m.json);
        /* (a reader late to look, wclient_wait_ready's, may find an old
         * progress message here: the phase's deadline restarts from now,
         * so a worker that hung after it is caught up to one budget
         * later) */
        if (m.type == WM_PROGRESS) {
            struct wire_progress p;
            if (!wire_progress_parse(j, &p))
                snprintf(rep->phase, sizeof rep->phase, "%s", p.phase);
            cJSON_Delete(j);
            limit = budget_ms(w, rep->phase);
            if (p.budget_ms > limit) /* the worker asks for more */
                limit = p.budget_ms;
            dl = fs_now_ns() + (long long)limit * 1000000;
            continue;
        }
        if (m.type == WM_FATAL) {
            struct wire_fatal f;
            rep->status = WCLIENT_CRASHED;
            rep->type = WM_FATAL;
            snprintf(rep->reason, sizeof rep->reason, "%s",
                     wire_fatal_parse(j, &f) ? "fatal error" : f.reason);
            rep->json = m.json; /* keeps "enodev" for the caller */
            m.json = NULL;
            cJSON_Delete(j);
            reap(w, 5000, NULL, 0);
            break;
        }
        cJSON_Delete(j);
        rep->read_ns = fs_now_ns();
        rep->status = WCLIENT_ANSWER;
        rep->type = m.type;
        rep->json = m.json;
        m.json = NULL;
        break;
    }
    wmsg_release(&m);
}

static int enodev_reply(const struct wclient_reply *rep)
{
    cJSON *j = rep->json ? cJSON_Parse(rep->json) : NULL;
    struct wire_fatal f;
    int e = !wire_fatal_parse(j, &f) && f.enodev;
    cJSON_Delete(j);
    return e;
}

/* Starts a worker and sends it the init message; its READY is read by
 * finish_start. */
static int begin_start(struct wclient *w, char *err, size_t errcap)
{
    int r = spawn(w, err, errcap);
    if (r)
        return r;
    if (wmsg_send(w->fd, WM_INIT, w->init_json, NULL, 0)) {
        char how[128];
        reap(w, 2000, how, sizeof how);
        snprintf(err, errcap, "GPU worker did not start: %s", how);
        return KEVO_EIO;
    }
    w->starting = 1;
    w->start_ns = fs_now_ns();
    return KEVO_OK;
}

/* Reads the READY of the worker begin_start started (the init deadline
 * counts from the init's send), calling idle(ud) while it waits (NULL:
 * none); keeps its body. */
static int finish_start(struct wclient *w, wclient_idle_fn idle, void *ud,
                        char *err, size_t errcap)
{
    struct wclient_reply rep;
    memset(&rep, 0, sizeof rep);
    w->starting = 0;
    await(w, "init", w->start_ns, idle, ud, &rep);
    if (rep.status == WCLIENT_ANSWER && rep.type == WM_READY) {
        free(w->ready_json);
        w->ready_json = rep.json;
        rep.json = NULL;
        wclient_reply_release(&rep);
        return KEVO_OK;
    }
    int r = rep.status == WCLIENT_TIMEOUT ? KEVO_ETIMEOUT
            : enodev_reply(&rep)         ? KEVO_ENODEV
                                         : KEVO_ECUDA;
    if (r == KEVO_ENODEV)
        snprintf(err, errcap, "%s", rep.reason);
    else
        snprintf(err, errcap, "GPU worker failed to start: %s", rep.reason);
    if (rep.status == WCLIENT_ANSWER)
        reap(w, 0, NULL, 0);
    wclient_reply_release(&rep);
    return r;
}

/* Starts and initializes a worker; keeps its READY body. */
static int start(struct wclient *w, char *err, size_t errcap)
{
    int r = begin_start(w, err, errcap);
    return r ? r : finish_start(w, NULL, NULL, err, errcap);
}

/* A wclient for o, its worker not started yet. */
static int make(const struct wclient_opts *o, struct wclient **out)
{
    struct wclient *w = calloc(1, sizeof *w);
    if (!w)
        return KEVO_ENOMEM;
    w->o = *o;
    w->fd = -1;
    if (!w->o.kernel_timeout_ms)
        w->o.kernel_timeout_ms = 10000;
    if (!w->o.timing_budget_ms)
        w->o.timing_budget_ms = 10000;
    if (!w->o.init_timeout_ms)
        w->o.init_timeout_ms = 120000;
    snprintf(w->exe, sizeof w->exe, "%s", o->exe ? o->exe : "/proc/self/exe");
    if (!o->exe) { /* resolve now: /proc/self/exe is ours, not a child's */
        ssize_t n = readlink("/proc/self/exe", w->exe, sizeof w->exe - 1);
        if (n > 0)
            w->exe[n] = '\0';
    }
    w->init_json = strdup(o->init_json ? o->init_json : "{}");
    w->o.init_json = w->init_json;
    if (!w->init_json) {
        free(w);
        return KEVO_ENOMEM;
    }
    *out = w;
    return KEVO_OK;
}

int wclient_start(const struct wclient_opts *o, struct wclient **out,
                  char *err, size_t errcap)
{
    struct wclient *w;
    int r = make(o, &w);
    if (r)
        return r;
    if ((r = begin_start(w, err, errcap))) {
        wclient_free(w);
        return r;
    }
    *out = w;
    return KEVO_OK;
}

int wclient_starting(const struct wclient *w)
{
    return w->starting;
}

int wclient_wait_ready(struct wclient *w, wclient_idle_fn idle, void *ud,
                       char *err, size_t errcap)
{
    return w->starting ? finish_start(w, idle, ud, err, errcap) : KEVO_OK;
}

int wclient_new(const struct wclient_opts *o, struct wclient **out, char *err,
            size_t errcap)
{
    struct wclient *w;
    int r = wclient_start(o, &w, err, errcap);
    if (!r && (r = wclient_wait_ready(w, NULL, NULL, err, errcap)))
        wclient_free(w);
    if (!r)
        *out = w;
    return r;
}

void wclient_free(struct wclient *w)
{
    if (!w)
        return;
    if (w->pid && w->starting) /* mid-init: no quit read before its end */
        kill(w->pid, SIGKILL);
    else if (w->pid && w->fd >= 0 &&
             wmsg_send(w->fd, WM_QUIT, NULL, NULL, 0))
        kill(w->pid, SIGKILL); /* already gone: reap below */
    reap(w, 3000, NULL, 0);
    free(w->init_json);
    free(w->ready_json);
    free(w);
}

int wclient_send(struct wclient *w, int type, const char *json, const void *blob,
             size_t blob_len, struct wclient_reply *rep)
{
    memset(rep, 0, sizeof *rep);
    if (w->n_out)
        return KEVO_EINTERNAL; /* one request at a time (or wclient_queue) */
    if (w->starting) { /* wclient_start's */
        int r = finish_start(w, NULL, NULL, rep->reason, sizeof rep->reason);
        if (r)
            return r;
    }
    if (!w->pid) {
        if (w->o.verbose)
            fprintf(stderr, "kevo: restarting the GPU worker\n");
        int r = start(w, rep->reason, sizeof rep->reason);
        if (r)
            return r;
    }
    if (wmsg_send(w->fd, type, json, blob, blob_len)) {
        char how[128];
        reap(w, 2000, how, sizeof how);
        rep->status = WCLIENT_CRASHED;
        snprintf(rep->reason, sizeof rep->reason, "worker %s (phase: "
                 "request)", how);
        return KEVO_OK;
    }
    w->n_out = 1;
    w->out_ns[0] = fs_now_ns();
    return KEVO_OK;
}

/* 1 if a frame of n bytes fits in what fd's send buffer has free, so
 * that writing it cannot block: the worker reads the next request only
 * after it answered the one it runs (a kernel that hangs: never, until
 * the watchdog that a blocked write would keep from running). The kernel
 * counts each piece of a write with its overhead (a few hundred bytes a
 * piece of up to half the buffer): an eighth of the frame and 16 KB are
 * kept aside for it. */
static int frame_fits(int fd, size_t n)
{
    int sndbuf = 0, outq = 0;
    socklen_t len = sizeof sndbuf;
    if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len) || sndbuf <= 0 ||
        ioctl(fd, SIOCOUTQ, &outq) || outq < 0)
        return 0;
    return (size_t)outq + n + n / 8 + 16384 <= (size_t)sndbuf;
}

int wclient_queue(struct wclient *w, int type, const char *json,
                  const void *blob, size_t blob_len)
{
    if (w->n_out != 1 || w->starting || !w->pid || w->fd < 0 ||
        !frame_fits(w->fd, WMSG_HEADER + (json ? strlen(json) : 0) + blob_len))
        return 0;
    /* a failed write leaves the worker to the first request's await,
     * which sees it die */
    if (wmsg_send(w->fd, type, json, blob, blob_len))
        return 0;
    w->out_ns[w->n_out++] = fs_now_ns();
    return 1;
}

int wclient_outstanding(const struct wclient *w)
{
    return w->n_out;
}

void wclient_await(struct wclient *w, struct wclient_reply *rep, wclient_idle_fn idle,
               void *ud)
{
    if (!w->n_out)
        return; /* the send failed: rep says how */
    /* a queued request's deadline counts from its turn: the answer
     * before it */
    long long since = w->out_ns[0] > w->turn_ns ? w->out_ns[0] : w->turn_ns;
    await(w, "request", since, idle, ud, rep);
    if (w->n_out > 0) { /* (none left when the worker was reaped) */
        w->out_ns[0] = w->out_ns[1];
        w->n_out--;
    }
    if (rep->status == WCLIENT_ANSWER)
        w->turn_ns = rep->read_ns;
    if (w->o.verbose && rep->status != WCLIENT_ANSWER)
        fprintf(stderr, "kevo: GPU worker %s: %s\n",
                rep->status == WCLIENT_TIMEOUT ? "timed out" : "crashed",
                rep->reason);
}

int wclient_call(struct wclient *w, int type, const char *json, const void *blob,
             size_t blob_len, struct wclient_reply *rep)
{
    int r = wclient_send(w, type, json, blob, blob_len, rep);
    if (!r)
        wclient_await(w, rep, NULL, NULL);
    return r;
}

const char *wclient_ready_json(const struct wclient *w)
{
    return w->ready_json ? w->ready_json : "{}";
}

int wclient_restarts(const struct wclient *w)
{
    return w->starts > 0 ? w->starts - 1 : 0;
}

int wclient_pid(const struct wclient *w)
{
    return (int)w->pid;
}
