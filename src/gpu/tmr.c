/*
 * tmr.c - repetition timing with CUPTI activity records or CUDA events
 * (see tmr.h). Owns the CUPTI subscription of the process: the buffer
 * callbacks run on a CUPTI thread and append compact records to an array
 * under a mutex. Does not decide how many repetitions to run.
 *
 * Sources: notes/cupti-nvrtc-driver.md 1.2 (recipe; CUPTI and events agree
 * within 0.1 % on long kernels, events add ~6 us of launch latency on an
 * idle GPU), 1.4 (error 39 under ncu/nsys/sanitizer).
 */
#include "tmr.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cupti.h>

#include "fsutil.h"

#define CUPTI_BUF_BYTES (4u << 20)
#define REC_CAP (1 << 20) /* records kept between discards */

enum rec_class { REC_FLUSH, REC_HARNESS, REC_TIMED };

struct rec {
    uint64_t start, end; /* ns, CUPTI time base */
    int cls;             /* enum rec_class */
};

/* CUPTI callbacks carry no user pointer: the process-wide record store. */
static struct {
    pthread_mutex_t lock;
    struct rec *v;
    size_t n, cap;
    size_t dropped; /* records lost to REC_CAP or CUPTI drops */
    int zero_ts;    /* records without timestamps */
} store = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, 0};

struct cupti_api {
    __typeof__(cuptiActivityRegisterCallbacks) *reg;
    __typeof__(cuptiActivityEnable) *enable;
    __typeof__(cuptiActivityDisable) *disable;
    __typeof__(cuptiActivityFlushAll) *flush_all;
    __typeof__(cuptiActivityGetNextRecord) *next;
    __typeof__(cuptiActivityGetNumDroppedRecords) *dropped;
    __typeof__(cuptiGetResultString) *result_string;
    __typeof__(cuptiGetVersion) *version;
};

struct tmr {
    const struct gpu *g;
    CUstream s;
    int cupti;                 /* 1: CUPTI records, 0: events */
    struct cupti_api cp;
    unsigned cupti_version;
    int reps;                  /* begun since last collect */
    int open;                  /* rep_begin without rep_end */
    CUevent ev[2 * TMR_MAX_REPS];
    char note[256];
    char err[256];
};

static void CUPTIAPI buf_requested(uint8_t **buf, size_t *size,
                                   size_t *max_records)
{
    *buf = aligned_alloc(8, CUPTI_BUF_BYTES);
    *size = *buf ? CUPTI_BUF_BYTES : 0;
    *max_records = 0;
}

static struct cupti_api *cb_api; /* for the completion callback */

static int classify(const char *name)
{
    if (!name)
        return REC_TIMED;
    if (!strcmp(name, "kevo_flush"))
        return REC_FLUSH;
    return strncmp(name, "kevo_", 5) ? REC_TIMED : REC_HARNESS;
}

static void store_add(uint64_t start, uint64_t end, int cls)
{
    if (store.n == store.cap) {
        size_t cap = store.cap ? 2 * store.cap : 4096;
        struct rec *v = cap <= REC_CAP ? realloc(store.v, cap * sizeof *v)
                                       : NULL;
        if (!v) {
            store.dropped++;
            return;
        }
        store.v = v;
        store.cap = cap;
    }
    store.v[store.n++] = (struct rec){start, end, cls};
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t stream,
                                   uint8_t *buf, size_t size, size_t valid)
{
    CUpti_Activity *r = NULL;
    pthread_mutex_lock(&store.lock);
    while (cb_api && cb_api->next(buf, valid, &r) == CUPTI_SUCCESS) {
        if (r->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
            r->kind != CUPTI_ACTIVITY_KIND_KERNEL)
            continue;
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
        if (k->start == 0 && k->end == 0)
            store.zero_ts++;
        store_add(k->start, k->end, classify(k->name));
    }
    size_t d = 0;
    if (cb_api && cb_api->dropped(ctx, stream, &d) == CUPTI_SUCCESS)
        store.dropped += d;
    pthread_mutex_unlock(&store.lock);
    free(buf);
}

static const char *cupti_str(const struct tmr *t, CUptiResult rc)
{
    const char *s = NULL;
    if (t->cp.result_string && t->cp.result_string(rc, &s) == 0 && s)
        return s;
    return "CUPTI error";
}

void *tmr_cupti_open(void)
{
    static const char *const paths[] = {
        "libcupti.so.13",
        "/usr/local/cuda/lib64/libcupti.so.13",
        "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        void *h = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    return NULL;
}

/* Returns 1 when CUPTI tracing is on; else fills t->note. */
static int start_cupti(struct tmr *t)
{
    void *h = tmr_cupti_open();
    if (!h) {
        snprintf(t->note, sizeof t->note, "libcupti.so.13 not found");
        return 0;
    }
    struct cupti_api *c = &t->cp;
    c->reg = (__typeof__(c->reg))dlsym(h, "cuptiActivityRegisterCallbacks");
    c->enable = (__typeof__(c->enable))dlsym(h, "cuptiActivityEnable");
    c->disable = (__typeof__(c->disable))dlsym(h, "cuptiActivityDisable");
    c->flush_all = (__typeof__(c->flush_all))dlsym(h, "cuptiActivityFlushAll");
    c->next = (__typeof__(c->next))dlsym(h, "cuptiActivityGetNextRecord");
    c->dropped = (__typeof__(c->dropped))dlsym(
        h, "cuptiActivityGetNumDroppedRecords");
    c->result_string = (__typeof__(c->result_string))dlsym(
        h, "cuptiGetResultString");
    c->version = (__typeof__(c->version))dlsym(h, "cuptiGetVersion");
    if (!c->reg || !c->enable || !c->disable || !c->flush_all || !c->next ||
        !c->dropped) {
        snprintf(t->note, sizeof t->note, "libcupti.so.13 lacks the "
                 "activity API");
        return 0;
    }
    if (c->version)
        c->version(&t->cupti_version);
    cb_api = c;
    CUptiResult rc = c->reg(buf_requested, buf_completed);
    if (rc == CUPTI_SUCCESS)
        rc = c->enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (rc != CUPTI_SUCCESS) {
        snprintf(t->note, sizeof t->note, "cupti unavailable: %s (%d)%s",
                 cupti_str(t, rc), (int)rc,
                 rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                     ? ": another CUPTI client (profiler, sanitizer) is "
                       "attached"
                     : "");
        cb_api = NULL;
        return 0;
    }
    return 1;
}

int tmr_new(const struct gpu *g, CUstream s, int want_cupti,
            struct tmr **out, char *err, size_t errcap)
{
    struct tmr *t = calloc(1, sizeof *t);
    if (!t)
        return KEVO_ENOMEM;
    t->g = g;
    t->s = s;
    if (want_cupti)
        t->cupti = start_cupti(t);
    else
        snprintf(t->note, sizeof t->note, "cupti not requested");
    for (int i = 0; i < 2 * TMR_MAX_REPS; i++) {
        CUresult rc = g->cu->cuEventCreate(&t->ev[i], CU_EVENT_DEFAULT);
        if (rc) {
            snprintf(err, errcap, "cannot create CUDA events: %s",
                     gpu_errname(rc));
            tmr_free(t);
            return KEVO_ECUDA;
        }
    }
    *out = t;
    return KEVO_OK;
}

void tmr_free(struct tmr *t)
{
    if (!t)
        return;
    if (t->cupti) {
        t->cp.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        t->cp.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        cb_api = NULL;
    }
    for (int i = 0; i < 2 * TMR_MAX_REPS; i++)
        if (t->ev[i])
            t->g->cu->cuEventDestroy(t->ev[i]);
    free(t);
}

const char *tmr_kind(const struct tmr *t)
{
    return t->cupti ? "cupti" : "events";
}

const char *tmr_note(const struct tmr *t)
{
    return t->note;
}

unsigned tmr_cupti_version(const struct tmr *t)
{
    return t->cupti ? t->cupti_version : 0;
}

const char *tmr_errmsg(const struct tmr *t)
{
    return t->err;
}

int tmr_pause(struct tmr *t)
{
    if (!t->cupti)
        return KEVO_OK;
    t->cp.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    CUptiResult rc = t->cp.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (rc) {
        snprintf(t->err, sizeof t->err, "cuptiActivityDisable: %s",
                 cupti_str(t, rc));
        return KEVO_ECUDA;
    }
    return KEVO_OK;
}

int tmr_resume(struct tmr *t)
{
    if (!t->cupti)
        return KEVO_OK;
    CUptiResult rc = t->cp.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (rc) {
        snprintf(t->err, sizeof t->err, "cuptiActivityEnable: %s",
                 cupti_str(t, rc));
        return KEVO_ECUDA;
    }
    return KEVO_OK;
}

int tmr_discard(struct tmr *t)
{
    if (t->cupti)
        t->cp.flush_all(0);
    pthread_mutex_lock(&store.lock);
    store.n = 0;
    store.dropped = 0;
    store.zero_ts = 0;
    pthread_mutex_unlock(&store.lock);
    t->reps = 0;
    t->open = 0;
    return KEVO_OK;
}

int tmr_rep_begin(struct tmr *t)
{
    if (t->open || t->reps >= TMR_MAX_REPS) {
        snprintf(t->err, sizeof t->err, "too many repetitions before collect");
        return KEVO_EINTERNAL;
    }
    t->open = 1;
    if (!t->cupti) {
        CUresult rc = t->g->cu->cuEventRecord(t->ev[2 * t->reps], t->s);
        if (rc) {
            snprintf(t->err, sizeof t->err, "cuEventRecord: %s",
                     gpu_errname(rc));
            return KEVO_ECUDA;
        }
    }
    return KEVO_OK;
}

int tmr_rep_end(struct tmr *t)
{
    if (!t->open)
        return KEVO_EINTERNAL;
    t->open = 0;
    if (!t->cupti) {
        CUresult rc = t->g->cu->cuEventRecord(t->ev[2 * t->reps + 1], t->s);
        if (rc) {
            snprintf(t->err, sizeof t->err, "cuEventRecord: %s",
                     gpu_errname(rc));
            return KEVO_ECUDA;
        }
    }
    t->reps++;
    return KEVO_OK;
}

static int collect_events(struct tmr *t, double *ns, int *nkern, int max,
                          int *n)
{
    int k = t->reps < max ? t->reps : max;
    for (int i = 0; i < k; i++) {
        float ms = 0;
        CUresult rc = t->g->cu->cuEventElapsedTime(&ms, t->ev[2 * i],
                                                  t->ev[2 * i + 1]);
        if (rc) {
            snprintf(t->err, sizeof t->err, "cuEventElapsedTime: %s",
                     gpu_errname(rc));
            return KEVO_ECUDA;
        }
        ns[i] = (double)ms * 1e6;
        if (nkern)
            nkern[i] = 0;
    }
    *n = k;
    t->reps = 0;
    return KEVO_OK;
}

static int cmp_rec(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Groups the stored records into repetitions; returns how many. */
static int group_records(double *ns, int *nkern, int max)
{
    qsort(store.v, store.n, sizeof *store.v, cmp_rec);
    int g = -1;
    uint64_t lo = 0, hi = 0;
    int cnt = 0;
    for (size_t i = 0; i <= store.n; i++) {
        int flush = i == store.n || store.v[i].cls == REC_FLUSH;
        if (flush) {
            if (g >= 0 && g < max) {
                ns[g] = cnt ? (double)(hi - lo) : 0;
                if (nkern)
                    nkern[g] = cnt;
            }
            g++;
            cnt = 0;
            continue;
        }
        if (g < 0 || store.v[i].cls != REC_TIMED)
            continue;
        if (!cnt || store.v[i].start < lo)
            lo = store.v[i].start;
        if (!cnt || store.v[i].end > hi)
            hi = store.v[i].end;
        cnt++;
    }
    return g < 0 ? 0 : g;
}

static void sleep_us(int us)
{
    struct timespec ts = {0, us * 1000L};
    nanosleep(&ts, NULL);
}

int tmr_collect(struct tmr *t, double *ns, int *nkern, int max, int *n)
{
    if (!t->cupti)
        return collect_events(t, ns, nkern, max, n);
    int want = t->reps < max ? t->reps : max, got = 0;
    int cnt[TMR_MAX_REPS];
    /* Records of finished kernels come back on the next flush; retry in
     * steps of 50 us in case CUPTI still holds them (forced flush after
     * 1 ms, give up after 60 ms). The steps were 1 ms: a wait that hit
     * one cost a whole millisecond of idle GPU per collect. */
    long long t0 = fs_now_ns();
    for (int attempt = 0;; attempt++) {
        long long waited = fs_now_ns() - t0;
        if (attempt && waited > 60000000LL)
            break;
        t->cp.flush_all(waited < 1000000LL ? 0
                                           : CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        pthread_mutex_lock(&store.lock);
        got = group_records(ns, cnt, want);
        int ok = got >= want;
        for (int i = 0; ok && i < want; i++)
            ok = cnt[i] > 0;
        pthread_mutex_unlock(&store.lock);
        if (ok)
            break;
        sleep_us(50);
    }
    pthread_mutex_lock(&store.lock);
    int zero = store.zero_ts;
    size_t dropped = store.dropped;
    store.n = 0;
    store.zero_ts = 0;
    store.dropped = 0;
    pthread_mutex_unlock(&store.lock);
    t->reps = 0;
    int bad = got < want || zero || dropped;
    for (int i = 0; !bad && i < want; i++)
        bad = cnt[i] == 0;
    if (bad) {
        snprintf(t->err, sizeof t->err,
                 "cupti returned %d of %d repetitions (%d records without "
                 "timestamps, %zu dropped)",
                 got < want ? got : want, want, zero, dropped);
        return KEVO_ECUDA;
    }
    if (nkern)
        memcpy(nkern, cnt, (size_t)want * sizeof *cnt);
    *n = want;
    return KEVO_OK;
}
