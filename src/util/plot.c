/*
 * plot.c - gnuplot as a child process (see plot.h), through proc.h: the
 * script as the only argument, no shell, so no quoting of paths. The child
 * is killed at its deadline: a data file that never ends (a FIFO, a link
 * to /dev/zero) must not hang the caller.
 */
#include "plot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "proc.h"

const char *plot_program(void)
{
    const char *p = getenv("KEVO_GNUPLOT");
    return p && *p ? p : "gnuplot";
}

int plot_timeout_s(void)
{
    const char *s = getenv("KEVO_PLOT_TIMEOUT_S");
    char *end;
    long v = s && *s ? strtol(s, &end, 10) : 0;
    return v > 0 && v <= 86400 && !*end ? (int)v : PLOT_TIMEOUT_S;
}

/* Runs prog args in cwd dir (NULL = ours) with stdout/stderr to log
 * (NULL = /dev/null); returns the exit status, -1 if it cannot run, -2
 * if it ran past plot_timeout_s() and was killed. */
static int spawn_wait(const char *dir, char *const *args, const char *log)
{
    int timed_out = 0;
    int st = proc_run(dir, args, log, plot_timeout_s() * 1000L, &timed_out);
    return timed_out ? -2 : st;
}

int plot_available(void)
{
    char *args[] = {(char *)plot_program(), "--version", NULL};
    return spawn_wait(NULL, args, NULL) == 0;
}

static void first_line(const char *path, char *out, size_t cap)
{
    char *text, *save = NULL;
    out[0] = '\0';
    if (fs_read_file(path, &text, NULL)) /* bounded, never a FIFO */
        return;
    for (char *l = strtok_r(text, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save))
        if (l[strspn(l, " \t^")]) {
            snprintf(out, cap, "%s", l + strspn(l, " \t"));
            break;
        }
    free(text);
}

int plot_run(const char *dir, const char *script, const char *log, char *err,
             size_t errcap)
{
    char *args[] = {(char *)plot_program(), (char *)script, NULL};
    int st = spawn_wait(dir, args, log);
    if (st == -2) {
        snprintf(err, errcap, "gnuplot ran past %d s and was stopped "
                 "(KEVO_PLOT_TIMEOUT_S; a data file that never ends?)",
                 plot_timeout_s());
        return KEVO_ETIMEOUT;
    }
    if (st < 0 || st == 127) {
        snprintf(err, errcap, "cannot run '%s'", plot_program());
        return KEVO_ENODEV;
    }
    if (st) {
        char line[256];
        first_line(log, line, sizeof line);
        snprintf(err, errcap, "gnuplot failed (exit %d): %s", st, line);
        return KEVO_EIO;
    }
    return KEVO_OK;
}

void plot_quote(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 3 < cap; s++) {
        if (*s == '\'')
            out[n++] = '\'';
        out[n++] = *s;
    }
    out[n] = '\0';
}
