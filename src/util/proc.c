/*
 * proc.c - a child process with a time limit (see proc.h): posix_spawnp,
 * then waitpid(WNOHANG) polled every few milliseconds until it exits or
 * the limit passes.
 */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"

extern char **environ;

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int spawn(const char *dir, char *const *argv, const char *log,
                 pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa))
        return -1;
    /* the log is the caller's: in a guarded directory never through a
     * link (fsutil.h) */
    int rc = log ? fs_guard_check(log) : 0;
    if (!rc)
        rc = posix_spawn_file_actions_addopen(
            &fa, 1, log ? log : "/dev/null",
            O_WRONLY | O_CREAT | O_TRUNC | (log ? O_NOFOLLOW : 0), 0644);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, 1, 2);
    if (!rc)
        rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
                                              0);
    if (!rc && dir)
        rc = posix_spawn_file_actions_addchdir_np(&fa, dir);
    if (!rc)
        rc = posix_spawnp(pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc ? -1 : 0;
}

int proc_run(const char *dir, char *const *argv, const char *log,
             long timeout_ms, int *timed_out)
{
    pid_t pid;
    int st = 0;
    if (timed_out)
        *timed_out = 0;
    if (spawn(dir, argv, log, &pid))
        return -1;
    long end = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, end ? WNOHANG : 0);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            return -1;
        if (end && now_ms() >= end) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
            if (timed_out)
                *timed_out = 1;
            return -1;
        }
        if (end) {
            struct timespec d = {0, 5 * 1000000};
            nanosleep(&d, NULL);
        }
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
