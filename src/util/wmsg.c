/*
 * wmsg.c - framed messages (see wmsg.h).
 */
#include "wmsg.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fsutil.h"

#define WMSG_MAGIC 0x4d57564bu /* "KVWM" */

void wmsg_init(struct wmsg *m)
{
    memset(m, 0, sizeof *m);
}

void wmsg_release(struct wmsg *m)
{
    free(m->json);
    free(m->blob);
    wmsg_init(m);
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == ENOTSOCK)
            w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return KEVO_EIO;
        c += w;
        n -= (size_t)w;
    }
    return KEVO_OK;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static uint32_t get32(const unsigned char *p)
{
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

int wmsg_send(int fd, int type, const char *json, const void *blob,
              size_t blob_len)
{
    size_t jl = json ? strlen(json) : 0;
    if (jl > WMSG_JSON_CAP || blob_len > WMSG_BLOB_CAP)
        return KEVO_EINVAL;
    unsigned char h[WMSG_HEADER];
    put32(h, WMSG_MAGIC);
    put32(h + 4, (uint32_t)type);
    put32(h + 8, (uint32_t)jl);
    put32(h + 12, (uint32_t)blob_len);
    int rc = write_all(fd, h, sizeof h);
    if (!rc && jl)
        rc = write_all(fd, json, jl);
    if (!rc && blob_len)
        rc = write_all(fd, blob, blob_len);
    return rc;
}

/* Reads exactly n bytes before deadline_ns (0 = none); past it, what has
 * already come is still read (a reader late to look, say a worker's
 * READY read after the caller's own work, is not a silent peer). */
static int read_all(int fd, void *p, size_t n, long long deadline_ns)
{
    char *c = p;
    while (n) {
        if (deadline_ns) {
            long long left = deadline_ns - fs_now_ns();
            struct pollfd pf = {.fd = fd, .events = POLLIN};
            int pr = poll(&pf, 1,
                          left > 0 ? (int)((left + 999999) / 1000000) : 0);
            if (pr < 0 && errno == EINTR)
                continue;
            if (pr < 0)
                return KEVO_EIO;
            if (pr == 0)
                return KEVO_ETIMEOUT;
        }
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return KEVO_EIO;
        c += r;
        n -= (size_t)r;
    }
    return KEVO_OK;
}

int wmsg_recv(int fd, int timeout_ms, struct wmsg *out)
{
    wmsg_release(out);
    long long dl = timeout_ms < 0 ? 0
                                  : fs_now_ns() + (long long)timeout_ms * 1000000LL;
    if (timeout_ms == 0)
        dl = fs_now_ns() + 1;
    unsigned char h[WMSG_HEADER];
    int rc = read_all(fd, h, sizeof h, dl);
    if (rc)
        return rc;
    uint32_t jl = get32(h + 8), bl = get32(h + 12);
    if (get32(h) != WMSG_MAGIC || jl > WMSG_JSON_CAP || bl > WMSG_BLOB_CAP)
        return KEVO_EPARSE;
    out->type = (int)get32(h + 4);
    out->json = malloc((size_t)jl + 1);
    out->blob = bl ? malloc(bl) : NULL;
    if (!out->json || (bl && !out->blob)) {
        wmsg_release(out);
        return KEVO_ENOMEM;
    }
    rc = read_all(fd, out->json, jl, dl);
    if (!rc && bl)
        rc = read_all(fd, out->blob, bl, dl);
    if (rc) {
        wmsg_release(out);
        return rc;
    }
    out->json[jl] = '\0';
    out->json_len = jl;
    out->blob_len = bl;
    return KEVO_OK;
}
