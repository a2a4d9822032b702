/*
 * fsutil.c - file-system helpers (see fsutil.h).
 */
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int fs_status_of(int err)
{
    switch (err) {
    case ENOENT: return KEVO_ENOENT;
    case EISDIR: return KEVO_EISDIR;
    case ENOTDIR: return KEVO_ENOTDIR;
    case EACCES:
    case EPERM:
    case EROFS: return KEVO_EACCES;
    case EEXIST: return KEVO_EEXIST;
    case ENOMEM: return KEVO_ENOMEM;
    case ENOSPC:
    case EDQUOT: return KEVO_ENOSPC;
    case ELOOP: return KEVO_ELINK; /* O_NOFOLLOW met a link */
    default: return KEVO_EIO;
    }
}

/* realloc that frees the old block when it fails. */
static char *realloc_or_free(char *p, size_t n)
{
    char *q = realloc(p, n);
    if (!q)
        free(p);
    return q;
}

/* Opens path for a bounded read: never blocks (a FIFO opens at once with
 * O_NONBLOCK), refuses what is not a regular file, and what is larger than
 * max bytes. */
static int open_regular(const char *path, size_t max, int *fd_out,
                        size_t *size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fs_status_of(errno);
    struct stat st;
    int rc = fstat(fd, &st) ? KEVO_EIO
             : S_ISDIR(st.st_mode) ? KEVO_EISDIR
             : !S_ISREG(st.st_mode) ? KEVO_ENOTREG
             : (unsigned long long)st.st_size > max ? KEVO_ETOOBIG
                                                     : KEVO_OK;
    /* regular files ignore O_NONBLOCK; clear it all the same */
    if (!rc && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
        rc = KEVO_EIO;
    if (rc) {
        close(fd);
        return rc;
    }
    *fd_out = fd;
    *size = (size_t)st.st_size;
    return KEVO_OK;
}

int fs_read_file_max(const char *path, size_t max, char **out, size_t *len)
{
    int fd = -1;
    size_t size = 0, n = 0;
    int rc = open_regular(path, max, &fd, &size);
    if (rc)
        return rc;
    /* one byte past the size shows a file that grew while we read it */
    size_t cap = size + 2;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return KEVO_ENOMEM;
    }
    for (;;) {
        if (n == cap - 1) { /* it grew: read on, up to max */
            size_t ncap = cap * 2;
            if (n > max || !(buf = realloc_or_free(buf, ncap))) {
                close(fd);
                return n > max ? KEVO_ETOOBIG : KEVO_ENOMEM;
            }
            cap = ncap;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            rc = r < 0 ? KEVO_EIO : KEVO_OK;
            break;
        }
        n += (size_t)r;
    }
    close(fd);
    if (!rc && n > max)
        rc = KEVO_ETOOBIG;
    if (rc) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return KEVO_OK;
}

int fs_read_file(const char *path, char **out, size_t *len)
{
    return fs_read_file_max(path, FS_READ_MAX, out, len);
}

/* ---------------------------------------------------- guarded dirs */

/* The directories registered with fs_guard_dir, without trailing '/';
 * kept for the process's life (never freed, so still reachable at exit). */
static pthread_mutex_t guard_mu = PTHREAD_MUTEX_INITIALIZER;
static char **guards;
static int n_guards, cap_guards;

int fs_guard_dir(const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    char *g = strndup(dir, n);
    if (!g)
        return KEVO_ENOMEM;
    int rc = KEVO_OK;
    pthread_mutex_lock(&guard_mu);
    for (int i = 0; i < n_guards && g; i++)
        if (!strcmp(guards[i], g)) {
            free(g);
            g = NULL;
        }
    if (g && n_guards == cap_guards) {
        int nc = cap_guards ? cap_guards * 2 : 8;
        char **ng = realloc(guards, (size_t)nc * sizeof *ng);
        if (ng) {
            guards = ng;
            cap_guards = nc;
        }
    }
    if (g && n_guards < cap_guards)
        guards[n_guards++] = g;
    else if (g) {
        free(g);
        rc = KEVO_ENOMEM;
    }
    pthread_mutex_unlock(&guard_mu);
    return rc;
}

/* Length of the longest guarded directory path lies in (or is), else 0. */
static size_t guard_root_len(const char *path)
{
    size_t best = 0;
    pthread_mutex_lock(&guard_mu);
    for (int i = 0; i < n_guards; i++) {
        size_t n = strlen(guards[i]);
        if (n > best && !strncmp(path, guards[i], n) &&
            (path[n] == '/' || !path[n] || !strcmp(guards[i], "/")))
            best = n;
    }
    pthread_mutex_unlock(&guard_mu);
    return best;
}

int fs_guard_check(const char *path)
{
    size_t at = guard_root_len(path);
    char buf[4096];
    if (!at)
        return KEVO_OK;
    if (strlen(path) >= sizeof buf)
        return KEVO_EINVAL;
    memcpy(buf, path, strlen(path) + 1);
    while (buf[at]) {
        while (buf[at] == '/')
            at++;
        size_t end = at;
        while (buf[end] && buf[end] != '/')
            end++;
        if (end == at)
            break;
        char save = buf[end];
        struct stat st;
        buf[end] = '\0';
        if (!strcmp(buf + at, ".."))
            return KEVO_ELINK; /* would leave the directory like a link */
        if (lstat(buf, &st))
            return KEVO_OK; /* missing: ours to create; else the write
                               itself fails and says why */
        if (S_ISLNK(st.st_mode))
            return KEVO_ELINK;
        buf[end] = save;
        if (save && !S_ISDIR(st.st_mode))
            return KEVO_ENOTDIR;
        at = end;
    }
    return KEVO_OK;
}

int fs_open_write(const char *path, int flags, int *fd)
{
    int rc = fs_guard_check(path);
    if (rc)
        return rc;
    /* guarded: O_NOFOLLOW refuses a link planted after the check, and
     * O_NONBLOCK an open that would wait for a FIFO's reader */
    int guarded = guard_root_len(path) > 0;
    if (guarded)
        flags |= O_NOFOLLOW | O_NONBLOCK;
    int f = open(path, flags | O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (f < 0)
        return errno == ENXIO ? KEVO_ENOTREG : fs_status_of(errno);
    struct stat st;
    if (guarded && (fstat(f, &st) || !S_ISREG(st.st_mode) ||
                    fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK))) {
        close(f);
        return KEVO_ENOTREG;
    }
    *fd = f;
    return KEVO_OK;
}

FILE *fs_fopen_write(const char *path, int *rc)
{
    int fd = -1;
    FILE *f = NULL;
    *rc = fs_open_write(path, O_TRUNC, &fd);
    if (!*rc && !(f = fdopen(fd, "w"))) {
        *rc = fs_status_of(errno);
        close(fd);
    }
    return f;
}

int fs_close_written(FILE *f)
{
    int bad = ferror(f), e = errno;
    if (fflush(f))
        bad = 1, e = errno;
    if (fclose(f) && !bad)
        bad = 1, e = errno;
    return bad ? fs_status_of(e ? e : EIO) : KEVO_OK;
}

/* Opens a temporary name next to the file being written: never through
 * a link (one left there is removed first; O_EXCL refuses a new one). */
static int open_tmp(const char *tmp, int *fd)
{
    unlink(tmp);
    int f = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 0644);
    if (f < 0)
        return fs_status_of(errno);
    *fd = f;
    return KEVO_OK;
}

static int write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno == ENOSPC || errno == EDQUOT ? KEVO_ENOSPC
                                                      : KEVO_EIO;
        }
        p += w;
        n -= (size_t)w;
    }
    return KEVO_OK;
}

int fs_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return KEVO_EIO;
    int rc = fsync(fd) ? KEVO_EIO : KEVO_OK;
    close(fd);
    return rc;
}

int fs_sync_parent(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    return fs_sync_dir(dirname(tmp));
}

int fs_write_atomic(const char *path, const void *data, size_t n)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid()) >=
        (int)sizeof tmp)
        return KEVO_EINVAL;
    int fd = -1, rc = fs_guard_check(path);
    if (!rc)
        rc = open_tmp(tmp, &fd);
    if (rc)
        return rc;
    rc = write_all(fd, data, n);
    if (!rc && fsync(fd))
        rc = fs_status_of(errno);
    if (close(fd) && !rc)
        rc = fs_status_of(errno);
    if (!rc && rename(tmp, path))
        rc = fs_status_of(errno);
    if (rc) {
        unlink(tmp);
        return rc;
    }
    return fs_sync_parent(path);
}

int fs_write_new(const char *path, const void *data, size_t n, int sync)
{
    /* written whole under a temporary name, then linked into place (link
     * fails if path exists): a process killed mid-write leaves no short
     * file at path for a resume to take as written */
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.new.%d", path, (int)getpid()) >=
        (int)sizeof tmp)
        return KEVO_EINVAL;
    struct stat st;
    int fd = -1, rc = fs_guard_check(path);
    if (rc)
        return rc;
    if (!lstat(path, &st))
        return KEVO_EEXIST;
    if ((rc = open_tmp(tmp, &fd)))
        return rc;
    rc = write_all(fd, data, n);
    if (!rc && sync && fsync(fd))
        rc = fs_status_of(errno);
    if (close(fd) && !rc)
        rc = fs_status_of(errno);
    if (!rc && link(tmp, path)) {
        int e = errno;
        /* a file system without hard links: rename (path was absent) */
        if ((e == EPERM || e == ENOTSUP) && !rename(tmp, path))
            return KEVO_OK;
        rc = fs_status_of(e);
    }
    unlink(tmp);
    return rc;
}

/* mkdir that accepts an existing directory (and only a directory). */
static int make_dir(const char *path)
{
    struct stat st;
    if (!mkdir(path, 0755))
        return KEVO_OK;
    if (errno != EEXIST)
        return fs_status_of(errno);
    return stat(path, &st) || S_ISDIR(st.st_mode) ? KEVO_OK : KEVO_ENOTDIR;
}

int fs_mkdirs(const char *path)
{
    char tmp[4096];
    int rc = fs_guard_check(path);
    if (rc)
        return rc;
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return KEVO_EINVAL;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if ((rc = make_dir(tmp)))
            return rc;
        *p = '/';
    }
    return make_dir(tmp);
}

int fs_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int fs_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int fs_join(char *out, size_t cap, const char *a, const char *b)
{
    int n = snprintf(out, cap, "%s/%s", a, b);
    return n < 0 || (size_t)n >= cap ? KEVO_EINVAL : KEVO_OK;
}

long long fs_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct timespec fs_abstime_in(long long ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ns += ts.tv_nsec;
    ts.tv_sec += (time_t)(ns / 1000000000LL);
    ts.tv_nsec = (long)(ns % 1000000000LL);
    return ts;
}

double fs_wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void fs_remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
