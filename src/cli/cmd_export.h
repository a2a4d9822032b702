/*
 * cmd_export.h - what the two halves of `kevo export` share:
 * cmd_export.c (the command, the .cu and the C launcher) and
 * export_torch.c (the PyTorch custom op and KernelBench's ModelNew built
 * on that launcher). Nothing else includes it.
 */
#ifndef KEVO_CMD_EXPORT_H
#define KEVO_CMD_EXPORT_H

#include <stdio.h>

#include <cJSON.h>

#include "cmd_sanitize.h"
#include "problem.h"
#include "runview.h"

enum fmt { FMT_CU, FMT_C, FMT_TORCH };

struct exporter {
    struct run_view v;
    enum fmt fmt;
    char out[4096];            /* DIR */
    char base[96];             /* "kevo_gemm" */
    char arch[16];             /* "sm_90a" */
    char *src;                 /* winner's source, owned */
    char *src_out;             /* src with kevo's headers inlined (what the
                                  .cu carries: no kevo needed), owned */
    char src_rel[256];
    int n_bufs;
    struct buf_desc bufs[PROB_MAX_BUFS];
    int dim[PROB_MAX_BUFS][2]; /* size index of rows, cols; -1 = none */
    cJSON *json;               /* --json summary */
    int sanitize;              /* -1 --no-sanitize, 0 default */
    struct sanitize_opts san;  /* for the gate (cmd_sanitize.h) */
    int quiet;
};

/* The comment block about the export (run, problem, genome, signature,
 * launch plan), unquoted, each line starting with pre. Its names come from
 * the run and are untrusted: callers quote it for where it goes. */
void export_put_about_raw(const struct exporter *x, FILE *f, const char *pre);

/* --format torch / kernelbench into x->out, after the C launcher was
 * written: lib<base>.so, <base>.py (the op), <base>_kernelbench.py and,
 * for a PyTorch problem, <base>_reference.py (the run's module, verbatim).
 * Refuses, naming the buffer or size and why, what the op cannot take.
 * Returns KEVO_OK or a status with err set. */
int export_torch_write(struct exporter *x, char *err, size_t errcap) KEVO_WUR;

#endif
