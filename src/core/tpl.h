/*
 * tpl.h - kernel templates: a CUDA source plus its declared parameter space,
 * constraints, shape requirements and launch plan.
 *
 * A template is a .cu file whose directives are line comments starting with
 * "// kevo:" (anywhere in the file, usually at the top):
 *
 *   // kevo: problem gemm                 problem it solves (required)
 *   // kevo: dtypes fp32 fp16             dtypes it supports (required)
 *   // kevo: param BM 32 64 128 default=64   a tunable: name, allowed values
 *   // kevo: constraint (BM/TM)*(BN/TN) <= 1024   must hold for a valid point
 *   // kevo: requires K % BK == 0         the shapes it supports (may use
 *                                          params and the problem's sizes)
 *   // kevo: launch sgemm_main            starts a launch of kernel
 *                                          sgemm_main; launches run in order
 *   // kevo: grid cdiv(N, BN), cdiv(M, BM)     1-3 expressions (default 1)
 *   // kevo: block (BM/TM)*(BN/TN)             1-3 expressions
 *   // kevo: smem 0                        dynamic shared memory, bytes
 *   // kevo: cluster 2, 1, 1               (optional) cluster dims
 *   // kevo: pdl                           (optional, not on the first
 *                                          launch) programmatic dependent
 *                                          launch: see below
 *   // kevo: workspace M*N*4               (optional) bytes of workspace
 *   // kevo: nondeterministic              (optional) output bits may vary
 *                                          run to run (atomics)
 *   // kevo: tensormap tmA A BK, BM swizzle=128   (optional) a TMA tensor
 *                                          map of buffer A (see below)
 *   // kevo: fact FULL M % BM == 0        (optional) a shape fact: the
 *                                          source gets "#define FULL v",
 *                                          v the expression's value at
 *                                          the run's shape (see below)
 *   // kevo: arg group_m GROUP_M          (optional) a kernel argument:
 *                                          an int computed at launch
 *                                          (see below)
 *   // kevo: provenance run runs/x         (optional, any number) KEY
 *                                          VALUE: where a template that
 *                                          kevo promote took from a run
 *                                          comes from; no effect on it
 *
 * tensormap NAME BUFFER INNER, OUTER [swizzle=128|64|32|none] [l2=EXPR]: the
 * harness encodes a 2-D tiled tensor map (cuTensorMapEncodeTiled) of the
 * problem's 2-D buffer BUFFER (row-major rows x cols, from the problem's
 * buffer shapes; out-of-bounds boxes read zeros and stores are clipped),
 * with a box of INNER (along cols, contiguous) x OUTER (along rows)
 * elements, each expression in [1, 256], and the given shared-memory
 * swizzle (default none). l2=EXPR (one word, no spaces; parameters and
 * sizes allowed, e.g. l2=L2P) is the map's L2 promotion in bytes: 0
 * (none), 64, 128 or 256 (default 256). Each map is passed by value
 * after `void *ws`, in declaration order, to every launch: declare it
 * `const __grid_constant__ T NAME` with T a 64-byte aligned 128-byte
 * struct (CUtensorMap's layout; NVRTC has no cuda.h). Shapes whose rows
 * are not a multiple of 16 bytes, or boxes whose inner bytes are not a
 * multiple of 16 (or exceed the swizzle span) are unsupported.
 * pdl: the launch gets CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
 * so it may start before the launch in front of it has finished (once
 * every block of that one has run "griddepcontrol.launch_dependents;" or
 * exited). Before reading anything the launch in front wrote, its kernel
 * must run "griddepcontrol.wait;" (which waits for that launch to
 * complete and its writes to be visible). The first launch of a template
 * cannot have it: in front of it is the harness's L2 flush, and the
 * timing starts at the first launch. A kernel that reads too early is
 * wrong, and the checks say so; the time still runs from the first
 * launch's start to the last one's end.
 * fact NAME EXPR: EXPR (params and sizes; no device facts) is evaluated for
 * the shape at instantiation and its value #defined as NAME, so the code can
 * leave out the paths the shape never takes (e.g. the unaligned variants of
 * a main loop: NVRTC's time grows with every instantiated path). The
 * source, and so the compile, is then specific to shapes with the same
 * values: the exported launchers check them and refuse other shapes.
 * arg NAME EXPR: an int kernel argument. The harness evaluates EXPR
 * (params, sizes and device facts, like a grid expression; the value must
 * fit in an int) and passes it by value after the tensor maps (or after
 * ws), in declaration order, to every launch: declare it `int NAME` where
 * the kernel reads it (a kernel that does not may leave it and the ones
 * after it out). A param that only args, grids and other directives name
 * (no code) is launch-only: points that differ only in such params are one
 * source and one compile. So a tunable the code can take at run time
 * (a rasterization width, a split count) costs no compile per value.
 * Expressions (expr.h) may use the params, the problem's size names, and
 * the device facts SMS (multiprocessors), SMEM_OPTIN (max dynamic shared
 * memory per block, bytes) and L2_BYTES.
 *
 * Instantiation yields plain CUDA C++: the problem's prelude for the dtype,
 * one "#define NAME value" per parameter, then the template text.
 */
#ifndef KEVO_TPL_H
#define KEVO_TPL_H

#include <stddef.h>
#include <stdint.h>

#include "expr.h"
#include "problem.h"
#include "status.h"

#define TPL_MAX_PARAMS 24
#define TPL_MAX_VALUES 32
#define TPL_MAX_LAUNCHES 4
#define TPL_MAX_CONSTRAINTS 32
#define TPL_NAME_MAX 64
#define TPL_MAX_TMAPS 4
#define TPL_MAX_FACTS 8
#define TPL_MAX_ARGS 4

/* Device facts usable in expressions, appended after params and sizes. */
#define TPL_N_DEVICE_VARS 3
struct tpl_device {
    int64_t sms;        /* SMS */
    int64_t smem_optin; /* SMEM_OPTIN */
    int64_t l2_bytes;   /* L2_BYTES */
};
/* The H100 facts, used when no GPU is present (e.g. counting spaces).
 * Every function below that takes a dev accepts NULL for these. */
extern const struct tpl_device tpl_device_default;

struct tpl_param {
    char name[32];
    int n_values;
    int64_t values[TPL_MAX_VALUES]; /* in declared order (a "neighbour" is
                                       the previous or next entry) */
    int def;                        /* index of the default value */
    int launch_only;                /* 1: no code names it (only the
                                       directives' expressions do): the
                                       instantiated source carries no
                                       #define of it, so points that differ
                                       only in such params compile once */
};

struct tpl_cond {
    struct expr *e; /* nonzero = holds */
    int line;       /* 1-based line in the template file */
};

struct tpl_launch {
    char kernel[64];        /* extern "C" __global__ function name */
    struct expr *grid[3];   /* NULL = 1 */
    struct expr *block[3];  /* NULL = 1 */
    struct expr *smem;      /* NULL = 0 */
    struct expr *cluster[3];/* NULL = no cluster attribute */
    int pdl;                /* programmatic dependent launch */
    int line;
};

/* A "tensormap" directive. */
struct tpl_tmap {
    char name[32];       /* kernel argument name (for messages) */
    int buf;             /* index in the problem's buffers() */
    struct expr *box[2]; /* inner (contiguous) and outer box, elements */
    int swizzle;         /* bytes: 0 (none), 32, 64 or 128 */
    struct expr *l2;     /* L2 promotion, bytes (NULL: 256) */
    int line;
};

/* A "fact" directive. */
struct tpl_fact {
    char name[32];
    struct expr *e; /* params and sizes */
    int line;
};

/* An "arg" directive. */
struct tpl_arg {
    char name[32];  /* the kernel parameter's name */
    struct expr *e; /* params, sizes and device facts */
    int line;
};

struct tpl {
    char name[TPL_NAME_MAX]; /* file name without .cu, e.g. "sgemm_tiled" */
    char path[512];          /* where it was loaded from ("" if text) */
    char problem[32];
    unsigned dtype_mask;     /* 1u << DTYPE_x */
    char *text;              /* the file text, owned */
    uint64_t hash;           /* hash_final of text */
    int n_params;
    struct tpl_param params[TPL_MAX_PARAMS];
    int n_constraints;
    struct tpl_cond constraints[TPL_MAX_CONSTRAINTS];
    int n_requires;
    struct tpl_cond requires_[TPL_MAX_CONSTRAINTS];
    int n_launches;
    struct tpl_launch launches[TPL_MAX_LAUNCHES];
    struct expr *workspace;  /* NULL = none */
    int nondeterministic;
    int n_tmaps;             /* tensor maps, passed after ws in order */
    struct tpl_tmap tmaps[TPL_MAX_TMAPS];
    int n_facts;             /* shape facts, #defined in declaration order */
    struct tpl_fact facts[TPL_MAX_FACTS];
    int n_args;              /* int kernel arguments, after the maps */
    struct tpl_arg args[TPL_MAX_ARGS];
    /* Variable table for expressions: params, then the problem's sizes,
     * then SMS, SMEM_OPTIN, L2_BYTES. */
    int n_vars;
    const char *var_names[TPL_MAX_PARAMS + PROB_MAX_DIMS + TPL_N_DEVICE_VARS];
};

/*
 * Parses a template from text. name is used in messages and as tpl->name;
 * path (may be NULL) is recorded and used in messages. The "problem"
 * directive is looked up in the registry (problem_find) and must come
 * before any param or expression directive; its sizes resolve the size
 * names. On error returns KEVO_EPARSE with "<path>:<line>: <what>" in
 * err[errcap] (line 1 for a missing directive). Errors: unknown directive,
 * missing problem/dtypes/launch, unknown dtype, bad value list, values not
 * distinct, duplicate param, a param named like a size or device fact,
 * default not in values, more than TPL_MAX_* items, expression errors, a
 * constraint that uses a size (that is what "requires" is for), grid/block/
 * smem/cluster before any launch, a default point that violates a
 * constraint (reported at the constraint's line), a launch kernel not
 * defined as extern "C" __global__ in the text, a param never used (as a
 * whole word) in the text outside directives nor in an expression, a
 * "provenance" line without a KEY (a name) and a VALUE, a fact named like
 * a param, size, device fact or another fact, or using a device fact, or
 * never used in the text, an arg named like a param, size, device fact,
 * fact, tensor map or another arg, or never used in the text, or whose
 * value at the default point is not an int.
 * Checks the default point against tpl_device_default.
 * On success *out is a new template; free with tpl_free().
 */
int tpl_parse(const char *name, const char *path, const char *text,
              struct tpl **out, char *err, size_t errcap) KEVO_WUR;
/* Reads and parses a file; name = basename without ".cu". A missing file
 * is KEVO_ENOENT with "cannot read '<path>': ..." in err. */
int tpl_load(const char *path, struct tpl **out, char *err,
             size_t errcap) KEVO_WUR;
/* Loads every templates/<problem>/<name>.cu under dir (sorted by path) into a
 * new array *out of *n (caller frees each with tpl_free, then the array).
 * Stops at the first bad template with its error; a template whose problem
 * differs from its folder name is an error. No templates: KEVO_OK, *n = 0;
 * dir missing: KEVO_ENOENT. */
int tpl_load_dir(const char *dir, struct tpl ***out, int *n, char *err,
                 size_t errcap) KEVO_WUR;
/* The same for every dir/<name>.cu, whatever their problems (the
 * templates next to a user problem's file). */
int tpl_load_flat(const char *dir, struct tpl ***out, int *n, char *err,
                  size_t errcap) KEVO_WUR;
void tpl_free(struct tpl *t);

struct launch_plan;

/* Fills vals[0..n_params) with the default point. */
void tpl_default_point(const struct tpl *t, int64_t *vals);
/* 1 if vals satisfies every constraint (and every value is allowed). */
int tpl_point_valid(const struct tpl *t, const int64_t *vals,
                    const struct tpl_device *dev);
/* Prepares the template for shape s at point vals: KEVO_OK if it supports
 * them - dtype is in its mask, every "requires" holds, the launch plan
 * evaluates to sane positive dims and every tensor map can be encoded
 * (16-byte row strides, 16-byte box rows within the swizzle span), every
 * fact evaluates - with
 * the launch plan in *plan (may be NULL); else KEVO_EINVAL with the reason
 * in why[whycap] (whycap 0: no reason formatted; the search's checks of
 * many points). The one check every user of a candidate makes. */
int tpl_prepare(const struct tpl *t, const int64_t *vals, enum dtype dt,
                const struct shape *s, const struct tpl_device *dev,
                struct launch_plan *plan, char *why, size_t whycap) KEVO_WUR;
/* Index of value v in param i, or -1. */
int tpl_value_index(const struct tpl *t, int i, int64_t v);
/* Applies "NAME=VALUE" (VALUE as strtoll base 0) to vals: the index of
 * the param set, or -1 if t has no param NAME or the text has no '='.
 * The value is not checked (tpl_point_valid does that). */
int tpl_set_param(const struct tpl *t, int64_t *vals, const char *assign);
/* Number of valid points (constraints only, not shape), counted by
 * enumeration; stops at limit and returns limit if the space is larger. */
uint64_t tpl_space_size(const struct tpl *t, const struct tpl_device *dev,
                        uint64_t limit);
/* tpl_space_size bounded in work as well: stops after max_steps nodes of
 * the search tree; *complete (may be NULL) = 1 if the count is exact, 0 if
 * it stopped at either bound (then the count is a lower bound). */
uint64_t tpl_space_count(const struct tpl *t, const struct tpl_device *dev,
                         uint64_t limit, uint64_t max_steps, int *complete);
/* Product of the value-list lengths (the unconstrained space). */
double tpl_space_raw(const struct tpl *t);

/* Evaluated launch plan. */
struct launch_dims {
    char kernel[64];
    uint32_t grid[3], block[3], cluster[3]; /* cluster all 0 = none */
    uint32_t smem_bytes;
    uint32_t pdl; /* 1: programmatic stream serialization */
};
/* Evaluated tensor map: the worker encodes it for the live buffer. */
struct tmap_plan {
    int buf;         /* buffer index */
    uint32_t box[2]; /* inner, outer, elements */
    int swizzle;     /* bytes, 0 = none */
    int l2;          /* L2 promotion, bytes: 0 (none), 64, 128 or 256 */
};
struct launch_plan {
    int n;
    struct launch_dims l[TPL_MAX_LAUNCHES];
    uint64_t workspace_bytes;
    int n_tmaps;
    struct tmap_plan tm[TPL_MAX_TMAPS];
    int n_args;
    int32_t args[TPL_MAX_ARGS]; /* the "arg" values, in order */
};
/* Evaluates the launch plan at vals for shape s; KEVO_EINVAL with a reason
 * if an expression fails or gives a non-positive or too large dim. Limits:
 * grid x in [1, 2^31-1], y and z in [1, 65535]; block x, y in [1, 1024],
 * z in [1, 64], at most 1024 threads; smem in [0, SMEM_OPTIN]; cluster
 * dims >= 1, at most 16 blocks, each dividing the grid's; workspace >= 0;
 * tensor map boxes in [1, 256]; args within int. */
int tpl_plan(const struct tpl *t, const int64_t *vals, const struct shape *s,
             const struct tpl_device *dev, struct launch_plan *out,
             char *err, size_t errcap) KEVO_WUR;

/* Values of the facts at vals for shape s into out[0..n_facts): KEVO_OK,
 * or KEVO_EINVAL with "fact 'NAME = EXPR' cannot be evaluated for SHAPE"
 * in why[whycap]. */
int tpl_facts(const struct tpl *t, const int64_t *vals, const struct shape *s,
              int64_t *out, char *why, size_t whycap);

/*
 * Returns plain CUDA source: "// kevo: <name> <params>" header line (the
 * compiled params: points that differ only in launch-only ones are one
 * source, one file and one compile), the problem prelude for dt, "#define P v" per param (but launch-only ones),
 * "#define F v" per fact at shape s, then t->text with a "#line 1"
 * directive so compiler messages point into the template. New string;
 * caller frees. NULL when out of memory or when a fact cannot be evaluated
 * for s (tpl_prepare refuses such a shape first). s may be NULL only for
 * a template without facts.
 */
char *tpl_instantiate(const struct tpl *t, const int64_t *vals,
                      enum dtype dt, const struct shape *s);
/* tpl_instantiate with the first line of a run's spec (spec
 * "source_header"): 1 names the compiled params only (tpl_instantiate);
 * 0 names every param, as runs recorded before 2026-11-29 did, so their
 * replays, resumes and verifies give the sources they recorded. */
char *tpl_instantiate_hdr(const struct tpl *t, const int64_t *vals,
                          enum dtype dt, const struct shape *s,
                          int compiled_only);

#endif
