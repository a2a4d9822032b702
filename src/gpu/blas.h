/*
 * blas.h - cuBLAS, loaded at run time (libcublas.so.13 with its
 * libcublasLt), for the fp64 GEMM reference and the GEMM baselines.
 *
 * Matrices are row-major, as in kevo's problems: C = A * B with A MxK,
 * B KxN, C MxN. cuBLAS is column-major, so each call computes
 * C^T = B^T * A^T (the usual transpose trick, no data movement).
 * Math modes: fp64 and fp32 use CUBLAS_DEFAULT_MATH, which since CUDA 11
 * never uses TF32 (TF32 needs CUBLAS_TF32_TENSOR_OP_MATH); fp16/bf16 go
 * through cublasGemmEx with fp32 compute (tensor cores).
 */
#ifndef KEVO_BLAS_H
#define KEVO_BLAS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#include "problem.h"
#include "status.h"

struct blas;

/* Loads cuBLAS and creates one handle bound to stream s (the current
 * context must be set). KEVO_ENODEV with a reason when the library is
 * missing. *out is new; free with blas_free(). */
int blas_new(CUstream s, struct blas **out, char *err, size_t errcap) KEVO_WUR;
void blas_free(struct blas *b);

/* cublasGetVersion, e.g. 130000. */
int blas_version(const struct blas *b);

/* fp64: C = A * B, row-major, device pointers. */
int blas_dgemm(struct blas *b, int m, int n, int k, CUdeviceptr a,
               CUdeviceptr bm, CUdeviceptr c) KEVO_WUR;
/* dt: C = A * B in the dtype (fp32 FFMA; fp16/bf16 fp32 accumulate). */
int blas_gemm(struct blas *b, enum dtype dt, int m, int n, int k,
              CUdeviceptr a, CUdeviceptr bm, CUdeviceptr c) KEVO_WUR;

const char *blas_errmsg(const struct blas *b);

#endif
