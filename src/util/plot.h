/*
 * plot.h - a small gnuplot driver: runs `gnuplot` as a child process on a
 * script the caller wrote (with its data files) and reports what went
 * wrong in one line. Knows nothing of runs; draws nothing itself.
 */
#ifndef KEVO_PLOT_H
#define KEVO_PLOT_H

#include <stddef.h>

#include "status.h"

/* The gnuplot program: $KEVO_GNUPLOT if set, else "gnuplot". */
const char *plot_program(void);
/* 1 if plot_program() can be run (found on PATH and answers --version). */
int plot_available(void);
/*
 * Runs gnuplot on script (a path) with dir as the working directory;
 * gnuplot's output goes to log (a path, relative to our working directory,
 * not dir). KEVO_ENODEV when gnuplot cannot
 * be started, KEVO_EIO when it exits non-zero (the first line of its log
 * goes to err).
 */
int plot_run(const char *dir, const char *script, const char *log, char *err,
             size_t errcap) KEVO_WUR;
/* Quotes s for a gnuplot single-quoted string into out[cap] ('' for '). */
void plot_quote(const char *s, char *out, size_t cap);

#endif
