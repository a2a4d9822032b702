/*
 * busy.h - how busy a run kept its GPUs, from the phase times the journal
 * records per evaluation (compile, check, timing): the share of the run's
 * wall time x GPUs that no check or timing used ("GPU idle"), and whether
 * the compiles are why (compile-bound). kevo status and the live progress
 * line say it (issue 32: fp32 GEMM runs left the worker idle 67-74 % of
 * the time while NVRTC ran). Arithmetic on eval results (and the one
 * reader of their recorded worker wait); reads no file and knows no
 * engine.
 *
 * What it cannot see: the worker's time between phases (messages, input
 * generation, restarts after a crash) counts as idle, so idle is an upper
 * bound; a binary reused from the cache has compile time 0. Where the
 * results record how long the worker waited for each job (GPU
 * evaluators: evidence phase_ms.worker_idle), the sum of those waits is
 * the lower bound, and the line gives both (softmax 4096^2 on the H200:
 * 34 % without a phase, 19 % waiting; bench/results/2026-11-28-h200-s19).
 */
#ifndef KEVO_BUSY_H
#define KEVO_BUSY_H

#include <stddef.h>
#include <stdint.h>

#include "eval.h"

/* GPU idle at or above this share, with more compile than GPU time, is
 * called compile-bound (the target for the worker: < 25 %). */
#define BUSY_BOUND_IDLE_PCT 25.0

struct busy {
    double compile_ms; /* summed compile phases */
    double gpu_ms;     /* summed check + timing phases */
    long evals;        /* results added */
    uint64_t gpus;     /* bit g: a result measured on fan-out GPU g */
    double wait_ms;    /* summed recorded worker waits (worker_idle) */
    long waits;        /* results that recorded one */
    double job_ms;     /* summed worker time on a job (phase_ms.job) */
    double trip_ms;    /* summed job sent to answer read (round_trip) */
    double trip_gpu_ms; /* check + timing of the results with a trip */
    long trips;        /* results that recorded both */
    double compilers;  /* the run's compile processes, the mean over its
                          time where its sessions had different pools (0:
                          not known, e.g. MPI, where each rank has its
                          own) */
};

/* The GPU phases of the results in one stretch of a run. kevo status
 * compares the first fifth of a run's results with the last fifth: a
 * measurement that grows slower over a long run shows there (softmax fp32
 * 4096^2 on an H200: check + timing 3.4 ms a candidate in 35 s runs, 20.5
 * ms on average over 10 minutes, bench/results/2026-11-29-h200-s25). */
struct busy_span {
    long n;            /* timed results (a timing phase; a failed one has
                          a check and no timing) */
    double gpu_ms;     /* their summed check + timing */
    long reps;         /* their summed timed repetitions */
    double collect_ms; /* summed evidence phase_ms.collect (the timer's
                          collection of its records: CUPTI's, or the
                          event timer's syncs) */
    double collects;   /* summed evidence collects (its calls) */
};

/* Fewer timed results than this in either stretch: no comparison. */
#define BUSY_SPAN_MIN 20

/* Adds r's check, timing, repetitions and timer collects to sp, if r was
 * timed. */
void busy_span_add(struct busy_span *sp, const struct eval_result *r);
/* One line for kevo status, e.g. "check + timing 3.4 ms a timed
 * candidate (11.2 reps, 0.42 ms a collect) in the first fifth of the
 * results, 35.1 ms (28.0 reps, 4.20 ms a collect) in the last"; "" when
 * either stretch has fewer than BUSY_SPAN_MIN timed results. */
void busy_drift_fmt(const struct busy_span *first,
                    const struct busy_span *last, char *out, size_t cap);

/* What the fill (engine_fill.c) sizes itself on, from one reading of r's
 * evidence: the worker's recorded wait for this job (phase_ms.worker_idle,
 * ms) and the compile processes its GPU had ("compilers": its share of a
 * pool that several GPUs use); 0 each where none is recorded or it is not
 * positive. */
void busy_fill_facts(const struct eval_result *r, double *wait_ms,
                     double *compilers);

void busy_init(struct busy *b);
/* Adds one evaluation's phase times (r is borrowed). */
void busy_add(struct busy *b, const struct eval_result *r);
/* Adds what a GPU evaluator records in r's evidence (phase_ms, one
 * parse): the wait for its job, and the job and its round trip where both
 * are recorded (kevo status does; the engine's progress line has no use
 * for them). */
void busy_add_rec(struct busy *b, const struct eval_result *r);
/* GPUs the results came from (at least 1). */
int busy_gpus(const struct busy *b);
/* Percent of elapsed_s x GPUs without a check or timing phase, in
 * [0, 100]; -1 when nothing is known (no result, no time, or no phase
 * time in any result: an evaluator that does not record them). */
double busy_idle_pct(const struct busy *b, double elapsed_s);
/* Percent of elapsed_s x GPUs the workers recorded waiting for a job, in
 * [0, 100]; -1 when no result recorded a wait. */
double busy_wait_pct(const struct busy *b, double elapsed_s);
/* 1 if the run is compile-bound: GPU idle >= BUSY_BOUND_IDLE_PCT and the
 * compiles took longer than the GPU phases; else 0. */
int busy_compile_bound(const struct busy *b, double elapsed_s);
/* One line for kevo status, e.g. "idle 73 % of 35 s on 1 GPU (the
 * worker waited for a job 60 %); compile-bound: 1766 ms of compile a
 * candidate against 33 ms on the GPU, 4.9 compiles in flight on
 * average of 16 compile processes (31 % busy)": the last part where
 * b->compilers is known ("of 1.5 compile processes (the sessions' mean,
 * 62 % busy)" where it is not a whole number). "" when nothing is
 * known. */
void busy_fmt(const struct busy *b, double elapsed_s, char *out, size_t cap);
/* The share (%) of b->compilers the summed compiles kept busy over
 * elapsed_s; -1 when the count is unknown or the share is above 100 % (the
 * count cannot be the run's: an edited run, or sessions before kevo
 * recorded their pools, resumed on other CPUs). */
double busy_pool_pct(const struct busy *b, double elapsed_s);
/* Where a job's round trip went, for kevo status, e.g. "6.4 ms from a
 * job's send to its answer: 6.1 in the worker (checks and timing 5.9),
 * 0.3 in messages"; "" when no result recorded a round trip. */
void busy_jobs_fmt(const struct busy *b, char *out, size_t cap);

#endif
