/*
 * plot.h - a small gnuplot driver: runs `gnuplot` as a child process on a
 * script the caller wrote (with its data files) and reports what went
 * wrong in one line. Knows nothing of runs; draws nothing itself.
 */
#ifndef KEVO_PLOT_H
#define KEVO_PLOT_H

#include <stddef.h>

#include "status.h"

/* How long gnuplot may run before it is killed, in seconds, unless
 * $KEVO_PLOT_TIMEOUT_S (1 to 86400) says otherwise. */
#define PLOT_TIMEOUT_S 120

/* The gnuplot program: $KEVO_GNUPLOT if set, else "gnuplot". */
const char *plot_program(void);
/* 1 if plot_program() can be run (found on PATH and answers --version). */
int plot_available(void);
/*
 * Runs gnuplot on script (a path) with dir as the working directory;
 * gnuplot's output goes to log (a path, relative to our working directory,
 * not dir; never through a link in a guarded directory: fsutil.h).
 * KEVO_ENODEV when gnuplot cannot be started, KEVO_EIO when it exits
 * non-zero (the first line of its log goes to err), KEVO_ETIMEOUT when it
 * runs past plot_timeout_s() (killed).
 */
int plot_run(const char *dir, const char *script, const char *log, char *err,
             size_t errcap) KEVO_WUR;
/* The deadline of plot_run, in seconds (see PLOT_TIMEOUT_S). */
int plot_timeout_s(void);
/* Quotes s for a gnuplot single-quoted string into out[cap] ('' for '). */
void plot_quote(const char *s, char *out, size_t cap);

#endif
