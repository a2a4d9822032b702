/*
 * plot.c - gnuplot as a child process (see plot.h). posix_spawnp with the
 * script as the only argument: no shell, so no quoting of paths.
 */
#include "plot.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *plot_program(void)
{
    const char *p = getenv("KEVO_GNUPLOT");
    return p && *p ? p : "gnuplot";
}

/* Spawns prog args in cwd dir (NULL = ours) with stdout/stderr to log
 * (NULL = /dev/null); returns the exit status, or -1 if it cannot run. */
static int spawn_wait(const char *dir, char *const *args, const char *log)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int st = -1;
    if (posix_spawn_file_actions_init(&fa))
        return -1;
    const char *out = log ? log : "/dev/null";
    int rc = posix_spawn_file_actions_addopen(&fa, 1, out,
                                              O_WRONLY | O_CREAT | O_TRUNC,
                                              0644);
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
    if (waitpid(pid, &st, 0) != pid)
        return -1;
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
    FILE *f = fopen(path, "r");
    out[0] = '\0';
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[strspn(line, " \t^")]) {
            snprintf(out, cap, "%s", line + strspn(line, " \t"));
            break;
        }
    }
    fclose(f);
}

int plot_run(const char *dir, const char *script, const char *log, char *err,
             size_t errcap)
{
    char *args[] = {(char *)plot_program(), (char *)script, NULL};
    int st = spawn_wait(dir, args, log);
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
