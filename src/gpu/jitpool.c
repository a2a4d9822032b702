/*
 * jitpool.c - the pool of NVRTC compiler processes (see jit.h).
 *
 * jit_pool_new forks n children; each warms NVRTC up (its first compile
 * pays the library's start-up) and then serves one request at a time on
 * its own socketpair, storing results in the disk cache itself (so the
 * parent never waits on fsync). The parent runs no threads: it answers
 * cache hits and rejected sources at submit, hands queued tickets to idle
 * children, reads replies incrementally under poll(), SIGKILLs a compile
 * that outlives its limit and forks a fresh child for every one that
 * dies. It does not compile (jit.c does, in the children).
 *
 * Protocol, both ways a fixed header then payload: the parent writes a
 * request only to an idle child, which reads all of it before compiling,
 * so the parent's blocking send cannot deadlock; replies of any size are
 * read in pieces as poll() reports them.
 *
 * Threads (several GPU evaluators share one pool, fanout.h): every public
 * call takes the pool's mutex. One caller at a time "services" the pool
 * (pool_service); it lets go of the mutex only around its blocking poll(),
 * with `servicing` set, so that others may queue tickets meanwhile (and
 * wake it through a pipe) but touch no process. Callers that need a result
 * while another one services wait on a condition variable that every
 * service round broadcasts.
 */
#include "jit.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpus.h"
#include "fsutil.h"
#include "seen.h"

#define REQ_MAGIC 0x6b766f71u   /* "kvoq" */
#define REPLY_MAGIC 0x6b766f72u /* "kvor" */
#define READY_MAGIC 0x6b766f79u /* "kvoy": warm-up done, idle */
#define NAME_CAP 4096           /* bytes of a program name */
#define CUBIN_CAP (512u << 20)  /* a reply claiming more is corrupt */
#define MAX_TICKETS (1 << 20)   /* unwaited tickets one pool holds */
#define KILL_GRACE_MS 250      /* the child's own cancel gets this long first */
#define START_TIMEOUT_MS 30000 /* warm-up, and the rest of a reply */
/* The disk cache's recent answers, kept in memory (struct memo_ent): a
 * generation's fill submits its binaries' sources hundreds of times, and
 * each disk hit cost 0.2-0.4 ms (two files read, JSON parsed, the cubin
 * copied into fresh memory) on the coordinator's thread before a batch's
 * first job could go out. A hit now only pins its entry; the cubin is
 * copied at the wait, one job at a time. */
#define MEMO_N 1024
#define MEMO_BYTES (128ll << 20) /* jit_pool_opts.memo_bytes = 0 */

static const char warmup_src[] =
    "extern \"C\" __global__ void kevo_warmup(int *p) { *p = 1; }\n";

struct req_hdr {
    uint32_t magic;     /* REQ_MAGIC */
    uint32_t src_len;   /* bytes of source that follow, no NUL */
    uint32_t name_len;  /* bytes of name after the source */
    int32_t timeout_ms; /* the child's soft limit (flow callback) */
    uint64_t key;       /* cache key to store the result under */
    uint32_t cache;     /* 1: store the result */
    uint32_t pad_;
};

struct reply_hdr {
    uint32_t magic; /* REPLY_MAGIC, or READY_MAGIC after warm-up */
    int32_t rc;     /* status of jit_compile_timed in the child */
    int32_t ok, regs, spill_stores, spill_loads, smem_static, local_bytes;
    int32_t timed_out;
    uint32_t log_len;   /* bytes of log that follow, no NUL */
    uint64_t cubin_len; /* bytes of cubin after the log */
    double compile_ms;
};

enum proc_state { PROC_DEAD, PROC_STARTING, PROC_IDLE, PROC_BUSY };

struct proc {
    pid_t pid; /* 0 when no process */
    int fd;    /* parent's end of the socketpair; -1 if none */
    enum proc_state state;
    int ticket;            /* index in pool->tk being compiled (BUSY) */
    long long sent_ns;     /* when the request went out (BUSY) */
    long long deadline_ns; /* SIGKILL after this (STARTING, BUSY) */
    char *in;              /* reply read so far; owned */
    size_t in_len;         /* bytes in in */
};

enum ticket_state { TK_FREE, TK_QUEUED, TK_RUNNING, TK_DONE };

struct ticket {
    int id; /* what submit returned */
    enum ticket_state state;
    int prefetch; /* 1: from jit_pool_prefetch, nobody waits for it yet;
                     once DONE only a marker (result in the disk cache) */
    int later;    /* 1: from jit_pool_prefetch_later and not asked for
                     sooner since: dispatched after every other ticket */
    double marker_ms; /* a marker's compile time, for its submit */
    uint64_t key; /* cache key (0 without a cache) */
    struct memo_ent *memo; /* DONE from the memo, pinned: out holds all
                              but its cubin and log, the wait copies them */
    char *src;    /* owned copies while QUEUED */
    char *name;
    struct jit_output out; /* the result once DONE */
};

/* An answer of the disk cache, as jit_cache_load gave it. */
struct memo_ent {
    uint64_t key; /* 0: empty */
    int pins;     /* tickets answered from it, not yet waited for: it
                     stays until they are */
    struct jit_output out;
};

struct jit_pool {
    char *arch;         /* owned copy of opts.arch */
    char *cache_dir;    /* owned copy, NULL = no cache */
    int timeout_ms;     /* per compile, > 0 */
    struct proc *procs; /* n_procs of them */
    int n_procs;
    int users;          /* evaluators compiling with it (add_user + 1) */
    struct ticket *tk; /* slots, TK_FREE ones reused */
    int n_tk, cap_tk;
    int next_id;        /* next ticket id */
    int queued_maybe;   /* 0: no ticket was TK_QUEUED when ticket_oldest
                           last looked, and none was queued since (it
                           skips its scan then: submits of cache hits
                           with a compiler idle, a thousand a batch) */
    int n_start_fails;  /* children that died in a row before ready */
    int broken;         /* status that every wait now returns, or 0 */
    struct pollfd *pfd; /* n_procs + 1 (the wake pipe), rebuilt each round */
    int *pfd_proc;      /* pfd[k] watches procs[pfd_proc[k]] */
    char err[256];      /* reason for the last failure (any thread's) */
    pthread_mutex_t mu; /* guards everything above */
    pthread_cond_t cv;  /* a service round ended */
    int servicing;      /* 1: a thread is in poll() without the mutex */
    int wake[2];        /* pipe: a new ticket interrupts that poll() */
    struct seen passed; /* cache keys of sources the rules let through */
    struct memo_ent *memo; /* MEMO_N, a ring (oldest replaced first);
                              NULL without a cache */
    int memo_next;
    size_t memo_bytes;     /* cubins and logs held */
    size_t memo_cap;       /* at most (opts.memo_bytes) */
};

static void KEVO_PRINTF(2, 3) set_err(struct jit_pool *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, sizeof p->err, fmt, ap);
    va_end(ap);
}

const char *jit_pool_errmsg(const struct jit_pool *p)
{
    return p->err;
}

static void result_init(struct jit_output *o)
{
    memset(o, 0, sizeof *o);
    o->regs = o->spill_stores = o->spill_loads = -1;
    o->smem_static = o->local_bytes = -1;
}

/* ---- byte streams */

static int write_all(int fd, const void *data, size_t n)
{
    const char *b = data;
    while (n > 0) {
        /* MSG_NOSIGNAL: a dead peer gives EPIPE, not a SIGPIPE for us */
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

/* 1: read n bytes; 0: end of stream before the first byte; -1: error. */
static int read_full(int fd, void *data, size_t n)
{
    char *b = data;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, b + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r == 0 && got == 0 ? 0 : -1;
        got += (size_t)r;
    }
    return 1;
}

/* ---- the child */

static int send_reply(int fd, uint32_t magic, int rc,
                      const struct jit_output *o)
{
    size_t log_len = o->log ? strlen(o->log) : 0;
    struct reply_hdr h = {
        .magic = magic,
        .rc = rc,
        .ok = o->ok,
        .regs = o->regs,
        .spill_stores = o->spill_stores,
        .spill_loads = o->spill_loads,
        .smem_static = o->smem_static,
        .local_bytes = o->local_bytes,
        .timed_out = o->timed_out,
        .log_len = (uint32_t)log_len,
        .cubin_len = o->ok ? o->cubin_len : 0,
        .compile_ms = o->compile_ms,
    };
    if (write_all(fd, &h, sizeof h) || write_all(fd, o->log, log_len))
        return -1;
    return h.cubin_len ? write_all(fd, o->cubin, h.cubin_len) : 0;
}

/* One request: read, compile, cache, answer. 0 at end of stream. */
static int child_serve_one(int fd, const char *arch, const char *cache_dir)
{
    struct req_hdr h;
    int r = read_full(fd, &h, sizeof h);
    if (r <= 0)
        return r;
    if (h.magic != REQ_MAGIC || h.src_len > JIT_SRC_CAP ||
        h.name_len > NAME_CAP)
        return -1;
    char *src = malloc(h.src_len + 1), *name = malloc(h.name_len + 1);
    if (!src || !name || read_full(fd, src, h.src_len) != 1 ||
        read_full(fd, name, h.name_len) != 1) {
        free(src);
        free(name);
        return -1;
    }
    src[h.src_len] = name[h.name_len] = '\0';
    struct jit_output o;
    int rc = jit_compile_timed(src, name, arch, h.timeout_ms, &o);
    if (!rc && h.cache && cache_dir && !o.timed_out &&
        jit_cache_store(cache_dir, h.key, &o)) {
        /* best effort: a later submit compiles it again */
    }
    r = send_reply(fd, REPLY_MAGIC, rc, &o) ? -1 : 1;
    jit_output_release(&o);
    free(src);
    free(name);
    return r;
}

/* Leaves the child only fd and stdio: it must not hold the write end of
 * anybody else's pipe (another child's, a GPU worker's), which would hide
 * that peer's death from its reader. Ctrl-C goes to the whole process
 * group; the parent decides when compilers stop. */
static void child_setup(int fd)
{
    sigset_t none;
    if (fd > 3)
        close_range(3, (unsigned)fd - 1, 0);
    close_range((unsigned)fd + 1, ~0u, 0);
    signal(SIGINT, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGTERM, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Priority of a compiler process: SCHED_IDLE, below every normal process.
 * The pool keeps every CPU compiling while the GPU worker and the
 * coordinator, two more processes, need a core for their launches,
 * synchronizations, CUPTI flushes and messages, a few hundred
 * microseconds at a time. At equal priority their host work stretched
 * (softmax 4096x4096 on the H100 with 16 compilers on 16 CPUs: 2-7 ms of
 * host time per timing phase around 0.1 ms of kernels). At nice 10 a
 * woken worker still waited for a compiler's slice: on the H200 with 16
 * CPUs, 0.53 ms an evaluation from a job's send to the worker reading it,
 * 0.07 ms under SCHED_IDLE, whose processes a waking normal one preempts
 * at once (7102 against 6273 evaluations/min, bench/results/2026-11-29-
 * h200-s20). Where SCHED_IDLE is refused, nice 19. */
#define CHILD_NICE 19

/* Never returns: the child leaves with _exit (no atexit handlers, no
 * stdio flush of buffers copied from the parent, no leak check). */
static void child_main(int fd, const char *arch, const char *cache_dir)
{
    struct jit_output o;
    child_setup(fd);
    struct sched_param sp = {0};
    if (sched_setscheduler(0, SCHED_IDLE, &sp) &&
        setpriority(PRIO_PROCESS, 0, CHILD_NICE)) {
        /* not fatal: compiles just compete at equal priority */
    }
    int rc = jit_compile(warmup_src, "kevo_warmup.cu", arch, &o);
    int r = send_reply(fd, READY_MAGIC, rc, &o) ? -1 : 1;
    jit_output_release(&o);
    while (r > 0)
        r = child_serve_one(fd, arch, cache_dir);
    _exit(r == 0 ? 0 : 3);
}

/* ---- processes, seen from the parent */

static int proc_spawn(struct jit_pool *p, struct proc *c)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
        set_err(p, "cannot create a socketpair: %s", strerror(errno));
        return KEVO_EIO;
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        set_err(p, "cannot fork a compiler process: %s", strerror(e));
        close(sv[0]);
        close(sv[1]);
        return e == ENOMEM || e == EAGAIN ? KEVO_ENOMEM : KEVO_EIO;
    }
    if (pid == 0)
        child_main(sv[1], p->arch, p->cache_dir);
    close(sv[1]);
    c->pid = pid;
    c->fd = sv[0];
    c->state = PROC_STARTING;
    c->ticket = -1;
    c->deadline_ns = fs_now_ns() + START_TIMEOUT_MS * 1000000LL;
    return KEVO_OK;
}

/* Kills (a no-op on a process that already died) and reaps c; writes how
 * it ended into why[cap]. */
static void proc_reap(struct proc *c, char *why, size_t cap)
{
    int st = 0;
    pid_t r;
    kill(c->pid, SIGKILL);
    while ((r = waitpid(c->pid, &st, 0)) < 0 && errno == EINTR)
        ;
    if (r < 0)
        snprintf(why, cap, "compiler process died");
    else if (WIFSIGNALED(st))
        snprintf(why, cap, "compiler process died: signal %d (%s)",
                 WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(why, cap, "compiler process died: exit status %d",
                 WEXITSTATUS(st));
    close(c->fd);
    free(c->in);
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->ticket = -1;
}

static void ticket_release(struct ticket *t);
static void unpin(struct ticket *t);
static void answer_twins(struct jit_pool *p, uint64_t key);

/* A finished prefetch nobody adopted: its result is in the disk cache (the
 * child stored it), where a later submit finds it; the ticket stays as a
 * marker without the result (jit_pool_ready), freed by that submit. A
 * compile that timed out is not cached: its ticket keeps the result for
 * the submit that adopts it (a deferred candidate's, jit_pool_release),
 * rather than let that submit compile it again. */
static void drop_if_prefetch(struct ticket *t)
{
    if (t->prefetch && t->state == TK_DONE && !t->out.timed_out) {
        t->marker_ms = t->out.cached ? 0 : t->out.compile_ms;
        jit_output_release(&t->out);
        memset(&t->out, 0, sizeof t->out);
        unpin(t);
    }
}

static void ticket_finish(struct ticket *t, const char *log, int timed_out,
                          double compile_ms)
{
    result_init(&t->out);
    t->out.log = strdup(log);
    t->out.timed_out = timed_out;
    t->out.compile_ms = compile_ms;
    t->state = TK_DONE;
}

/* c ended: its ticket (if any) gets reason, a child that never got ready
 * counts toward giving up. The slot is refilled by respawn_dead(). */
static void proc_lost(struct jit_pool *p, struct proc *c, int timed_out)
{
    char why[128], log[160];
    enum proc_state state = c->state;
    int ti = c->ticket;
    double ms = (double)(fs_now_ns() - c->sent_ns) / 1e6;
    proc_reap(c, why, sizeof why);
    if (state == PROC_BUSY) {
        if (timed_out)
            snprintf(log, sizeof log, "compile timed out after %d ms\n",
                     p->timeout_ms);
        else
            snprintf(log, sizeof log, "%s\n", why);
        ticket_finish(&p->tk[ti], log, timed_out, ms);
        drop_if_prefetch(&p->tk[ti]);
    } else if (state == PROC_STARTING) {
        p->n_start_fails++;
        set_err(p, "%s before it was ready",
                timed_out ? "compiler process hung" : why);
        if (p->n_start_fails > 2 * p->n_procs)
            p->broken = KEVO_ECOMPILE;
    }
}

static int respawn_dead(struct jit_pool *p)
{
    for (int i = 0; i < p->n_procs && !p->broken; i++)
        if (p->procs[i].state == PROC_DEAD) {
            int rc = proc_spawn(p, &p->procs[i]);
            if (rc)
                return rc;
        }
    return KEVO_OK;
}

/* ---- replies */

static int reply_header(const struct proc *c, struct reply_hdr *h)
{
    memcpy(h, c->in, sizeof *h);
    uint32_t want = c->state == PROC_STARTING ? READY_MAGIC : REPLY_MAGIC;
    return h->magic == want && h->log_len < JIT_LOG_CAP &&
           h->cubin_len <= CUBIN_CAP;
}

static int take_reply(struct jit_pool *p, struct proc *c,
                      const struct reply_hdr *h)
{
    struct jit_output *o = &p->tk[c->ticket].out;
    const char *payload = c->in + sizeof *h;
    result_init(o);
    o->log = malloc(h->log_len + 1);
    o->cubin = h->cubin_len ? malloc(h->cubin_len) : NULL;
    if (!o->log || (h->cubin_len && !o->cubin)) {
        jit_output_release(o);
        set_err(p, "out of memory for a compile result");
        return KEVO_ENOMEM;
    }
    memcpy(o->log, payload, h->log_len);
    o->log[h->log_len] = '\0';
    if (h->cubin_len)
        memcpy(o->cubin, payload + h->log_len, h->cubin_len);
    o->cubin_len = h->cubin_len;
    o->ok = h->ok && h->rc == KEVO_OK && h->cubin_len > 0;
    o->regs = h->regs;
    o->spill_stores = h->spill_stores;
    o->spill_loads = h->spill_loads;
    o->smem_static = h->smem_static;
    o->local_bytes = h->local_bytes;
    o->timed_out = h->timed_out;
    o->compile_ms = h->compile_ms;
    p->tk[c->ticket].state = TK_DONE;
    drop_if_prefetch(&p->tk[c->ticket]);
    answer_twins(p, p->tk[c->ticket].key);
    c->state = PROC_IDLE;
    c->ticket = -1;
    return KEVO_OK;
}

/* The warm-up compile of a new child: if NVRTC cannot compile a trivial
 * kernel, no candidate will compile, so the pool stops here. */
static void take_ready(struct jit_pool *p, struct proc *c,
                       const struct reply_hdr *h)
{
    const char *log = c->in + sizeof *h;
    int first_line = (int)strcspn(log, "\n");
    if (first_line > (int)h->log_len)
        first_line = (int)h->log_len;
    if (h->rc || !h->ok) {
        p->broken = h->rc ? h->rc : KEVO_ECOMPILE;
        set_err(p, "nvrtc cannot compile a trivial kernel for '%s': %.*s",
                p->arch, first_line, log);
    }
    p->n_start_fails = 0;
    c->state = PROC_IDLE;
}

/* Reads what c has sent; handles a reply once whole. */
static int proc_read(struct jit_pool *p, struct proc *c)
{
    struct reply_hdr h;
    size_t need = sizeof h;
    if (c->in_len >= sizeof h) {
        memcpy(&h, c->in, sizeof h);
        need += h.log_len + h.cubin_len;
    }
    if (!c->in && !(c->in = malloc(need)))
        return KEVO_ENOMEM;
    ssize_t r = read(c->fd, c->in + c->in_len, need - c->in_len);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return KEVO_OK;
    if (r <= 0) {
        proc_lost(p, c, 0);
        return KEVO_OK;
    }
    c->in_len += (size_t)r;
    /* the compile is over once a reply starts: time to send the rest */
    c->deadline_ns = fs_now_ns() + START_TIMEOUT_MS * 1000000LL;
    if (c->in_len == sizeof h) {
        if (!reply_header(c, &h)) {
            proc_lost(p, c, 0); /* a garbled reply: the process is sick */
            return KEVO_OK;
        }
        need = sizeof h + h.log_len + h.cubin_len;
        char *bigger = realloc(c->in, need);
        if (!bigger)
            return KEVO_ENOMEM;
        c->in = bigger;
    }
    if (c->in_len < need)
        return KEVO_OK;
    int rc = KEVO_OK;
    if (c->state == PROC_STARTING)
        take_ready(p, c, &h);
    else
        rc = take_reply(p, c, &h);
    free(c->in);
    c->in = NULL;
    c->in_len = 0;
    return rc;
}

/* ---- tickets */

static struct ticket *ticket_find(struct jit_pool *p, int id)
{
    for (int i = 0; i < p->n_tk; i++)
        if (p->tk[i].state != TK_FREE && p->tk[i].id == id)
            return &p->tk[i];
    return NULL;
}

/* 1 if a ticket of this cache key is compiling now (key 0: no cache). */
static int key_running(const struct jit_pool *p, uint64_t key)
{
    for (int i = 0; key && i < p->n_tk; i++)
        if (p->tk[i].state == TK_RUNNING && p->tk[i].key == key)
            return 1;
    return 0;
}

/* The oldest queued ticket's index, or -1; one for later (the engine's
 * next batch, issue 32) only when no other is queued and fewer than half
 * the compilers (at least one) work for later: the rest stay free for the
 * current batch, whose compiles would otherwise queue behind prefetches
 * of seconds each (fp32 GEMM 4096^3 with --pipeline 1 made 788 against
 * 1138 evaluations/min without: bench/results/2026-11-28-h200-s16). A
 * ticket whose twin (same source, e.g. points that differ only in
 * launch-only params) is compiling waits for it: answer_twins takes the
 * result from the cache. */
static int ticket_oldest(struct jit_pool *p)
{
    if (!p->queued_maybe)
        return -1;
    int best = -1, later_running = 0, queued = 0;
    for (int i = 0; i < p->n_tk; i++)
        later_running += p->tk[i].state == TK_RUNNING && p->tk[i].later;
    int later_ok = later_running < (p->n_procs / 2 > 1 ? p->n_procs / 2 : 1);
    for (int i = 0; i < p->n_tk; i++) {
        const struct ticket *t = &p->tk[i];
        queued += t->state == TK_QUEUED;
        if (t->state != TK_QUEUED || key_running(p, t->key) ||
            (t->later && !later_ok))
            continue;
        if (best < 0 || t->later < p->tk[best].later ||
            (t->later == p->tk[best].later && t->id < p->tk[best].id))
            best = i;
    }
    p->queued_maybe = queued > 0;
    return best;
}

/* A compile of key ended (its child stored the result in the disk cache,
 * unless it timed out or died): the queued twins are answered from there
 * as cache hits; any left (no cache entry) compile as usual. */
static int answer_cached(struct jit_pool *p, struct ticket *t);

static void answer_twins(struct jit_pool *p, uint64_t key)
{
    for (int i = 0; key && p->cache_dir && i < p->n_tk; i++) {
        struct ticket *t = &p->tk[i];
        if (t->state != TK_QUEUED || t->key != key ||
            answer_cached(p, t) != KEVO_OK)
            continue;
        free(t->src);
        free(t->name);
        t->src = t->name = NULL;
        t->state = TK_DONE;
        drop_if_prefetch(t);
    }
}

static struct ticket *ticket_new(struct jit_pool *p)
{
    int i = 0;
    while (i < p->n_tk && p->tk[i].state != TK_FREE)
        i++;
    if (i == p->n_tk) {
        if (p->n_tk == p->cap_tk) {
            int cap = p->cap_tk ? 2 * p->cap_tk : 64;
            struct ticket *tk;
            if (cap > MAX_TICKETS ||
                !(tk = realloc(p->tk, (size_t)cap * sizeof *tk)))
                return NULL;
            p->tk = tk;
            p->cap_tk = cap;
        }
        p->n_tk++;
    }
    struct ticket *t = &p->tk[i];
    memset(t, 0, sizeof *t);
    t->id = p->next_id++;
    return t;
}

static void ticket_release(struct ticket *t)
{
    unpin(t);
    free(t->src);
    free(t->name);
    jit_output_release(&t->out);
    memset(t, 0, sizeof *t);
}

/* Sends the oldest queued ticket to idle child c. */
static void dispatch_one(struct jit_pool *p, struct proc *c, int ti)
{
    struct ticket *t = &p->tk[ti];
    struct req_hdr h = {
        .magic = REQ_MAGIC,
        .src_len = (uint32_t)strlen(t->src),
        .name_len = (uint32_t)strlen(t->name),
        .timeout_ms = p->timeout_ms,
        .key = t->key,
        .cache = p->cache_dir != NULL,
    };
    if (write_all(c->fd, &h, sizeof h) || write_all(c->fd, t->src, h.src_len) ||
        write_all(c->fd, t->name, h.name_len)) {
        proc_lost(p, c, 0); /* died idle; the ticket stays queued */
        return;
    }
    free(t->src);
    free(t->name);
    t->src = t->name = NULL;
    t->state = TK_RUNNING;
    c->state = PROC_BUSY;
    c->ticket = ti;
    c->sent_ns = fs_now_ns();
    c->deadline_ns =
        c->sent_ns + ((long long)p->timeout_ms + KILL_GRACE_MS) * 1000000;
}

static void dispatch(struct jit_pool *p)
{
    for (int i = 0; i < p->n_procs && !p->broken; i++) {
        if (p->procs[i].state != PROC_IDLE)
            continue;
        int ti = ticket_oldest(p);
        if (ti < 0)
            return;
        dispatch_one(p, &p->procs[i], ti);
    }
}

/* ---- the service loop */

/* Milliseconds until the nearest deadline (rounded up), -1 if none. */
static int next_wait_ms(const struct jit_pool *p)
{
    long long now = fs_now_ns(), best = -1;
    for (int i = 0; i < p->n_procs; i++) {
        const struct proc *c = &p->procs[i];
        if (c->state != PROC_STARTING && c->state != PROC_BUSY)
            continue;
        long long left = c->deadline_ns > now ? c->deadline_ns - now : 0;
        if (best < 0 || left < best)
            best = left;
    }
    return best < 0 ? -1 : (int)((best + 999999) / 1000000);
}

static void kill_overdue(struct jit_pool *p)
{
    long long now = fs_now_ns();
    for (int i = 0; i < p->n_procs; i++) {
        struct proc *c = &p->procs[i];
        if ((c->state == PROC_STARTING || c->state == PROC_BUSY) &&
            now >= c->deadline_ns)
            proc_lost(p, c, 1);
    }
}

/* Empties the wake pipe (non-blocking). */
static void drain_wake(struct jit_pool *p)
{
    char buf[64];
    while (read(p->wake[0], buf, sizeof buf) > 0)
        ;
}

/* One round: dispatch, wait for readiness (up to the nearest deadline
 * if block, else not at all), read, enforce deadlines, refill. Called with
 * the mutex held and nobody servicing; a blocking wait lets go of the
 * mutex while in poll(). */
/* block: 0 returns at once; else waits at most block ms (the nearest
 * deadline, or 100 ms when nothing runs, if that is sooner). */
static int pool_service(struct jit_pool *p, int block)
{
    int rc = respawn_dead(p);
    if (rc)
        return rc;
    dispatch(p);
    int n = 0;
    for (int i = 0; i < p->n_procs; i++)
        if (p->procs[i].fd >= 0) {
            p->pfd[n].fd = p->procs[i].fd;
            p->pfd[n].events = POLLIN;
            p->pfd_proc[n++] = i;
        }
    p->pfd[n].fd = p->wake[0];
    p->pfd[n].events = POLLIN;
    int wait_ms = block ? next_wait_ms(p) : 0;
    if (n == 0 || wait_ms < 0)
        wait_ms = block ? 100 : 0; /* nothing running: do not hang */
    if (block && wait_ms > block)
        wait_ms = block;
    int ready;
    if (wait_ms > 0) {
        p->servicing = 1;
        pthread_mutex_unlock(&p->mu);
        ready = poll(p->pfd, (nfds_t)n + 1, wait_ms);
        int e = errno;
        pthread_mutex_lock(&p->mu);
        p->servicing = 0;
        pthread_cond_broadcast(&p->cv);
        errno = e;
    } else {
        ready = poll(p->pfd, (nfds_t)n + 1, 0);
    }
    if (ready < 0 && errno != EINTR) {
        set_err(p, "poll failed: %s", strerror(errno));
        return KEVO_EIO;
    }
    if (ready > 0 && p->pfd[n].revents)
        drain_wake(p);
    for (int k = 0; k < n && ready > 0 && !rc; k++)
        if (p->pfd[k].revents)
            rc = proc_read(p, &p->procs[p->pfd_proc[k]]);
    if (rc)
        return rc;
    kill_overdue(p);
    rc = respawn_dead(p);
    if (!rc)
        dispatch(p);
    pthread_cond_broadcast(&p->cv);
    return rc;
}

/* A round of service if nobody else is in one; else (another thread is in
 * poll(), which a new ticket has woken) nothing. Mutex held. */
static void service_now(struct jit_pool *p)
{
    if (!p->servicing) {
        if (pool_service(p, 0)) {
            /* reported again by the wait that needs it */
        }
    } else {
        ssize_t w = write(p->wake[1], "w", 1);
        (void)w; /* a full pipe is already a wake-up */
    }
}

/* ---- the memo: the disk cache's answers, in memory */

static size_t out_bytes(const struct jit_output *o)
{
    return o->cubin_len + (o->log ? strlen(o->log) : 0);
}

static void unpin(struct ticket *t)
{
    if (t->memo)
        t->memo->pins--;
    t->memo = NULL;
}

/* dst: src's fields, with copies of its cubin and log. */
static int out_copy(struct jit_output *dst, const struct jit_output *src)
{
    *dst = *src;
    dst->cubin = NULL;
    dst->log = NULL;
    if (src->cubin && !(dst->cubin = malloc(src->cubin_len ? src->cubin_len
                                                           : 1)))
        goto oom;
    if (src->cubin)
        memcpy(dst->cubin, src->cubin, src->cubin_len);
    if (src->log && !(dst->log = strdup(src->log)))
        goto oom;
    return KEVO_OK;
oom:
    jit_output_release(dst);
    return KEVO_ENOMEM;
}

static struct memo_ent *memo_find(struct jit_pool *p, uint64_t key)
{
    for (int i = 0; p->memo && key && i < MEMO_N; i++)
        if (p->memo[i].key == key)
            return &p->memo[i];
    return NULL;
}

static void memo_drop(struct jit_pool *p, struct memo_ent *m)
{
    p->memo_bytes -= out_bytes(&m->out);
    jit_output_release(&m->out);
    m->key = 0;
}

/* Moves *o (a disk cache answer for key) into the memo, the oldest
 * unpinned entries leaving as needed; NULL (o untouched) if it does not
 * fit. */
static struct memo_ent *memo_take(struct jit_pool *p, uint64_t key,
                                  struct jit_output *o)
{
    size_t b = out_bytes(o);
    if (!p->memo || !key || b > p->memo_cap)
        return NULL;
    /* its slot: the oldest unpinned one (the ring's order is age) */
    struct memo_ent *m = NULL;
    for (int k = 0; k < MEMO_N && !m; k++) {
        struct memo_ent *e = &p->memo[(p->memo_next + k) % MEMO_N];
        if (!e->pins)
            m = e;
    }
    if (!m)
        return NULL;
    if (m->key)
        memo_drop(p, m);
    /* then the next oldest unpinned ones until it fits */
    for (int k = 0; k < MEMO_N && p->memo_bytes + b > p->memo_cap; k++) {
        struct memo_ent *e = &p->memo[(p->memo_next + k) % MEMO_N];
        if (e->key && !e->pins)
            memo_drop(p, e);
    }
    if (p->memo_bytes + b > p->memo_cap)
        return NULL; /* the rest is pinned */
    p->memo_next = (int)(m - p->memo + 1) % MEMO_N;
    m->key = key;
    m->pins = 0;
    m->out = *o;
    memset(o, 0, sizeof *o);
    p->memo_bytes += b;
    return m;
}

/* t, a cache hit: from the memo (pinned, the wait copies the cubin), else
 * from the disk (into the memo, or into t itself when it does not fit).
 * KEVO_ENOENT if the cache does not have it. */
static int answer_cached(struct jit_pool *p, struct ticket *t)
{
    struct memo_ent *m = memo_find(p, t->key);
    if (!m) {
        int rc = jit_cache_load(p->cache_dir, t->key, &t->out);
        if (rc != KEVO_OK)
            return rc;
        if (!(m = memo_take(p, t->key, &t->out)))
            return KEVO_OK; /* t keeps its own */
    }
    t->out = m->out;
    t->out.cubin = NULL;
    t->out.log = NULL;
    t->memo = m;
    m->pins++;
    return KEVO_OK;
}

/* A done ticket's result, into *out (t keeps none). */
static int take_result(struct ticket *t, struct jit_output *out)
{
    if (t->memo) {
        struct jit_output o = t->out; /* its own fields (submit's marker
                                         adjustments), the memo's bytes */
        int rc = out_copy(out, &t->memo->out);
        if (rc)
            return rc;
        o.cubin = out->cubin;
        o.log = out->log;
        *out = o;
        unpin(t);
    } else {
        *out = t->out;
    }
    memset(&t->out, 0, sizeof t->out);
    return KEVO_OK;
}

/* ---- public */

/* Answers t at once when it need not be compiled: a rejected source or a
 * cache hit. key: jit_cache_key of src. Returns 1 if answered, 0 if not,
 * or a negative status. */
static int answer_now(struct jit_pool *p, struct ticket *t, const char *src,
                      uint64_t key)
{
    char why[256], log[300];
    /* the rules read code, not the first line (a comment), so a source of
     * a known key passed them already: a launch-only neighbour of a
     * measured point (the fill, hundreds a generation) skips the scan,
     * 0.13 ms of a 30 KB source */
    if (!seen_has(&p->passed, key)) {
        if (jit_check_source(src, why, sizeof why)) {
            snprintf(log, sizeof log, "kevo: rejected: %s\n", why);
            ticket_finish(t, log, 0, 0);
            return t->out.log ? 1 : -KEVO_ENOMEM;
        }
        if (seen_add(&p->passed, key))
            return -KEVO_ENOMEM;
    }
    if (!p->cache_dir)
        return 0;
    t->key = key;
    int rc = answer_cached(p, t);
    if (rc == KEVO_OK)
        t->state = TK_DONE;
    return rc == KEVO_OK ? 1 : rc == KEVO_ENOENT ? 0 : -rc;
}

/* The unadopted prefetch of the same source, or NULL. */
static struct ticket *prefetched(struct jit_pool *p, uint64_t key)
{
    for (int i = 0; i < p->n_tk; i++)
        if (p->tk[i].state != TK_FREE && p->tk[i].prefetch &&
            p->tk[i].key == key)
            return &p->tk[i];
    return NULL;
}

/* submit and prefetch (later: jit_pool_prefetch_later), mutex held. */
static int submit_locked(struct jit_pool *p, const char *src,
                         const char *name, int prefetch, int later)
{
    double ahead_ms = 0; /* compiled ahead by a prefetch that took this */
    if (!src || !name || strlen(src) > JIT_SRC_CAP || strlen(name) > NAME_CAP) {
        set_err(p, "source or name missing or too long");
        return -KEVO_EINVAL;
    }
    uint64_t key = jit_cache_key(src, p->arch);
    if (p->cache_dir) {
        struct ticket *pt = prefetched(p, key);
        if (pt && (prefetch || pt->state != TK_DONE || pt->out.timed_out)) {
            pt->prefetch = prefetch; /* compiling: a submit adopts it */
            pt->later = pt->later && later; /* wanted sooner now? */
            return pt->id;
        }
        if (pt) { /* a done marker: the cache has it now */
            ahead_ms = pt->marker_ms;
            ticket_release(pt);
        }
    }
    struct ticket *t = ticket_new(p);
    if (!t) {
        set_err(p, "cannot queue more than %d compiles", MAX_TICKETS);
        return -KEVO_ENOMEM;
    }
    int id = t->id;
    int r = answer_now(p, t, src, key);
    if (r == 0) {
        t->src = strdup(src);
        t->name = strdup(name);
        t->state = TK_QUEUED;
        p->queued_maybe = 1;
        t->prefetch = prefetch;
        t->later = later;
        r = t->src && t->name ? 0 : -KEVO_ENOMEM;
    }
    if (r < 0) {
        ticket_release(t);
        return r;
    }
    if (r == 1 && ahead_ms > 0 && t->out.cached) {
        t->out.cached = 0; /* compiled for this run, just earlier */
        t->out.compile_ms = ahead_ms;
    }
    if (r == 1 && prefetch) { /* a cache hit (marker) or a rejected source */
        if (!t->key) {
            ticket_release(t);
            return id;
        }
        t->prefetch = 1;
        drop_if_prefetch(t);
        return id;
    }
    /* start it now if a child is idle, and collect finished ones */
    service_now(p);
    return id;
}

int jit_pool_submit(struct jit_pool *p, const char *src, const char *name)
{
    pthread_mutex_lock(&p->mu);
    int r = submit_locked(p, src, name, 0, 0);
    pthread_mutex_unlock(&p->mu);
    return r;
}

static int prefetch(struct jit_pool *p, const char *src, const char *name,
                    int later)
{
    if (!p->cache_dir)
        return KEVO_OK;
    pthread_mutex_lock(&p->mu);
    int r = submit_locked(p, src, name, 1, later);
    pthread_mutex_unlock(&p->mu);
    return r < 0 ? -r : KEVO_OK;
}

int jit_pool_prefetch(struct jit_pool *p, const char *src, const char *name)
{
    return prefetch(p, src, name, 0);
}

int jit_pool_prefetch_later(struct jit_pool *p, const char *src,
                            const char *name)
{
    return prefetch(p, src, name, 1);
}

/* Mutex held. p->tk moves in submit, so the ticket is looked up again
 * after every wait. */
static int wait_locked(struct jit_pool *p, int ticket, struct jit_output *out)
{
    for (;;) {
        struct ticket *t = ticket_find(p, ticket);
        if (!t) {
            set_err(p, "no pending ticket %d", ticket);
            return KEVO_EINVAL;
        }
        if (t->state == TK_DONE) {
            int rc = take_result(t, out);
            ticket_release(t);
            return rc;
        }
        if (p->broken)
            return p->broken;
        if (p->servicing) {
            pthread_cond_wait(&p->cv, &p->mu);
            continue;
        }
        int rc = pool_service(p, INT_MAX);
        if (rc)
            return rc;
    }
}

int jit_pool_ready(struct jit_pool *p, const char *src)
{
    if (!p->cache_dir)
        return -1;
    uint64_t key = jit_cache_key(src, p->arch);
    pthread_mutex_lock(&p->mu);
    struct ticket *t = prefetched(p, key);
    int r = t ? t->state == TK_DONE : -1;
    pthread_mutex_unlock(&p->mu);
    return r;
}

int jit_pool_wait(struct jit_pool *p, int ticket, struct jit_output *out)
{
    pthread_mutex_lock(&p->mu);
    int rc = wait_locked(p, ticket, out);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

int jit_pool_poll(struct jit_pool *p, int block)
{
    return jit_pool_poll_ms(p, block ? INT_MAX : 0);
}

int jit_pool_poll_ms(struct jit_pool *p, int max_ms)
{
    pthread_mutex_lock(&p->mu);
    int rc = p->broken, block = max_ms > 0;
    if (!rc && !p->servicing)
        rc = pool_service(p, max_ms > 0 ? max_ms : 0);
    else if (!rc && block && max_ms == INT_MAX) /* someone else serves: */
        pthread_cond_wait(&p->cv, &p->mu);      /* wait for their round */
    else if (!rc && block) {
        struct timespec dl = fs_abstime_in(max_ms * 1000000LL);
        pthread_cond_timedwait(&p->cv, &p->mu, &dl);
    }
    pthread_mutex_unlock(&p->mu);
    return rc;
}

int jit_pool_release(struct jit_pool *p, int ticket)
{
    if (!p->cache_dir)
        return -1;
    pthread_mutex_lock(&p->mu);
    int r = -1;
    for (int i = 0; i < p->n_tk; i++) {
        struct ticket *t = &p->tk[i];
        if (t->state != TK_FREE && t->id == ticket && !t->prefetch &&
            t->key) {
            t->prefetch = 1; /* as if prefetched: a submit adopts it */
            t->later = 0;
            drop_if_prefetch(t);
            r = 0;
            break;
        }
    }
    pthread_mutex_unlock(&p->mu);
    return r;
}

int jit_pool_done(struct jit_pool *p, int ticket)
{
    pthread_mutex_lock(&p->mu);
    int r = -1;
    for (int i = 0; i < p->n_tk; i++)
        if (p->tk[i].state != TK_FREE && p->tk[i].id == ticket &&
            !p->tk[i].prefetch) {
            r = p->tk[i].state == TK_DONE;
            break;
        }
    pthread_mutex_unlock(&p->mu);
    return r;
}

void jit_pool_add_user(struct jit_pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->users++;
    pthread_mutex_unlock(&p->mu);
}

double jit_pool_share(struct jit_pool *p)
{
    pthread_mutex_lock(&p->mu);
    double s = (double)p->n_procs / (p->users > 0 ? p->users : 1);
    pthread_mutex_unlock(&p->mu);
    return s;
}

int jit_pool_procs(int n)
{
    return n > 0 ? n : cpus_usable(); /* the CPUs we may use, not all */
}

static int pool_alloc(const struct jit_pool_opts *o, struct jit_pool **out)
{
    struct jit_pool *p = calloc(1, sizeof *p);
    if (!p)
        return KEVO_ENOMEM;
    *out = p;
    p->n_procs = jit_pool_procs(o->n_procs);
    p->users = 1;
    p->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : JIT_DEFAULT_TIMEOUT_MS;
    p->arch = strdup(o->arch);
    p->cache_dir = o->cache_dir ? strdup(o->cache_dir) : NULL;
    p->memo_cap = (size_t)(o->memo_bytes ? o->memo_bytes : MEMO_BYTES);
    int memo = o->cache_dir && o->memo_bytes >= 0;
    p->memo = memo ? calloc(MEMO_N, sizeof *p->memo) : NULL;
    p->wake[0] = p->wake[1] = -1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (seen_init(&p->passed))
        return KEVO_ENOMEM;
    if (pipe2(p->wake, O_CLOEXEC | O_NONBLOCK))
        return KEVO_EIO;
    p->procs = calloc((size_t)p->n_procs, sizeof *p->procs);
    p->pfd = calloc((size_t)p->n_procs + 1, sizeof *p->pfd);
    p->pfd_proc = calloc((size_t)p->n_procs, sizeof *p->pfd_proc);
    if (!p->arch || (o->cache_dir && !p->cache_dir) || (memo && !p->memo) ||
        !p->procs || !p->pfd ||
        !p->pfd_proc)
        return KEVO_ENOMEM;
    for (int i = 0; i < p->n_procs; i++)
        p->procs[i].fd = p->procs[i].ticket = -1;
    return KEVO_OK;
}

int jit_pool_new(const struct jit_pool_opts *o, struct jit_pool **out)
{
    const char *opts[16];
    struct jit_pool *p = NULL;
    *out = NULL;
    if (!o || o->n_procs < 0 || o->timeout_ms < 0 ||
        jit_default_options(o->arch, opts, 16) < 0)
        return KEVO_EINVAL;
    int rc = pool_alloc(o, &p);
    if (!rc && p->cache_dir)
        rc = fs_mkdirs(p->cache_dir);
    for (int i = 0; !rc && i < p->n_procs; i++)
        rc = proc_spawn(p, &p->procs[i]);
    if (rc) {
        jit_pool_free(p);
        return rc;
    }
    *out = p;
    return KEVO_OK;
}

void jit_pool_free(struct jit_pool *p)
{
    char why[128];
    if (!p)
        return;
    for (int i = 0; p->procs && i < p->n_procs; i++)
        if (p->procs[i].pid > 0)
            proc_reap(&p->procs[i], why, sizeof why);
    for (int i = 0; i < p->n_tk; i++)
        ticket_release(&p->tk[i]);
    free(p->tk);
    free(p->pfd_proc);
    free(p->pfd);
    free(p->procs);
    free(p->cache_dir);
    free(p->arch);
    seen_release(&p->passed);
    for (int i = 0; p->memo && i < MEMO_N; i++)
        jit_output_release(&p->memo[i].out);
    free(p->memo);
    for (int i = 0; i < 2; i++)
        if (p->wake[i] >= 0)
            close(p->wake[i]);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
