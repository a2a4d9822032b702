/*
 * problem.h - what a problem (GEMM, softmax, ...) declares so that the
 * engine, the compiler and the GPU evaluator can work on it without naming
 * it. One `const struct problem` per built-in problem in fitness/, handed
 * to the registry (probreg.h, included at the end for its many callers) at
 * start-up; .problem files are parsed in core (probfile.c). Nothing in src/
 * names a problem.
 *
 * Every candidate kernel of a problem implements the problem's ABI: its
 * arguments are the problem's buffers in declared order (inputs const),
 * then each size as `int`, then `void *ws` (workspace, NULL when the launch
 * plan declares none). The element type is `elem_t`, defined by the
 * problem's prelude for the run's dtype.
 */
#ifndef KEVO_PROBLEM_H
#define KEVO_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* DTYPE_COUNT counts the run dtypes (elem_t); the integer and bool ones
 * after it are element types of single buffers only (PyTorch problems:
 * targets, masks, argmax outputs), never a run's dtype. */
enum dtype {
    DTYPE_FP32, DTYPE_FP16, DTYPE_BF16, DTYPE_COUNT,
    DTYPE_I32 = DTYPE_COUNT, DTYPE_I64, DTYPE_BOOL, DTYPE_ALL
};

/* "fp32", "fp16", "bf16", "int32", "int64", "bool". */
const char *dtype_name(enum dtype dt);
/* Parses a run dtype name (fp32, fp16, bf16); returns 0 or -1 if s names
 * none. */
int dtype_parse(const char *s, enum dtype *out);
/* Bytes per element. */
size_t dtype_size(enum dtype dt);

/* raised from 4 and 6 for PyTorch modules (3-D convolutions, BatchNorm
 * with its running statistics) */
#define PROB_MAX_DIMS 8
#define PROB_MAX_BUFS 16

struct shape {
    int n_dims;                    /* == problem->n_dims */
    int64_t d[PROB_MAX_DIMS];      /* sizes, in problem->dim_names order */
};

/* BUF_INOUT: read and overwritten in place: its inputs are generated and
 * its pristine copy kept like an input's, it is compared and hashed like an
 * output, never poisoned and not checksummed. */
enum buf_role { BUF_IN, BUF_OUT, BUF_INOUT };

struct buf_desc {
    const char *name;  /* as in the ABI, e.g. "A" */
    enum buf_role role;
    int64_t n_elems;   /* elements of dtype */
    enum dtype dtype;  /* element type of this buffer */
    int64_t rows, cols; /* row-major 2-D shape (rows * cols == n_elems),
                           for tensor maps; 0, 0 = a flat buffer */
};

#define PROB_MAX_BASELINES 4
struct baseline_result {
    int n;
    const char *name[PROB_MAX_BASELINES]; /* "cublas", "copy", "naive" */
    double median_ns[PROB_MAX_BASELINES]; /* median time of one call */
    double fitness[PROB_MAX_BASELINES];   /* work / median, same unit */
    double wall_ns[PROB_MAX_BASELINES];   /* (optional) CUDA events around
                                             one call, launch overhead
                                             included; 0: not measured */
    char note[256];                       /* (optional) what a baseline
                                             could not do, for people: "compile
                                             skipped: ..."; "" */
    /* (optional) a tolerance baseline() established (PyTorch problems
     * calibrate it): the problem's tolerance() returns it from then on */
    double tol_used;       /* the worst error of the trusted run-dtype
                              implementation / the tolerance; 0: none */
    double tol_margin;     /* the tolerance / that worst error's part */
    int tol_given;         /* 1: set by the user, only checked */
    const char *tol_who;   /* whose run-dtype result: "torch"; NULL */
};

/* One output's tolerance: an element passes when |out - ref| <= atol +
 * rtol * |ref| (problem->out_tolerance). */
struct out_tol {
    double atol, rtol;
    double used;          /* the trusted run-dtype implementation's worst
                             error / this tolerance; 0: unknown */
    const char *source;   /* "calibrated", "given" (by the user), "exact"
                             (integer and bool outputs) or "dtype" (by
                             dtype, or a guess before calibration) */
    const char *note;     /* how it was set, one line for people and the
                             LLM prompts ("calibrated: torch's own fp32
                             result uses 0.06 of it, margin 16x"); "" for
                             none. source and note are static or owned by
                             the problem, valid until its tolerance is set
                             again */
};

struct hx; /* GPU harness context, see hx.h; only valid inside the worker */
struct problem_kind; /* probreg.h */

struct problem {
    const char *name;     /* "gemm" */
    const char *summary;  /* one line for `kevo list` */
    const char *abi;      /* the kernel signature, as text for people/LLMs */
    const char *work_unit; /* "FLOP/s" or "B/s": what fitness counts */
    /* (optional) A small shape whose baselines `kevo doctor` measures
     * through a real worker, e.g. "2048x2048x2048"; NULL: none. */
    const char *doctor_shape;
    int n_dims;
    const char *dim_names[PROB_MAX_DIMS]; /* "M","N","K"; usable in exprs */
    unsigned dtype_mask;  /* 1u << DTYPE_x for each supported dtype */

    /* Source placed before every candidate for dtype dt: typedef of
     * elem_t, includes, conversion helpers. Static string. */
    const char *(*prelude)(const struct problem *p, enum dtype dt);
    /* Fills out[] with the buffers of shape s; returns their count. */
    int (*buffers)(const struct problem *p, const struct shape *s,
                   enum dtype dt, struct buf_desc *out);
    /* Work done by one call: FLOPs (compute-bound problems) or minimum
     * bytes moved (memory-bound ones); fitness = work / median time. */
    double (*work)(const struct problem *p, const struct shape *s,
                   enum dtype dt);
    double (*flops)(const struct problem *p, const struct shape *s,
                    enum dtype dt);
    double (*min_bytes)(const struct problem *p, const struct shape *s,
                        enum dtype dt);
    /* Tolerance for shape s and dtype dt: an output element passes when
     * |out - ref| <= atol + rtol * |ref| + etol * scale (NaN/Inf never
     * pass); etol and scale only for problems with error_tol. */
    void (*tolerance)(const struct problem *p, const struct shape *s,
                      enum dtype dt, double *atol, double *rtol);
    /* (optional) Output k's own tolerance (k counts the buffers that are
     * not BUF_IN, in declared order), for problems whose outputs differ
     * in scale or kind: a PyTorch module returning a long sum and a max,
     * or values and int64 indices, gets one per output. tolerance() then
     * answers for output 0 only. NULL: tolerance() holds for every
     * output. Use problem_out_tolerance(), which falls back. */
    void (*out_tolerance)(const struct problem *p, const struct shape *s,
                          enum dtype dt, int k, struct out_tol *out);
    /* (optional) etol: the coefficient of the per-element error scale
     * that reference() writes (GEMM: a bound of sum_k |a_ik b_kj|, the
     * scale of fp32 accumulation error). NULL: no error scale. */
    double (*error_tol)(const struct problem *p, const struct shape *s,
                        enum dtype dt);
    /* Checks a shape; writes a reason and returns KEVO_EINVAL if bad.
     * Sizes reach kernels as int, so every size is < 2^31 (the shape
     * parser's limit); how much fits is decided by the GPU's free memory
     * (problem_mem_need), not here. */
    int (*check_shape)(const struct problem *p, const struct shape *s,
                       char *err, size_t errcap);
    /* (optional) Device scratch bytes reference() allocates besides the
     * reference and error scale (GEMM: fp64 copies of A and B). */
    double (*ref_scratch_bytes)(const struct problem *p,
                                const struct shape *s, enum dtype dt);

    /* ---- GPU side: called inside the worker process only. ---- */
    /* CUDA source of the problem's own harness kernels (input generators,
     * fp64 reference), compiled once per worker; may be NULL. */
    const char *harness_src;
    /* Fills the input buffers bufs[i] (device) with fresh random data
     * drawn from seed; never zeros. */
    int (*gen_inputs)(const struct problem *p, struct hx *h,
                      const struct shape *s, enum dtype dt, uint64_t seed);
    /* Computes the fp64 reference of the current (pristine) inputs into
     * the device array ref (one double per output element, outputs in
     * declared order) and, when the problem has error_tol, the error
     * scale of each element into scale_dev (same layout; NULL
     * otherwise). */
    int (*reference)(const struct problem *p, struct hx *h,
                     const struct shape *s, enum dtype dt, double *ref_dev,
                     double *scale_dev);
    /* Measures the problem's baselines (optional). Fills names/values. */
    int (*baseline)(const struct problem *p, struct hx *h,
                    const struct shape *s, enum dtype dt,
                    struct baseline_result *out);

    /* ---- problems read from a file only (probfile.c); NULL for the
     * built-in ones. ---- */
    const struct problem_kind *kind; /* set by the registry (probreg.h) */
    const char *description;   /* what it computes, for prompts */
    const char *reference_src; /* the fp64 reference, CUDA */
    const char *file_path;     /* the .problem file it was read from */
    const char *file_text;     /* its exact text (copied into run dirs) */
    /* (optional) how tolerance() was set, one line for people and the LLM
     * prompts, e.g. "calibrated: torch's own fp32 result uses 0.06 of
     * it, margin 16x"; NULL: by dtype, written in the problem */
    const char *tolerance_note;
    /* (optional) What loading file_text derived by running it (a PyTorch
     * module's description, JSON): run directories keep it, so commands
     * that evaluate nothing rebuild the problem without running the file
     * (probreg.h problem_load_record); NULL: nothing ran. */
    const char *file_record;
};

/* Output k's tolerance (k counts the outputs, see out_tolerance):
 * p->out_tolerance's, else tolerance()'s with source "given" when p has
 * a tolerance_note (its note), "dtype" otherwise. */
void problem_out_tolerance(const struct problem *p, const struct shape *s,
                           enum dtype dt, int k, struct out_tol *out);
/* The outputs (buffers that are not BUF_IN) of p at s and dt: their
 * count, and their names into names[] (borrowed from p; may be NULL). */
int problem_outputs(const struct problem *p, const struct shape *s,
                    enum dtype dt, const char **names);

/* The usual prelude: elem_t as float, __half or __nv_bfloat16, with
 * TO_F32 / FROM_F32 conversions (for problem->prelude). */
const char *problem_prelude_std(const struct problem *p, enum dtype dt);
/* Parses "4096x4096x4096" for problem p; writes a reason on error. */
int problem_parse_shape(const struct problem *p, const char *text,
                        struct shape *out, char *err, size_t errcap) KEVO_WUR;
/* Applies "NAME=VALUE" (--set) to shape s of problem p: the size named
 * NAME becomes VALUE (1 to 2^31-1). Writes "--set: ..." and returns
 * KEVO_EINVAL for a malformed pair or a name that is not one of p's
 * sizes (listing them). */
int problem_shape_set(const struct problem *p, struct shape *s,
                      const char *assign, char *err, size_t errcap) KEVO_WUR;
/* The shape a problem has without --shape: a PyTorch module's own sizes
 * (its doctor_shape); NULL for every other kind (a shape is required). */
const char *problem_default_shape(const struct problem *p);
/* Formats a shape as "4096x4096x4096" into out[cap]. */
void problem_format_shape(const struct shape *s, char *out, size_t cap);

/* Largest element count of one buffer check_shape accepts: 2^48 (no GPU
 * holds that; byte counts, x8 for fp64 references, stay far from 64-bit
 * overflow). */
#define PROB_MAX_BUF_ELEMS (1LL << 48)
/* Checks every buffer of shape s against PROB_MAX_BUF_ELEMS (for
 * check_shape); writes a reason and returns KEVO_EINVAL if one is over. */
int problem_check_buffers(const struct problem *p, const struct shape *s,
                          char *err, size_t errcap) KEVO_WUR;

/*
 * The speed-of-light floor of one call: the time no correct kernel can
 * beat. Compute: flops / peak_flops. Memory: only the DRAM traffic that
 * must happen between the first kernel's start and the last one's end.
 * The harness's L2 flush READS 2x L2 before every repetition, so every
 * input byte comes from DRAM; outputs are written into L2 and up to
 * l2_bytes of them may still be dirty there when the kernel ends (their
 * write-back falls after the timed window), so only outputs beyond the
 * L2 size must reach DRAM inside it. Pure: no GPU needed.
 */
struct sol_floor {
    double ns;              /* max(flops_ns, bytes_ns) */
    double flops_ns;        /* flops / peak_flops */
    double bytes_ns;        /* (in_bytes + out_dram_bytes) / peak_bw */
    double in_bytes;        /* inputs: read from DRAM after the flush */
    double out_bytes;       /* all outputs */
    double out_dram_bytes;  /* outputs that cannot stay in L2:
                               max(0, out_bytes - l2_bytes) */
    double l2_bytes;        /* the GPU's L2 size */
    double all_bytes_ns;    /* (in_bytes + out_bytes) / peak_bw: faster
                               than this = some output stayed in L2 */
};
void problem_floor(const struct problem *p, const struct shape *s,
                   enum dtype dt, double peak_flops, double peak_bw,
                   double l2_bytes, struct sol_floor *out);

/*
 * Device memory the worker needs for problem p at shape s (workspace
 * excluded: it is per candidate, and a workspace that does not fit is the
 * candidate's compile_error). Pure: no GPU needed.
 */
struct mem_need {
    double inputs;          /* live input buffers */
    double outputs;         /* live output buffers */
    double guards;          /* 2 x 64 KiB around each buffer */
    double pristine;        /* scratch copies of the inputs (checks) */
    double reference;       /* fp64 reference, + fp64 error scale */
    double ref_scratch;     /* problem->ref_scratch_bytes */
    double flush;           /* L2 flush buffer: 2x L2, >= 64 MiB */
    double slack;           /* harness kernels, cuBLAS workspace, results */
    double total;
};
void problem_mem_need(const struct problem *p, const struct shape *s,
                      enum dtype dt, double l2_bytes, struct mem_need *out);
/* "needs N bytes of GPU memory (inputs ..., ...), only F free" when
 * free_bytes < need->total: writes it and returns KEVO_ENOMEM. */
int problem_mem_check(const struct mem_need *need, double free_bytes,
                      char *err, size_t errcap) KEVO_WUR;

/* the registry: problem_find, problem_load_file, ... */
#include "probreg.h"

#endif
