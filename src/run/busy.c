/*
 * busy.c - GPU idle share and compile-boundness from journal phase times
 * (see busy.h).
 */
#include "busy.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cJSON.h>

void busy_init(struct busy *b)
{
    memset(b, 0, sizeof *b);
}

static double pos_num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) && v->valuedouble > 0 ? v->valuedouble : 0;
}

/* What a GPU evaluator records per result beyond the phase times
 * (evidence phase_ms), ms; 0 where absent or not positive. */
struct busy_rec {
    double wait;       /* worker_idle: the worker's wait for this job */
    double job;        /* job: the worker's time on it */
    double trip;       /* round_trip: sent to answer read */
    double collect;    /* collect: the timer's record collection */
    double collects;   /* (evidence collects) its calls, a count */
    double compilers;  /* (evidence compilers) its GPU's compile
                          processes */
};

static void busy_read(const struct eval_result *r, struct busy_rec *out)
{
    memset(out, 0, sizeof *out);
    if (!r->evidence_json || !strstr(r->evidence_json, "phase_ms"))
        return;
    cJSON *e = cJSON_Parse(r->evidence_json);
    const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "phase_ms");
    out->wait = pos_num(ph, "worker_idle");
    out->job = pos_num(ph, "job");
    out->trip = pos_num(ph, "round_trip");
    out->collect = pos_num(ph, "collect");
    out->collects = pos_num(e, "collects");
    out->compilers = pos_num(e, "compilers");
    if (out->compilers >= 1e6) /* an edited journal's */
        out->compilers = 0;
    cJSON_Delete(e);
}

void busy_fill_facts(const struct eval_result *r, double *wait_ms,
                     double *compilers)
{
    struct busy_rec x;
    busy_read(r, &x);
    *wait_ms = x.wait;
    *compilers = x.compilers;
}

static void add_wait(struct busy *b, double ms)
{
    if (ms > 0) {
        b->wait_ms += ms;
        b->waits++;
    }
}

void busy_span_add(struct busy_span *sp, const struct eval_result *r)
{
    /* timed results only: a failed one has a check and no timing, and
     * the share of failures changes over a run */
    if (!(r->time_ms > 0))
        return;
    double gpu = (r->check_ms > 0 ? r->check_ms : 0) + r->time_ms;
    if (gpu > 1e9) /* an edited journal's */
        return;
    sp->n++;
    sp->gpu_ms += gpu;
    sp->reps += r->reps > 0 && r->reps < 1000000 ? r->reps : 0;
    struct busy_rec x;
    busy_read(r, &x);
    if (x.collect > 0 && x.collect < 1e9 && x.collects >= 1 &&
        x.collects < 1e6) {
        sp->collect_ms += x.collect;
        sp->collects += x.collects;
    }
}

/* "3.4 ms a timed candidate (11.2 reps, 0.42 ms a collect)" of one
 * stretch. */
static int span_fmt(const struct busy_span *sp, int first, char *out,
                    size_t cap)
{
    double n = (double)sp->n;
    int len = snprintf(out, cap, "%.1f ms%s (%.1f reps", sp->gpu_ms / n,
                       first ? " a timed candidate" : "",
                       (double)sp->reps / n);
    if (len >= 0 && (size_t)len < cap && sp->collects > 0)
        len += snprintf(out + len, cap - (size_t)len, ", %.2f ms a collect",
                        sp->collect_ms / sp->collects);
    if (len >= 0 && (size_t)len < cap)
        len += snprintf(out + len, cap - (size_t)len, ")");
    return len;
}

void busy_drift_fmt(const struct busy_span *first,
                    const struct busy_span *last, char *out, size_t cap)
{
    if (!cap)
        return;
    out[0] = '\0';
    if (first->n < BUSY_SPAN_MIN || last->n < BUSY_SPAN_MIN)
        return;
    char a[128], b[128];
    span_fmt(first, 1, a, sizeof a);
    span_fmt(last, 0, b, sizeof b);
    snprintf(out, cap, "check + timing %s in the first fifth of the "
             "results, %s in the last", a, b);
}

void busy_add_rec(struct busy *b, const struct eval_result *r)
{
    struct busy_rec x;
    busy_read(r, &x);
    add_wait(b, x.wait);
    /* a job cannot outlast its round trip; an edited journal's can */
    if (x.job > 0 && x.trip >= x.job && x.trip < 1e12) {
        b->job_ms += x.job;
        b->trip_ms += x.trip;
        b->trip_gpu_ms += (r->check_ms > 0 ? r->check_ms : 0) +
                          (r->time_ms > 0 ? r->time_ms : 0);
        b->trips++;
    }
}

void busy_add(struct busy *b, const struct eval_result *r)
{
    if (r->compile_ms > 0)
        b->compile_ms += r->compile_ms;
    if (r->check_ms > 0)
        b->gpu_ms += r->check_ms;
    if (r->time_ms > 0)
        b->gpu_ms += r->time_ms;
    if (r->gpu >= 0 && r->gpu < 64)
        b->gpus |= 1ULL << r->gpu;
    b->evals++;
}

int busy_gpus(const struct busy *b)
{
    int n = __builtin_popcountll(b->gpus);
    return n > 0 ? n : 1;
}

double busy_idle_pct(const struct busy *b, double elapsed_s)
{
    if (b->evals == 0 || elapsed_s <= 0 ||
        (b->gpu_ms <= 0 && b->compile_ms <= 0))
        return -1; /* nothing measured, or a journal without phase times */
    double cap_ms = elapsed_s * 1e3 * busy_gpus(b);
    double idle = 100.0 * (1.0 - b->gpu_ms / cap_ms);
    return idle < 0 ? 0 : idle > 100 ? 100 : idle;
}

double busy_wait_pct(const struct busy *b, double elapsed_s)
{
    if (b->waits == 0 || elapsed_s <= 0)
        return -1;
    double w = 100.0 * b->wait_ms / (elapsed_s * 1e3 * busy_gpus(b));
    return w < 0 ? 0 : w > 100 ? 100 : w;
}

int busy_compile_bound(const struct busy *b, double elapsed_s)
{
    double idle = busy_idle_pct(b, elapsed_s);
    return idle >= BUSY_BOUND_IDLE_PCT && b->compile_ms > b->gpu_ms;
}

double busy_pool_pct(const struct busy *b, double elapsed_s)
{
    if (b->compilers <= 0 || !(elapsed_s > 0))
        return -1;
    double pct = 100.0 * b->compile_ms / (elapsed_s * 1e3) / b->compilers;
    /* more than the pool can do: the count is not this run's (an old
     * session resumed on other CPUs, an edited run), so none rather than
     * a wrong one */
    return pct <= 100.0 + 1e-9 ? pct : -1;
}

void busy_fmt(const struct busy *b, double elapsed_s, char *out, size_t cap)
{
    double idle = busy_idle_pct(b, elapsed_s);
    if (!cap)
        return;
    out[0] = '\0';
    if (idle < 0)
        return;
    int n = busy_gpus(b);
    int len = snprintf(out, cap, "idle %.0f %% of %.*f s on %d GPU%s", idle,
                       elapsed_s < 10 ? 1 : 0, elapsed_s, n, n > 1 ? "s" : "");
    double wait = busy_wait_pct(b, elapsed_s);
    if (wait >= 0 && len >= 0 && (size_t)len < cap)
        len += snprintf(out + len, cap - (size_t)len,
                        " (the worker waited for a job %.0f %%)", wait);
    if (len < 0 || (size_t)len >= cap || !busy_compile_bound(b, elapsed_s))
        return;
    double busy = b->compile_ms / (elapsed_s * 1e3);
    len += snprintf(out + len, cap - (size_t)len,
                    "; compile-bound: %.0f ms of compile a candidate against "
                    "%.0f ms on the GPU, %.1f compiles in flight on average",
                    b->compile_ms / (double)b->evals,
                    b->gpu_ms / (double)b->evals, busy);
    /* how much of the pool the run kept busy: what a generation's last
     * compiles leave idle, in the whole run */
    double pct = busy_pool_pct(b, elapsed_s);
    int whole = fabs(b->compilers - round(b->compilers)) < 1e-6;
    if (pct >= 0 && len >= 0 && (size_t)len < cap)
        snprintf(out + len, cap - (size_t)len,
                 " of %.*f compile processes (%s%.0f %% busy)", whole ? 0 : 1,
                 b->compilers, whole ? "" : "the sessions' mean, ", pct);
}

void busy_jobs_fmt(const struct busy *b, char *out, size_t cap)
{
    if (!cap)
        return;
    out[0] = '\0';
    if (b->trips <= 0)
        return;
    double n = (double)b->trips, job = b->job_ms / n, trip = b->trip_ms / n,
           gpu = b->trip_gpu_ms / n;
    snprintf(out, cap, "%.2f ms from a job's send to its answer: %.2f in the "
             "worker (checks and timing %.2f), %.2f in messages", trip, job,
             gpu < job ? gpu : job, trip - job);
}
