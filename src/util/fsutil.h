/*
 * fsutil.h - small file-system helpers: whole-file reads, atomic writes,
 * directory creation. Knows nothing of kevo's data.
 *
 * Atomic write = write to "<path>.tmp.<pid>", fsync, rename over path, fsync
 * the directory: a reader (or a resume after kill -9) sees the old file or
 * the new one, never a torn one. Temporary names are created afresh
 * (O_EXCL, O_NOFOLLOW), never opened through a link left there.
 *
 * Guarded directories (a run directory): once fs_guard_dir(dir) is called,
 * every write through this module below dir - fs_write_atomic,
 * fs_write_new, fs_mkdirs, fs_open_write, fs_fopen_write; jnl.c checks
 * too - refuses with KEVO_ELINK a path that passes through a symbolic
 * link below dir or is one, so a link planted in a run directory never
 * leads a write outside it. dir itself may be a link (the user named it).
 */
#ifndef KEVO_FSUTIL_H
#define KEVO_FSUTIL_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "status.h"

/* The default cap of fs_read_file: specs, templates, manifests, LLM
 * transcripts, prompts. Journals (which grow with the run) use
 * FS_READ_MAX_JOURNAL. */
#define FS_READ_MAX ((size_t)64 << 20)
#define FS_READ_MAX_JOURNAL ((size_t)4 << 30)

/*
 * Reads a whole regular file of at most max bytes. Returns a new
 * NUL-terminated buffer in *out (caller frees) and its length in *len (may
 * be NULL). Never blocks on a FIFO and never reads a device: KEVO_ENOENT if
 * missing, KEVO_EISDIR for a directory, KEVO_ENOTREG for anything else that
 * is not a regular file (device, FIFO, socket; a symlink counts as what it
 * points to), KEVO_ETOOBIG past max bytes, KEVO_EIO if reading fails.
 */
int fs_read_file_max(const char *path, size_t max, char **out,
                     size_t *len) KEVO_WUR;
/* fs_read_file_max with max = FS_READ_MAX. */
int fs_read_file(const char *path, char **out, size_t *len) KEVO_WUR;
/* fsyncs the directory that holds path, so a rename or creation in it is
 * durable; KEVO_EIO on failure. */
int fs_sync_parent(const char *path) KEVO_WUR;
/* Atomically replaces path with n bytes of data (see top comment). */
int fs_write_atomic(const char *path, const void *data, size_t n) KEVO_WUR;
/* Writes path only if it does not exist yet, whole or not at all (a
 * temporary file linked into place), fsynced first when sync is 1.
 * Returns KEVO_EEXIST if it exists (content is not compared). Without sync the data survives a killed process (it is in
 * the page cache) but not a power loss. */
int fs_write_new(const char *path, const void *data, size_t n,
                 int sync) KEVO_WUR;
/* The kevo status for an errno value (ENOENT -> KEVO_ENOENT, EISDIR ->
 * KEVO_EISDIR, ENOTDIR, EACCES/EPERM/EROFS -> KEVO_EACCES, ENOSPC/EDQUOT
 * -> KEVO_ENOSPC, ELOOP -> KEVO_ELINK, else EIO). */
int fs_status_of(int err);
/* 1 if path is a directory (or a link to one), else 0. */
int fs_is_dir(const char *path);
/* Removes the tree at path, depth first, without following links (best
 * effort: for kevo's own scratch and half-made directories). */
void fs_remove_tree(const char *path);
/* mkdir -p; KEVO_ENOTDIR if a part of path is a file. */
int fs_mkdirs(const char *path) KEVO_WUR;
/* 1 if path exists, else 0. */
int fs_exists(const char *path);
/* fsyncs a directory so that a rename or create in it is durable. */
int fs_sync_dir(const char *dir) KEVO_WUR;
/* Guards dir for the rest of the process (see top comment); the same
 * directory twice is one guard. KEVO_ENOMEM only. */
int fs_guard_dir(const char *dir) KEVO_WUR;
/* KEVO_OK if path may be written: it is not below a guarded directory,
 * or no component of it below that directory is a symbolic link (parts
 * that do not exist yet pass). KEVO_ELINK if one is, KEVO_ENOTDIR for a
 * file where a directory is needed. Writers call it; a command that
 * writes by other means (a child's output file) calls it first. */
int fs_guard_check(const char *path) KEVO_WUR;
/* Opens path for writing (created 0644 if missing; flags adds O_TRUNC,
 * O_APPEND, O_EXCL...) after fs_guard_check; below a guarded directory
 * with O_NOFOLLOW, and only a regular file (a FIFO or device there is
 * KEVO_ENOTREG, never waited on). The fd in *fd; caller closes. */
int fs_open_write(const char *path, int flags, int *fd) KEVO_WUR;
/* fs_open_write(path, O_TRUNC) as a stdio stream; NULL with *rc set on
 * failure. Close with fs_close_written. */
FILE *fs_fopen_write(const char *path, int *rc);
/* Flushes and closes f; the status of the first write error (KEVO_ENOSPC
 * for a full disk), else KEVO_OK. */
int fs_close_written(FILE *f) KEVO_WUR;
/* Path join into out[cap]; returns KEVO_EINVAL if it does not fit. */
int fs_join(char *out, size_t cap, const char *a, const char *b) KEVO_WUR;
/* Monotonic clock in nanoseconds. */
long long fs_now_ns(void);
/* The wall clock ns from now, as pthread_cond_timedwait takes it. */
struct timespec fs_abstime_in(long long ns);
/* Wall clock, seconds since the epoch, as a double. */
double fs_wall_s(void);

#endif
