/*
 * torchprob.h - the PyTorch problem kind shared by its two halves in
 * fitness/: torchprob.c (parse a KernelBench file through the Python
 * helper; CPU hooks) and torchprob_gpu.c (the worker's hooks, through an
 * embedded CPython), and src/cli/export_torch.c (the torch export reads a
 * run's buffers, ranks and module state from struct tprob).
 */
#ifndef KEVO_TORCHPROB_H
#define KEVO_TORCHPROB_H

#include <stdint.h>

#include "probreg.h"
#include "problem.h"

#define TP_NAME_MAX 64
#define TP_MAX_RANK 8

enum tp_dtype { TP_FLOAT, TP_INT32, TP_INT64, TP_BOOL };

/* One dim: num/den * product of the sizes use[] (a literal when none). */
struct tp_dim {
    int n_use;               /* sizes in the product */
    int use[PROB_MAX_DIMS];  /* size indices */
    int64_t num, den;        /* the fraction, den >= 1 */
};

struct tp_buf {
    char name[TP_NAME_MAX];  /* ABI name: forward's argument, fc_weight */
    char state[TP_NAME_MAX]; /* the module's parameter/buffer name; "" */
    enum buf_role role;      /* BUF_IN (inputs, state) or BUF_OUT */
    enum tp_dtype dtype;     /* float takes the run dtype */
    int rank;                /* 0: a scalar tensor */
    struct tp_dim dims[TP_MAX_RANK];
};

/* One output's tolerance (torchtol.c): calibrated in the worker, given
 * by KEVO_TORCH_ATOL/RTOL, exact for integer and bool outputs, adopted
 * from the worker or a manifest by the coordinator; a per-dtype guess
 * before any of that. */
struct tp_tol {
    int set;                 /* atol/rtol below hold */
    int given;               /* by KEVO_TORCH_ATOL/RTOL */
    double atol, rtol;
    double used;             /* torch's own worst error / this; 0 unknown */
    char source[16];         /* struct out_tol's */
    char note[256];          /* struct out_tol's */
};

/* A parsed module; p first, so a struct problem * is a struct tprob *. */
struct tprob {
    struct problem p;
    char name[TP_NAME_MAX];                 /* the file's stem */
    char dim_names[PROB_MAX_DIMS][TP_NAME_MAX]; /* the size constants */
    struct shape file_shape;                /* their values in the file */
    char shape_text[128];                   /* file_shape as "AxB" */
    int n_bufs;
    struct tp_buf bufs[PROB_MAX_BUFS];      /* in ABI order */
    double flops;                           /* torch's count, file sizes */
    int n_out;                              /* outputs among bufs[] */
    struct tp_tol tol[PROB_MAX_BUFS];       /* output k's tolerance */
    int calibrated;                         /* the worker's calibration ran
                                               (once per worker) */
    int prepared;                           /* baselines built (once) */
    int compiled;                           /* torch.compile: 1 timed, 0
                                               off, -1 failed, -2 over the
                                               limit */
    char base_note[256];                    /* why compile was skipped */
    char *abi, *path, *text;                /* owned */
    char *record;                           /* owned: the description
                                               JSON it was built from */
};

extern const struct problem_kind torchprob_kind;
extern const struct problem_gpu torchprob_gpu;

/* Reads a module's description (JSON the helper's describe wrote, or a
 * run directory's record of it) into t's sizes, buffers and flops, checking
 * every field (torchdesc.c); path names it in messages: "path: field:
 * what". Runs nothing. KEVO_EPARSE on a bad description. */
int tp_desc_read(const char *path, const char *json, struct tprob *t,
                 char *err, size_t errcap);

/* ---- per-output tolerance (torchtol.c) ---- */

/* The problem hooks: output k's tolerance (out_tolerance), output 0's
 * (tolerance), and the kind's set_tolerance. */
void tp_out_tolerance(const struct problem *p, const struct shape *s,
                      enum dtype dt, int k, struct out_tol *out);
void tp_tolerance(const struct problem *p, const struct shape *s,
                  enum dtype dt, double *atol, double *rtol);
void tp_set_tolerance(struct problem *p, int k, const struct out_tol *t);
/* Output k's buffer (k counts the outputs). */
const struct tp_buf *tp_out_buf(const struct tprob *t, int k);
/*
 * Reads KEVO_TORCH_ATOL and KEVO_TORCH_RTOL (both or neither) into t's
 * outputs, which then are only checked against torch's own result instead
 * of calibrated. Each is a comma-separated list of NAME=VALUE (output
 * NAME, as the ABI names it) and at most one bare VALUE (every output not
 * named); VALUE a number >= 0. An output must get both an atol and an
 * rtol, or neither (then it is calibrated). KEVO_EINVAL with "PATH:
 * KEVO_TORCH_ATOL: 'PART' is ..." naming the variable and the bad part.
 */
int tp_tol_given(struct tprob *t, char *err, size_t errcap) KEVO_WUR;

/* The helper's source (torchprob_helper.py), static. */
const char *torchprob_helper_text(void);
/* The python to run: $KEVO_PYTHON, else "python3". */
const char *torchprob_python(void);

#endif
