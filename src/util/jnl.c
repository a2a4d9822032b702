/*
 * jnl.c - append-only JSON-lines journal (see jnl.h).
 */
#include "jnl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "secret.h"

struct jnl {
    int fd;        /* O_APPEND */
    long n;        /* records in the file */
    char path[4096]; /* for messages */
};

int jnl_create(const char *path, struct jnl **out)
{
    int fd = -1;
    int rc = fs_open_write(path, O_EXCL | O_APPEND, &fd);
    if (rc)
        return rc;
    struct jnl *j = calloc(1, sizeof *j);
    if (!j) {
        close(fd);
        return KEVO_ENOMEM;
    }
    j->fd = fd;
    snprintf(j->path, sizeof j->path, "%s", path);
    *out = j;
    return KEVO_OK;
}

/* Parses complete lines of buf[0..len) into arr; *good = bytes up to and
 * including the last complete, well-formed line. */
static int parse_lines(const char *path, char *buf, size_t len, cJSON *arr,
                       size_t *good, char *err, size_t errcap)
{
    size_t pos = 0;
    int line = 0;
    *good = 0;
    while (pos < len) {
        char *nl = memchr(buf + pos, '\n', len - pos);
        line++;
        if (!nl)
            break; /* torn tail: no newline yet */
        *nl = '\0';
        cJSON *rec = cJSON_Parse(buf + pos);
        if (!rec || !cJSON_IsObject(rec)) {
            cJSON_Delete(rec);
            if ((size_t)(nl - buf) + 1 == len)
                break; /* last line garbled by a crash: treat as torn */
            snprintf(err, errcap, "%s:%d: malformed journal record", path,
                     line);
            return KEVO_EPARSE;
        }
        cJSON_AddItemToArray(arr, rec);
        pos = (size_t)(nl - buf) + 1;
        *good = pos;
    }
    return KEVO_OK;
}

static int read_records(const char *path, cJSON **records, size_t *good,
                        size_t *len, char *err, size_t errcap)
{
    char *buf;
    int rc = fs_read_file_max(path, FS_READ_MAX_JOURNAL, &buf, len);
    if (rc) {
        snprintf(err, errcap, "cannot read '%s': %s", path,
                 kevo_strerror(rc));
        return rc;
    }
    cJSON *arr = cJSON_CreateArray();
    if (!arr) {
        free(buf);
        return KEVO_ENOMEM;
    }
    rc = parse_lines(path, buf, *len, arr, good, err, errcap);
    free(buf);
    if (rc) {
        cJSON_Delete(arr);
        return rc;
    }
    *records = arr;
    return KEVO_OK;
}

int jnl_read_all(const char *path, cJSON **records, char *err, size_t errcap)
{
    size_t good, len;
    return read_records(path, records, &good, &len, err, errcap);
}

int jnl_open_resume(const char *path, struct jnl **out, cJSON **records,
                    char *err, size_t errcap)
{
    size_t good, len;
    cJSON *arr;
    int rc = read_records(path, &arr, &good, &len, err, errcap);
    if (rc)
        return rc;
    /* never through a link planted in a run directory (fsutil.h) */
    int fd = -1;
    if (!(rc = fs_open_write(path, O_APPEND, &fd)) && good < len &&
        ftruncate(fd, (off_t)good))
        rc = fs_status_of(errno);
    if (rc) {
        snprintf(err, errcap, "cannot open '%s' for appending: %s", path,
                 kevo_strerror(rc));
        if (fd >= 0)
            close(fd);
        cJSON_Delete(arr);
        return rc;
    }
    struct jnl *j = calloc(1, sizeof *j);
    if (!j) {
        close(fd);
        cJSON_Delete(arr);
        return KEVO_ENOMEM;
    }
    j->fd = fd;
    snprintf(j->path, sizeof j->path, "%s", path);
    j->n = cJSON_GetArraySize(arr);
    *out = j;
    *records = arr;
    return KEVO_OK;
}

int jnl_append_text(struct jnl *j, const char *text, int sync)
{
    size_t n = strlen(text);
    char *line = malloc(n + 1);
    if (!line)
        return KEVO_ENOMEM;
    memcpy(line, text, n);
    line[n] = '\0';
    secret_scrub(line); /* no key reaches a journal (never longer) */
    n = strlen(line);
    line[n] = '\n'; /* one write for the whole line */
    size_t done = 0;
    int rc = KEVO_OK;
    while (done < n + 1 && !rc) { /* a short write: the rest says why */
        ssize_t w = write(j->fd, line + done, n + 1 - done);
        if (w < 0 && errno != EINTR)
            rc = fs_status_of(errno);
        else if (w == 0)
            rc = KEVO_EIO;
        else if (w > 0)
            done += (size_t)w;
    }
    free(line);
    if (rc)
        return rc == KEVO_ENOSPC ? rc : KEVO_EIO;
    if (sync && fdatasync(j->fd))
        return errno == ENOSPC || errno == EDQUOT ? KEVO_ENOSPC : KEVO_EIO;
    j->n++;
    return KEVO_OK;
}

int jnl_append(struct jnl *j, const cJSON *rec, int sync)
{
    char *s = cJSON_PrintUnformatted(rec);
    if (!s)
        return KEVO_ENOMEM;
    int rc = jnl_append_text(j, s, sync);
    free(s);
    return rc;
}

const char *jnl_path(const struct jnl *j)
{
    return j->path;
}

long jnl_count(const struct jnl *j)
{
    return j->n;
}

void jnl_close(struct jnl *j)
{
    if (!j)
        return;
    close(j->fd);
    free(j);
}
