/*
 * progress.h - what a running search shows: on a terminal, one live
 * status line (generation, evaluations, best and what it is, evaluations
 * per minute, time left); otherwise plain log lines; --json prints one JSON
 * object per event on stdout; --quiet prints nothing but errors.
 */
#ifndef KEVO_PROGRESS_H
#define KEVO_PROGRESS_H

#include <cJSON.h>
#include <stdio.h>

enum progress_mode { PROG_AUTO, PROG_TTY, PROG_PLAIN, PROG_JSON, PROG_QUIET };

struct progress_state {
    int gen;              /* current generation */
    long evals;           /* evaluations done (incl. resumed) */
    long evals_budget;    /* 0 = none */
    double best;          /* best fitness so far (0 = none) */
    const char *unit;     /* "FLOP/s" / "B/s" */
    const char *best_what;/* "sgemm_tiled BM=128 ..." */
    double best_ratio;    /* vs baseline, 0 = unknown */
    double elapsed_s;     /* run time incl. earlier sessions */
    double rate_per_min;  /* evaluations per minute, this session */
    double left_s;        /* time budget left, < 0 = none */
    double gpu_idle_pct;  /* GPU time no check or timing used, this
                             session, percent (< 0 = unknown; busy.h) */
    int compile_bound;    /* 1: idle because compiles are slower */
    const char *last;     /* last outcome name */
};

struct progress {
    enum progress_mode mode; /* use the functions */
    FILE *out;
    int line_open;           /* a \r status line is on screen */
    long long last_draw_ns;
};

void progress_init(struct progress *p, enum progress_mode mode, FILE *out);
/* Redraws the status line (tty, at most 10 per second) or, in plain
 * mode, does nothing: plain mode logs per generation with progress_log. */
void progress_update(struct progress *p, const struct progress_state *s);
/* A whole line of log (clears the status line first). event is a short
 * tag used as "event" in JSON mode; line is the human text. */
void progress_log(struct progress *p, const char *event, const char *line);
/* progress_log with fields (borrowed, may be NULL): in JSON mode the
 * event's object is {"event", the members of fields, "message"}. */
void progress_event(struct progress *p, const char *event, const char *line,
                    const cJSON *fields);
/* Ends the status line. */
void progress_finish(struct progress *p);
/* Formats a fitness value with SI prefix into out: "41.2 TFLOP/s". */
void progress_fmt_fitness(double v, const char *unit, char *out, size_t cap);

#endif
