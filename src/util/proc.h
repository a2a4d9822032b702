/*
 * proc.h - runs a program as a child process, with no shell (so no
 * quoting of paths), its output to a log file, and a time limit. Knows
 * nothing of what it runs.
 */
#ifndef KEVO_PROC_H
#define KEVO_PROC_H

#include <stddef.h>

/*
 * Runs argv[0] (found on PATH) with argv, working directory dir (NULL =
 * ours), standard input /dev/null, standard output and error to log (a
 * path, opened without following a link, and refused below a guarded
 * directory when a link is on its way: fsutil.h; NULL = /dev/null). Kills it (SIGKILL) after timeout_ms (<= 0: no
 * limit). Returns its exit status (0..255), or -1 when it cannot be
 * started, was killed by a signal or ran past the limit (*timed_out is
 * then 1; timed_out may be NULL).
 */
int proc_run(const char *dir, char *const *argv, const char *log,
             long timeout_ms, int *timed_out);

#endif
