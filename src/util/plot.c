/*
 * plot.c - gnuplot as a child process (see plot.h). posix_spawnp with the
 * script as the only argument: no shell, so no quoting of paths. The child
 * is killed at its deadline: a data file that never ends (a FIFO, a link
 * to /dev/zero) must not hang the caller.
 */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"

extern char **environ;

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

/* Waits for pid until timeout_s; then kills it (-2). Returns its wait
 * status, or -1 if waiting fails. */
static int wait_deadline(pid_t pid, int timeout_s, int *st)
{
    long long end = fs_now_ns() + (long long)timeout_s * 1000000000LL;
    for (;;) {
        pid_t w = waitpid(pid, st, WNOHANG);
        if (w == pid)
            return 0;
        if (w < 0 && errno != EINTR)
            return -1;
        if (fs_now_ns() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, st, 0);
            return -2;
        }
        struct timespec ts = {0, 10 * 1000 * 1000}; /* 10 ms */
        nanosleep(&ts, NULL);
    }
}

/* Spawns prog args in cwd dir (NULL = ours) with stdout/stderr to log
 * (NULL = /dev/null); returns the exit status, -1 if it cannot run, -2
 * if it ran past plot_timeout_s() and was killed. */
static int spawn_wait(const char *dir, char *const *args, const char *log)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int st = -1;
    if (posix_spawn_file_actions_init(&fa))
        return -1;
    const char *out = log ? log : "/dev/null";
    /* the log is ours: in a guarded directory never through a link */
    int rc = log ? fs_guard_check(log) : 0;
    if (!rc)
        rc = posix_spawn_file_actions_addopen(
            &fa, 1, out,
            O_WRONLY | O_CREAT | O_TRUNC | (log ? O_NOFOLLOW : 0), 0644);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, 1, 2);
    if (!rc)
        rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
                                              0);
    if (!rc && dir)
        rc = posix_spawn_file_actions_addchdir_np(&fa, dir);
    if (!rc)
        rc = posix_spawnp(&pid, args[0], &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc)
        return -1;
    if ((rc = wait_deadline(pid, plot_timeout_s(), &st)))
        return rc;
    if (!WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
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
