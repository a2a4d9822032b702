/*
 * sanitizer.c - compute-sanitizer as a subprocess (see sanitizer.h): where
 * it is, one run of one tool with a time limit and a capped read of its
 * report, and the report's verdict. Report lines look like (CUDA 13):
 *
 *   ========= COMPUTE-SANITIZER
 *   ========= Invalid __global__ read of size 4 bytes
 *   =========     at sm_rows+0x2d0 in cand.cu:31
 *   =========     by thread (255,0,0) in block (999,0,0)
 *   =========     Address 0x7f02c3a3d200 is out of bounds
 *   ...
 *   ========= ERROR SUMMARY: 1 error
 */
#include "sanitizer.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"

#define OUT_CAP (256 * 1024)
#define BAR "========="

const char *const san_tools[SAN_N_TOOLS] = {"memcheck", "racecheck",
                                            "synccheck", "initcheck"};

const char *san_status_name(enum san_status s)
{
    switch (s) {
    case SAN_CLEAN: return "clean";
    case SAN_FINDINGS: return "findings";
    case SAN_NODEV: return "no GPU";
    case SAN_TIMEOUT: return "timeout";
    default: return "failed";
    }
}

static int executable(const char *path)
{
    struct stat st;
    return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/* The first compute-sanitizer on $PATH into out; 0 if none. */
static int on_path(char *out, size_t cap)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t n = strcspn(path, ":");
        if (n && snprintf(out, cap, "%.*s/compute-sanitizer", (int)n, path) <
                     (int)cap &&
            executable(out))
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

int san_find(const char *given, char *out, size_t cap, char *err,
             size_t errcap)
{
    if (given) {
        snprintf(out, cap, "%s", given);
        if (executable(out))
            return KEVO_OK;
        snprintf(err, errcap, "compute-sanitizer not found at '%s'", given);
        return KEVO_ENOENT;
    }
    const char *cuda = getenv("CUDA_HOME");
    if (!cuda || !*cuda)
        cuda = getenv("CUDA_PATH");
    if (!cuda || !*cuda)
        cuda = "/usr/local/cuda";
    char first[4096];
    snprintf(first, sizeof first, "%s/bin/compute-sanitizer", cuda);
    if (executable(first)) {
        snprintf(out, cap, "%s", first);
        return KEVO_OK;
    }
    if (on_path(out, cap))
        return KEVO_OK;
    snprintf(err, errcap, "compute-sanitizer not found at '%s' nor on PATH "
             "(it ships with the CUDA toolkit; give --sanitizer-path)",
             first);
    return KEVO_ENOENT;
}

/* Copies line [p, p+n) without the bar and leading blanks. */
static void strip(const char *p, size_t n, char *out, size_t cap)
{
    if (n >= sizeof BAR - 1 && !memcmp(p, BAR, sizeof BAR - 1)) {
        p += sizeof BAR - 1;
        n -= sizeof BAR - 1;
    }
    while (n && (*p == ' ' || *p == '\t')) {
        p++;
        n--;
    }
    while (n && (p[n - 1] == '\r' || p[n - 1] == ' '))
        n--;
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), p);
}

/* 1 if the line is a report's own header or summary, not a finding. */
static int bookkeeping(const char *s)
{
    static const char *const skip[] = {"COMPUTE-SANITIZER", "ERROR SUMMARY",
                                       "RACECHECK SUMMARY", "LEAK SUMMARY",
                                       "Target application returned"};
    for (size_t i = 0; i < sizeof skip / sizeof *skip; i++)
        if (!strncmp(s, skip[i], strlen(skip[i])))
            return 1;
    return !*s;
}

/* Appends the first finding's headline and its "at"/"by" lines to out. */
static void first_finding(const char *text, char *out, size_t cap)
{
    const char *p = text;
    int in = 0;
    out[0] = '\0';
    while (*p) {
        size_t n = strcspn(p, "\n");
        char line[512];
        int bar = n >= sizeof BAR - 1 && !memcmp(p, BAR, sizeof BAR - 1);
        int indented = bar && n > sizeof BAR && p[sizeof BAR] == ' ';
        strip(p, n, line, sizeof line);
        if (bar && !indented && !bookkeeping(line)) {
            if (in)
                return; /* the next finding starts */
            in = 1;
            snprintf(out, cap, "%s", line);
        } else if (in && indented && (!strncmp(line, "at ", 3) ||
                                      !strncmp(line, "by thread", 9))) {
            size_t k = strlen(out);
            snprintf(out + k, cap - k, " %s", line);
        } else if (in && !bar) {
            return;
        }
        p += n + (p[n] == '\n');
    }
}

/* The last non-empty line of text, without the bar. */
static void last_line(const char *text, char *out, size_t cap)
{
    const char *end = text + strlen(text);
    while (end > text && (end[-1] == '\n' || end[-1] == '\r' ||
                          end[-1] == ' '))
        end--;
    const char *s = end;
    while (s > text && s[-1] != '\n')
        s--;
    strip(s, (size_t)(end - s), out, cap);
}

void san_parse(const char *text, int exit_code, struct san_result *out)
{
    memset(out, 0, sizeof *out);
    out->exit_code = exit_code;
    out->errors = -1;
    const char *s = strstr(text, BAR " ERROR SUMMARY: ");
    if (s)
        out->errors = atoi(s + sizeof BAR " ERROR SUMMARY: " - 1);
    if (out->errors > 0 || exit_code == SAN_ERROR_EXIT) {
        out->status = SAN_FINDINGS;
        first_finding(text, out->first, sizeof out->first);
        if (!out->first[0])
            last_line(text, out->first, sizeof out->first);
        return;
    }
    if (exit_code == 0) { /* with --error-exitcode: no error reported
                             (racecheck may print only its own summary) */
        out->status = SAN_CLEAN;
        out->errors = 0;
        return;
    }
    out->status = exit_code == SAN_PROBE_NODEV ? SAN_NODEV : SAN_FAILED;
    last_line(text, out->detail, sizeof out->detail);
    if (!out->detail[0])
        snprintf(out->detail, sizeof out->detail, "exit status %d and no "
                 "report", exit_code);
}

/* Reads fd into buf (capped) until EOF or the deadline; 1 on timeout. */
static int drain(int fd, char *buf, size_t cap, size_t *len, long long dl)
{
    for (;;) {
        long long left = (dl - fs_now_ns()) / 1000000;
        if (left <= 0)
            return 1;
        struct pollfd pf = {fd, POLLIN, 0};
        int r = poll(&pf, 1, left > 1000 ? 1000 : (int)left);
        if (r < 0 && errno != EINTR)
            return 0;
        if (r <= 0)
            continue;
        char tmp[4096];
        ssize_t n = read(fd, tmp, sizeof tmp);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        size_t k = (size_t)n < cap - 1 - *len ? (size_t)n : cap - 1 - *len;
        memcpy(buf + *len, tmp, k);
        *len += k;
    }
}

int san_run(const char *sanitizer, const char *tool, char *const argv[],
            int timeout_s, struct san_result *out)
{
    char *args[64];
    int n = 0;
    const char *head[] = {sanitizer, "--tool", tool, "--error-exitcode",
                          "86", "--print-limit", "20"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        args[n++] = (char *)head[i];
    if (!strcmp(tool, "memcheck")) {
        /* cuMemAlloc packs small allocations: a read just past one buffer
         * could land in the next and pass; memcheck's padding puts an
         * unallocated zone after each one */
        args[n++] = "--padding";
        args[n++] = "65536";
    }
    for (int i = 0; argv[i] && n < 63; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    int fd[2];
    char *buf = malloc(OUT_CAP);
    if (!buf || pipe2(fd, O_CLOEXEC)) {
        free(buf);
        return KEVO_EIO;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        free(buf);
        return KEVO_EIO;
    }
    if (pid == 0) {
        setpgid(0, 0); /* the sanitizer and its target die together */
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        execv(sanitizer, args);
        fprintf(stderr, "cannot run '%s': %s\n", sanitizer, strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0;
    int late = drain(fd[0], buf, OUT_CAP, &len, fs_now_ns() +
                     (long long)timeout_s * 1000000000LL);
    buf[len] = '\0';
    if (late) {
        kill(-pid, SIGKILL); /* its group: the probe too */
        kill(pid, SIGKILL);
    }
    close(fd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    san_parse(buf, WIFEXITED(st) ? WEXITSTATUS(st) : -1, out);
    if (late) {
        out->status = SAN_TIMEOUT;
        snprintf(out->detail, sizeof out->detail, "killed after %d s",
                 timeout_s);
    }
    free(buf);
    return KEVO_OK;
}
