/*
 * jit.h - compiling candidates with NVRTC: one compile (jit_compile), an
 * on-disk cubin cache, and a pool of compiler processes (jit_pool_*) that
 * compiles many candidates in parallel with a time limit each.
 *
 * A candidate is device code only: compiled for a real arch (sm_90a) to a
 * cubin, never with -rdc, never linked. Processes, not threads: NVRTC's
 * front end does not scale across threads in one process (measured: 0.8/s
 * at 16 threads vs 8.4/s with 16 processes for header-heavy kernels), and
 * a process contains a compiler crash and can be killed when it hangs.
 */
#ifndef KEVO_JIT_H
#define KEVO_JIT_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#define JIT_LOG_CAP (64 * 1024) /* compile logs are cut to this */

struct jit_output {
    int ok;               /* 1: cubin produced; 0: compile error (see log) */
    char *cubin;          /* owned; NULL unless ok */
    size_t cubin_len;
    char *log;            /* owned; NUL-terminated, maybe empty, capped */
    int regs;             /* registers/thread (max over kernels; -1 = ?) */
    int spill_stores;     /* bytes, from ptxas -v (-1 = ?) */
    int spill_loads;      /* bytes */
    int smem_static;      /* static shared memory, bytes (-1 = ?) */
    int local_bytes;      /* stack frame / local memory per thread */
    double compile_ms;    /* wall time of the compile (0 on cache hit) */
    int cached;           /* 1: came from the disk cache */
    int timed_out;        /* 1: killed at the time limit (ok = 0) */
};

void jit_output_release(struct jit_output *o);

/* Compiler options shared by every candidate for arch (e.g. "sm_90a"):
 * fills opts[] (static strings) and returns their count (<= 16). */
int jit_default_options(const char *arch, const char **opts, int max);

/* NVRTC version as "13.0". */
const char *jit_nvrtc_version(void);

/*
 * Compiles src in this process. name is the program name in messages.
 * A compile error is not an error: returns KEVO_OK with out->ok = 0 and
 * the log. Returns KEVO_ECOMPILE only when NVRTC itself fails.
 */
int jit_compile(const char *src, const char *name, const char *arch,
                struct jit_output *out) KEVO_WUR;

/* Cache key: hash of (source, options, arch, NVRTC version). */
uint64_t jit_cache_key(const char *src, const char *arch);
/* Default cache dir: $KEVO_CACHE_DIR, else $XDG_CACHE_HOME/kevo/cubin,
 * else ~/.cache/kevo/cubin. Written into out[cap]. */
void jit_cache_dir(char *out, size_t cap);

struct jit_pool;

struct jit_pool_opts {
    int n_procs;           /* compiler processes (0 = number of CPUs) */
    int timeout_ms;        /* per compile; a compile past it is killed */
    const char *arch;      /* "sm_90a" */
    const char *cache_dir; /* NULL = no disk cache */
};

/* Starts the pool (forks n_procs compiler processes). Call before the
 * process starts any threads. *out is new; free with jit_pool_free(). */
int jit_pool_new(const struct jit_pool_opts *o, struct jit_pool **out) KEVO_WUR;
/* Queues src for compilation; returns a ticket (>= 0) or a negative
 * status. src is copied. Never blocks on the compile itself. */
int jit_pool_submit(struct jit_pool *p, const char *src, const char *name);
/* Waits for the result of ticket (any order of waiting is fine), up to
 * the pool's timeout; fills *out (caller releases). A compile that hangs
 * or crashes its process comes back as ok = 0 with timed_out or the
 * reason in the log; the process is replaced. */
int jit_pool_wait(struct jit_pool *p, int ticket, struct jit_output *out) KEVO_WUR;
void jit_pool_free(struct jit_pool *p);

#endif
