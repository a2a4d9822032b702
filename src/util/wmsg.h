/*
 * wmsg.h - framed messages over a stream socket or pipe: a 16-byte header
 * (magic "KVWM", type, JSON length, blob length, little-endian u32), the
 * JSON text, then an opaque binary blob (a cubin). Used between the
 * coordinator (gpu/worker_client.c) and the GPU worker (worker.c); knows nothing of
 * their contents.
 */
#ifndef KEVO_WMSG_H
#define KEVO_WMSG_H

#include <stddef.h>

#include "status.h"

#define WMSG_HEADER 16            /* bytes of a frame's header */
#define WMSG_JSON_CAP (4u << 20)  /* larger frames are refused */
#define WMSG_BLOB_CAP (256u << 20)

struct wmsg {
    int type;         /* protocol's message type */
    char *json;       /* owned, NUL-terminated, json_len bytes */
    size_t json_len;
    char *blob;       /* owned, may be NULL */
    size_t blob_len;
};

void wmsg_init(struct wmsg *m);
void wmsg_release(struct wmsg *m);

/* Writes one frame (blocking). json may be NULL (empty). Never raises
 * SIGPIPE. KEVO_EIO when the peer is gone. */
int wmsg_send(int fd, int type, const char *json, const void *blob,
              size_t blob_len) KEVO_WUR;

/*
 * Reads one frame into *out (released first). Waits at most timeout_ms in
 * total (-1: forever). Returns KEVO_ETIMEOUT when the deadline passes,
 * KEVO_EIO on end of file or a read error, KEVO_EPARSE on a bad header or
 * a frame over the caps.
 */
int wmsg_recv(int fd, int timeout_ms, struct wmsg *out) KEVO_WUR;

#endif
