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
#define JIT_SRC_CAP (16 << 20)  /* longest source the pool accepts */
#define JIT_DEFAULT_TIMEOUT_MS 60000

struct jit_output {
    int ok;               /* 1: cubin produced; 0: compile error (see log) */
    char *cubin;          /* owned; NULL unless ok */
    size_t cubin_len;
    size_t ptx_len;       /* bytes of the PTX NVRTC emitted (0 = none);
                             compile CPU grows with it, ~2.9 ms a KB */
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
 * fills opts[] (static strings) and returns their count (<= 16), or
 * -KEVO_EINVAL if arch is not a real one ("sm_<digits>[a|f]": a virtual
 * compute_* gives no cubin) or max is too small. Today: -arch=<arch>
 * -I<cuda>/include -I<cuda>/include/cccl -std=c++17 -lineinfo
 * --ptxas-options=-v -no-source-include, <cuda> from $CUDA_HOME,
 * $CUDA_PATH, /usr/local/cuda. */
int jit_default_options(const char *arch, const char **opts, int max);

/* NVRTC version as "13.0". */
const char *jit_nvrtc_version(void);

/*
 * Compiles src in this process. name is the program name in messages.
 * A compile error is not an error: returns KEVO_OK with out->ok = 0 and
 * the log. Returns KEVO_ECOMPILE only when NVRTC itself fails, and
 * KEVO_EINVAL for an arch that is not "sm_<digits>[a|f]"; the reason is
 * then in out->log. *out is filled either way: release it.
 * A source that fails jit_check_source() is not compiled (ok = 0, the
 * reason in the log); neither is one whose PTX breaks a rule of
 * codescan.h (ok = 0, a log line "kevo: rejected: policy: <reason>").
 */
int jit_compile(const char *src, const char *name, const char *arch,
                struct jit_output *out) KEVO_WUR;
/* As jit_compile, with a soft time limit: NVRTC's flow callback cancels
 * the compile once timeout_ms (> 0; 0 = none) have passed, giving ok = 0,
 * timed_out = 1. NVRTC polls the callback only at some points (measured:
 * a 500 ms limit stopped a 13.8 s compile after 2.0 s, a 3 s limit after
 * 13.1 s), so the pool adds the hard limit (SIGKILL). */
int jit_compile_timed(const char *src, const char *name, const char *arch,
                      int timeout_ms, struct jit_output *out) KEVO_WUR;
/* Cheap source screen run before any compile: returns 0 if src may be
 * compiled, else 1 with a one-line reason in why[cap]. Rejects includes
 * of anything but CUDA toolkit and kevo/ headers (jitpolicy.h), and
 * device-side launches (dynamic parallelism): "<<<", cudaLaunchDevice,
 * cudaGetParameterBuffer, outside comments and literals. */
int jit_check_source(const char *src, char *why, size_t cap);
/* One object of a cubin's module-scope device memory. */
struct jit_global {
    char name[256];          /* ELF symbol name, as cuModuleGetGlobal
                                takes it; "" = data no symbol names */
    uint64_t bytes;          /* st_size (the section's size if unnamed) */
    uint64_t offset;         /* st_value: offset in its section */
    int section;             /* ELF section index */
    uint64_t section_bytes;  /* size of that section */
};
/*
 * Enumerates the module-scope device memory of an ELF cubin: every object
 * symbol in a .nv.global* section (.nv.global: zero-initialized __device__
 * variables; .nv.global.init: initialized ones, where NVRTC also puts
 * file-scope const/constexpr data and string literals), plus one unnamed
 * entry for a non-empty such section without any symbol. Fills
 * out[0..max) and returns the total count (more than max when they do not
 * fit), or -1 when cubin is not a readable 64-bit ELF. The worker hashes
 * these around every launch (worker.h, guarantee 1).
 */
int jit_cubin_globals(const void *cubin, size_t n, struct jit_global *out,
                      int max);
/* 1 if the ELF cubin calls the external function fn (an undefined function
 * symbol, e.g. "vprintf" for printf), else 0. */
int jit_cubin_calls(const void *cubin, size_t n, const char *fn);

/* Cache key: hash of (source, options, arch, NVRTC version, the text of
 * kevo's headers, kvhdr.h); a first line
 * "// kevo: ..." (tpl_instantiate's name of the point) is left out. */
uint64_t jit_cache_key(const char *src, const char *arch);
/* The same key for a given set of n_hdr headers (include names and texts)
 * in place of kevo's: jit_cache_key(s, a) == jit_cache_key_with(s, a,
 * kvhdr_count(), kvhdr_names(), kvhdr_texts()). For tests. */
uint64_t jit_cache_key_with(const char *src, const char *arch, int n_hdr,
                           const char *const *names,
                           const char *const *texts);
/* Default cache dir: $KEVO_CACHE_DIR, else $XDG_CACHE_HOME/kevo/cubin,
 * else ~/.cache/kevo/cubin. Written into out[cap]. */
void jit_cache_dir(char *out, size_t cap);
/* Looks key up in cache dir dir: <key hex>.json (+ .cubin when ok). On a
 * hit returns KEVO_OK and fills *out (cached = 1, compile_ms = 0; caller
 * releases); KEVO_ENOENT on a miss or an unreadable or partial entry. */
int jit_cache_load(const char *dir, uint64_t key,
                   struct jit_output *out) KEVO_WUR;
/* Stores a finished compile (ok, or a compile error: a bad candidate is
 * not compiled twice) under key in dir, each file written atomically,
 * the .json last. A timed-out result is not stored (KEVO_EINVAL). */
int jit_cache_store(const char *dir, uint64_t key,
                    const struct jit_output *o) KEVO_WUR;

struct jit_pool;

struct jit_pool_opts {
    int n_procs;           /* compiler processes (0 = number of CPUs) */
    int timeout_ms;        /* per compile (0 = JIT_DEFAULT_TIMEOUT_MS):
                              NVRTC is asked to stop at it, the process
                              is SIGKILLed 250 ms later */
    const char *arch;      /* "sm_90a" */
    const char *cache_dir; /* NULL = no disk cache */
    long long memo_bytes;  /* the disk cache's recent answers kept in
                              memory, bytes of cubins and logs (0 = 128
                              MB; < 0 = none): a cache hit on one of them
                              reads no file */
};

/* The compiler processes a pool of opts.n_procs n runs: n, or with n <= 0
 * the CPUs this process may use (cpus_usable: its affinity mask). */
int jit_pool_procs(int n);

/* A pool may be used from several threads at once (each call takes its
 * mutex; a thread waiting in poll() lets the others queue work). */

/* Starts the pool (forks n_procs compiler processes, which warm NVRTC up
 * in parallel; creates cache_dir). Call before the process starts any
 * threads. KEVO_EINVAL for a bad arch (see jit_default_options). *out is
 * new; free with jit_pool_free(). */
int jit_pool_new(const struct jit_pool_opts *o, struct jit_pool **out) KEVO_WUR;
/* Queues src for compilation; returns a ticket (>= 0) or a negative
 * status. src is copied. Never blocks on the compile itself. A cache hit
 * or a source that fails jit_check_source() is answered here and never
 * reaches a compiler process. */
int jit_pool_submit(struct jit_pool *p, const char *src, const char *name);
/* Waits for the result of ticket (any order of waiting is fine; each
 * ticket once), up to the pool's timeout once its compile has started;
 * fills *out (caller releases). A compile that hangs or crashes its
 * process comes back as ok = 0 with timed_out or the reason in the log;
 * the process is replaced. Meanwhile it services the whole pool (results
 * of other tickets are kept). Errors (see jit_pool_errmsg): KEVO_EINVAL
 * for an unknown ticket; KEVO_ECOMPILE when compiler processes cannot
 * start (their warm-up compile fails, or they keep dying);
 * KEVO_EIO / KEVO_ENOMEM when a process cannot be made. */
int jit_pool_wait(struct jit_pool *p, int ticket, struct jit_output *out) KEVO_WUR;
/* One round of the pool's service without waiting for a ticket: reads
 * finished compiles, hands queued tickets to idle children, enforces time
 * limits. With block, waits until some child answers or a limit passes
 * (at most the nearest deadline; 100 ms when nothing runs); without,
 * returns at once. Callers that wait on something else (the GPU worker)
 * call it now and then so that children do not sit idle. Errors as for
 * jit_pool_wait. */
int jit_pool_poll(struct jit_pool *p, int block) KEVO_WUR;
/* jit_pool_poll that waits at most max_ms (0: does not wait). */
int jit_pool_poll_ms(struct jit_pool *p, int max_ms) KEVO_WUR;
/* 1 if ticket's result is ready (jit_pool_wait returns at once), 0 if
 * not yet, -1 for an unknown ticket. */
int jit_pool_done(struct jit_pool *p, int ticket);
/* Starts compiling src for the disk cache, for a submit expected soon
 * (several GPU evaluators fed by one pool, fanout.h): a jit_pool_submit of
 * the same source while it is queued or compiling takes it over (no second
 * compile, its place in the queue kept); once done, the submit finds it in
 * the cache (its result then says cached = 0 and the prefetch's
 * compile_ms: it was compiled for this run, just earlier). No ticket to
 * wait for. Nothing without a cache_dir, for a
 * cache hit, or for a source already queued. Errors as for submit. */
int jit_pool_prefetch(struct jit_pool *p, const char *src,
                      const char *name) KEVO_WUR;
/* jit_pool_prefetch for a batch that comes after the ones being worked on
 * (the engine's next generation, issue 32): its compile starts only when
 * no other queued ticket could (a submit or a jit_pool_prefetch of the
 * same source moves it up to theirs). */
int jit_pool_prefetch_later(struct jit_pool *p, const char *src,
                            const char *name) KEVO_WUR;
/* Nobody will wait for ticket: its compile goes on (or stays queued) as
 * if prefetched, and its result goes to the disk cache, where a submit of
 * the same source finds it (or adopts the compile while it runs, its
 * compile_ms the whole compile's). 0, or -1 (nothing done) for an
 * unknown ticket or a pool without a cache (its result would be lost). */
int jit_pool_release(struct jit_pool *p, int ticket);
/* For a prefetched src: 1 if its compile is over (a submit now answers
 * from the cache at once), 0 if it is queued or compiling; -1 if src was
 * never prefetched (or its result was taken) or the pool has no cache. */
int jit_pool_ready(struct jit_pool *p, const char *src);
/* Kills and reaps every compiler process; frees p and the results that
 * were never waited for. p may be NULL. */
void jit_pool_free(struct jit_pool *p);
/* Another GPU evaluator compiles with p (fanout.h): counted, so that
 * jit_pool_share says each one's share. */
void jit_pool_add_user(struct jit_pool *p);
/* The compile processes per evaluator that uses p: n_procs / users. */
double jit_pool_share(struct jit_pool *p);
/* One-line reason for the last failure of a jit_pool_* call on p. */
const char *jit_pool_errmsg(const struct jit_pool *p);

#endif
