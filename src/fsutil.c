/*
 * fsutil.c - file-system helpers (see fsutil.h).
 */
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int fs_read_file(const char *path, char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? KEVO_ENOENT : KEVO_EIO;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return KEVO_ENOMEM;
    }
    for (;;) {
        if (cap - n < 2) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                return KEVO_ENOMEM;
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return KEVO_EIO;
    }
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
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
            return KEVO_EIO;
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

static int sync_parent(const char *path)
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
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return KEVO_EIO;
    int rc = write_all(fd, data, n);
    if (!rc && fsync(fd))
        rc = KEVO_EIO;
    if (close(fd) && !rc)
        rc = KEVO_EIO;
    if (!rc && rename(tmp, path))
        rc = KEVO_EIO;
    if (rc) {
        unlink(tmp);
        return rc;
    }
    return sync_parent(path);
}

int fs_write_new(const char *path, const void *data, size_t n, int sync)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return errno == EEXIST ? KEVO_EEXIST : KEVO_EIO;
    int rc = write_all(fd, data, n);
    if (!rc && sync && fsync(fd))
        rc = KEVO_EIO;
    if (close(fd) && !rc)
        rc = KEVO_EIO;
    if (rc)
        unlink(path);
    return rc;
}

int fs_mkdirs(const char *path)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return KEVO_EINVAL;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) && errno != EEXIST)
            return KEVO_EIO;
        *p = '/';
    }
    if (mkdir(tmp, 0755) && errno != EEXIST)
        return KEVO_EIO;
    return KEVO_OK;
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

double fs_wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
