/*
 * hx.h - the GPU harness inside the worker: device buffers with guard
 * regions, the harness kernels (random fill, fp64 conversion, poison,
 * guards, bitwise compare, tolerance compare, hashing, L2 flush), the
 * problem's own harness kernels, scratch memory for references, and the
 * repetition timing loop.
 *
 * The first part is what fitness/<problem>.c calls from gen_inputs,
 * reference and baseline; the second part is for worker.c. The
 * evaluator's guarantees built on these are written in worker.h.
 *
 * Device pointers are plain 64-bit integers (hx_dptr) so that problems
 * need no CUDA header. Every function returns a kevo status; on failure
 * hx_errmsg() says what failed and hx_cuda_rc() gives the CUDA code (the
 * worker treats sticky codes as a crash of the candidate that ran last).
 */
#ifndef KEVO_HX_H
#define KEVO_HX_H

#include <stddef.h>
#include <stdint.h>

#include "problem.h"
#include "status.h"

typedef unsigned long long hx_dptr; /* == CUdeviceptr */
struct hx;
struct gpu_info;

/* ---------------- for problems (fitness/) ---------------- */

/* Device pointer of buffer i (problem->buffers order) in the current
 * view: while the harness builds a reference, inputs are the pristine
 * scratch copies; otherwise the live buffers the candidate uses. */
hx_dptr hx_buf(struct hx *h, int i);
/* Element count of buffer i. */
int64_t hx_buf_elems(struct hx *h, int i);

/* Device memory for the reference step, zero-filled; freed by the harness
 * before the next candidate launch (never resident while one runs). */
int hx_scratch(struct hx *h, size_t bytes, hx_dptr *out) KEVO_WUR;

/* Launches kernel (extern "C", from problem->harness_src compiled with
 * the dtype's prelude) on the harness stream. args as for cuLaunchKernel.
 * Harness kernel names must start with "kevo_" (they are then never
 * counted as timed work), baseline kernels must not. */
int hx_launch(struct hx *h, const char *kernel, unsigned gx, unsigned gy,
              unsigned bx, unsigned smem_bytes, void **args) KEVO_WUR;

/* Fills n elements of dtype dt at p with uniform values in [lo, hi)
 * drawn from seed (counter-based: element i depends on seed and i only). */
int hx_fill_uniform(struct hx *h, hx_dptr p, int64_t n, enum dtype dt,
                    uint64_t seed, float lo, float hi) KEVO_WUR;
/* dst[i] = (double)src[i] for n elements of dtype dt (exact). */
int hx_to_f64(struct hx *h, hx_dptr dst, hx_dptr src, int64_t n,
              enum dtype dt) KEVO_WUR;
/* Row-major fp64 GEMM C = A*B through cuBLAS; KEVO_ENODEV without it. */
int hx_dgemm(struct hx *h, int m, int n, int k, hx_dptr a, hx_dptr b,
             hx_dptr c) KEVO_WUR;
/* Row-major GEMM in dtype dt through cuBLAS (baseline). */
int hx_blas_gemm(struct hx *h, enum dtype dt, int m, int n, int k, hx_dptr a,
                 hx_dptr b, hx_dptr c) KEVO_WUR;

/* Enqueues one call of something to time (a baseline, a candidate). */
typedef int (*hx_call_fn)(struct hx *h, void *ud);
/* Times fn like a candidate (L2 flush before each repetition, adaptive
 * repetitions); the median in *median_ns. */
int hx_time(struct hx *h, hx_call_fn fn, void *ud, double *median_ns) KEVO_WUR;

/* Grid size for a grid-stride loop over n items with 256 threads. */
unsigned hx_grid(const struct hx *h, int64_t n);
const struct gpu_info *hx_info(const struct hx *h);
/* Derives an independent seed for stream k of seed. */
uint64_t hx_seed(uint64_t seed, uint64_t k);

/* ---------------- for the worker ---------------- */

struct gpu;
struct tmr;
struct blas;

/*
 * Creates the harness on g's current context and stream s. core_cubin is
 * the compiled hx_core_source(); prob_cubin the problem's harness (may be
 * NULL). blas may be NULL (then no cuBLAS reference/baseline). Borrows g,
 * t, blas; copies the cubins. *out is new; free with hx_free().
 */
int hx_new(struct gpu *g, void *stream, struct tmr *t, struct blas *blas,
           const void *core_cubin, const void *prob_cubin, struct hx **out,
           char *err, size_t errcap) KEVO_WUR;
void hx_free(struct hx *h);
/* CUDA source of the core harness kernels (static string). */
const char *hx_core_source(void);

/* Allocates the live buffers of problem p at shape s (inputs and outputs,
 * each between two 64 KiB guard regions), the L2 flush buffer (2x L2) and
 * the small result areas. Replaces a previous shape. The guard patterns
 * derive from secret (the harness seed), so a kernel cannot forge them. */
int hx_set_problem(struct hx *h, const struct problem *p, enum dtype dt,
                   const struct shape *s, uint64_t secret) KEVO_WUR;
const struct problem *hx_problem(const struct hx *h);
int hx_n_bufs(const struct hx *h);
const struct buf_desc *hx_desc(const struct hx *h, int i);
/* Bytes of workspace available at hx_workspace(); grows to bytes. */
int hx_workspace_reserve(struct hx *h, uint64_t bytes) KEVO_WUR;
hx_dptr hx_workspace(const struct hx *h);

/* Views: 0 = live buffers, 1 = pristine input copies (allocated as
 * scratch on first use). */
int hx_view_pristine(struct hx *h) KEVO_WUR;
void hx_view_live(struct hx *h);
/* Frees every scratch allocation (pristine copies, references). */
void hx_scratch_release(struct hx *h);

/* Fills every output with its dtype's NaN pattern. */
int hx_poison_outputs(struct hx *h) KEVO_WUR;
/* Fills n bytes at p with the 32-bit pattern (repeated). */
int hx_fill_pattern(struct hx *h, hx_dptr p, uint64_t n, uint32_t pattern) KEVO_WUR;
/* (Re)writes the guard patterns around every buffer. */
int hx_guards_fill(struct hx *h) KEVO_WUR;
/* Verifies the guards; *bad = 1 and a reason in why when any changed. */
int hx_guards_check(struct hx *h, int *bad, char *why, size_t whycap) KEVO_WUR;
/* Compares each live input bitwise with its pristine copy. */
int hx_inputs_check(struct hx *h, int *bad, char *why, size_t whycap) KEVO_WUR;

struct hx_cmp {
    int64_t n;          /* elements compared */
    int64_t bad;        /* elements outside tolerance (NaN counts) */
    int64_t nonfinite;  /* NaN/Inf outputs */
    int64_t first_bad;  /* flat index, -1 if none */
    int buf;            /* output buffer of first_bad */
    double got, want;   /* at first_bad */
    double max_abs;     /* over finite outputs */
    double max_rel;     /* |out-ref|/|ref| over finite outputs, ref != 0 */
    double tol;         /* tolerance at first_bad */
    double max_tol;     /* max |out-ref|/tolerance: how much was used */
};
/* Compares every output with the fp64 reference ref (outputs concatenated
 * in declared order) with that output's tolerance (problem_out_tolerance:
 * a PyTorch module's outputs each have their own): pass iff |out - ref| <=
 * atol + rtol*|ref| + etol*scale, scale the problem's error scale (same
 * layout as ref; 0 when the problem has none). */
int hx_compare(struct hx *h, hx_dptr ref, hx_dptr scale,
               struct hx_cmp *out) KEVO_WUR;
/* Elements of all outputs together. */
int64_t hx_out_elems(const struct hx *h);

/* Enqueues a 64-bit hash of all outputs into hash slot (0..HX_HASH_SLOTS). */
#define HX_HASH_SLOTS 160
int hx_hash_outputs(struct hx *h, int slot) KEVO_WUR;
/* Enqueues the same hash of the live input buffers (BUF_IN) into slot: a
 * fingerprint of what the candidate read. */
int hx_hash_inputs(struct hx *h, int slot) KEVO_WUR;
/* Zeroes the hash slots. */
int hx_hash_reset(struct hx *h) KEVO_WUR;
/* Reads n slots back (after a sync). */
int hx_hash_read(struct hx *h, int first, int n, uint64_t *out) KEVO_WUR;

/* Hashes n device ranges (any alignment, e.g. a module's globals) and
 * waits: out[i] = 64-bit hash of bytes[i] bytes at p[i]. */
#define HX_RANGE_BATCH 64
int hx_hash_ranges(struct hx *h, int n, const hx_dptr *p,
                   const uint64_t *bytes, uint64_t *out) KEVO_WUR;

/* Enqueues the L2 flush kernel (reads 2x L2 bytes). */
int hx_flush(struct hx *h) KEVO_WUR;
/* Synchronizes the stream; a failure is recorded in hx_cuda_rc. */
int hx_sync(struct hx *h) KEVO_WUR;

struct hx_time_opts {
    int warmup;           /* untimed launches first (0: the caller ran it
                             just before on the same inputs) */
    int min_reps;         /* at least, unless a stop below */
    int max_reps;         /* at most */
    double spread_stop;   /* stop when (p90-p10)/median below */
    double quick_spread;  /* > 0: stop after 3 reps when (max-min)/median
                             of the 3 is below */
    double cap_ns;        /* stop when timed GPU time exceeds */
    double cap_first;     /* ... or this many times the first rep */
    double best_ns;       /* > 0: racing against this time: stop after 1
                             rep, or after 3 by the median, when above */
    double cascade;       /* ... cascade * best_ns */
    double race_margin;   /* > 0 with best_ns: stop at min_reps when even
                             the fastest rep is above (1 + race_margin) *
                             best_ns: clearly no new best, and its median
                             of min_reps ranks it well enough (0: off) */
};
void hx_time_opts_default(struct hx_time_opts *o);

struct hx_time_stats {
    double median_ns, min_ns, spread;
    double first_ns;        /* the first timed repetition */
    int reps;
    int cascaded;           /* stopped early: clearly slower than best */
    int quick;              /* stopped after 3 reps of tiny spread */
    int raced;              /* stopped at min_reps: above race_margin */
    int kernels_per_rep;    /* timed kernels seen per rep (0: events) */
    int collects;           /* syncs + record collections */
    double collect_ms;      /* host time in them (incl. waiting for the
                               GPU) */
};

/* Enqueues untimed per-repetition work: pre = 1 before the flush, 0 after
 * the timed call (e.g. poison outputs / hash them into slot rep). */
typedef int (*hx_rep_fn)(struct hx *h, void *ud, int rep, int pre);

/* The timing loop: warm-up, then reps of [hook pre, flush, begin, fn,
 * end, hook post], collected every 5 (first after 3 for the cascade). */
int hx_time_loop(struct hx *h, const struct hx_time_opts *o, hx_call_fn fn,
                 hx_rep_fn hook, void *ud, struct hx_time_stats *st) KEVO_WUR;

/* hx_time_loop's stopping rule, after each collect: v[0..n) are the rep
 * times so far (ns, in order), total their sum, st their summary (median,
 * min, spread). Returns HX_GO to take more reps, else why it stops, and
 * sets st->cascaded / quick / raced for the rules that say so. */
enum hx_stop {
    HX_GO,
    HX_STOP_CASCADE, /* above cascade * best_ns after 1 or 3 reps */
    HX_STOP_QUICK,   /* 3 reps within quick_spread */
    HX_STOP_SPREAD,  /* min_reps reached and spread below spread_stop */
    HX_STOP_RACED,   /* min_reps reached, fastest rep above race_margin */
    HX_STOP_CAP,     /* timed GPU time above cap_ns or cap_first */
    HX_STOP_MAX      /* max_reps */
};
enum hx_stop hx_time_stop(const struct hx_time_opts *o, const double *v,
                          int n, double total, struct hx_time_stats *st);

/* Interleaved A/B: n_pairs of (flush, a, flush, b), the order alternating
 * pair by pair (ABBA) so position effects cancel; per-pair times. */
int hx_time_pairs(struct hx *h, int n_pairs, hx_call_fn a, void *ua,
                  hx_call_fn b, void *ub, double *ta, double *tb) KEVO_WUR;

/* Pairs the next hx_time(): instead of timing its function alone, it
 * times fn/ud against it in n_pairs interleaved pairs (hx_time_pairs,
 * fn first), writes the per-pair times to t_fn and t_other, and the
 * pairing ends. So a candidate is timed against a problem's first
 * baseline (whose baseline() calls hx_time) under the same conditions,
 * launch by launch. hx_pair_used says whether that happened. */
void hx_pair_next(struct hx *h, hx_call_fn fn, void *ud, int n_pairs,
                  double *t_fn, double *t_other);
int hx_pair_used(const struct hx *h);

/* Tells the coordinator a phase started that may take up to budget_ms
 * (more than its usual budget, e.g. a torch.compile; 0: the usual), so
 * its watchdog waits that long. The worker sets the sink; without one a
 * no-op. */
void hx_progress(struct hx *h, const char *phase, int budget_ms);
typedef void (*hx_progress_fn)(void *ud, const char *phase, int budget_ms);
void hx_set_progress(struct hx *h, hx_progress_fn fn, void *ud);

struct tmr *hx_tmr(const struct hx *h);
void *hx_stream(const struct hx *h);
const char *hx_errmsg(const struct hx *h);
int hx_cuda_rc(const struct hx *h);
/* Sets the reason (printf style) and returns rc. */
int hx_fail(struct hx *h, int rc, const char *fmt, ...) KEVO_PRINTF(3, 4);
/* Clears the last CUDA error state (before a new candidate). */
void hx_clear_error(struct hx *h);

/* Sorted-sample helpers shared with the worker: p-quantile (0..1) of
 * sorted v[0..n) with linear interpolation. */
double hx_quantile(const double *sorted, int n, double p);

#endif
