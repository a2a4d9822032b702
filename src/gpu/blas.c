/*
 * blas.c - cuBLAS through dlopen (see blas.h). Knows only GEMM.
 */
#include "blas.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <cublas_v2.h>

struct blas {
    void *lib;
    cublasHandle_t h;
    int version;
    __typeof__(cublasCreate_v2) *create;
    __typeof__(cublasDestroy_v2) *destroy;
    __typeof__(cublasSetStream_v2) *set_stream;
    __typeof__(cublasSetMathMode) *set_math;
    __typeof__(cublasGetVersion_v2) *get_version;
    __typeof__(cublasDgemm_v2) *dgemm;
    __typeof__(cublasSgemm_v2) *sgemm;
    __typeof__(cublasGemmEx) *gemm_ex;
    __typeof__(cublasGetStatusName) *status_name;
    char err[256];
};

static void *open_lib(void)
{
    static const char *const paths[] = {
        "libcublas.so.13",
        "/usr/local/cuda/lib64/libcublas.so.13",
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        void *h = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    return NULL;
}

static const char *status_text(const struct blas *b, cublasStatus_t st)
{
    const char *s = b->status_name ? b->status_name(st) : NULL;
    return s ? s : "CUBLAS_STATUS_?";
}

int blas_new(CUstream s, struct blas **out, char *err, size_t errcap)
{
    struct blas *b = calloc(1, sizeof *b);
    if (!b)
        return KEVO_ENOMEM;
    b->lib = open_lib();
    if (!b->lib) {
        snprintf(err, errcap, "cannot load libcublas.so.13: %s", dlerror());
        free(b);
        return KEVO_ENODEV;
    }
#define SYM(field, name) b->field = (__typeof__(b->field))dlsym(b->lib, name)
    SYM(create, "cublasCreate_v2");
    SYM(destroy, "cublasDestroy_v2");
    SYM(set_stream, "cublasSetStream_v2");
    SYM(set_math, "cublasSetMathMode");
    SYM(get_version, "cublasGetVersion_v2");
    SYM(dgemm, "cublasDgemm_v2");
    SYM(sgemm, "cublasSgemm_v2");
    SYM(gemm_ex, "cublasGemmEx");
    SYM(status_name, "cublasGetStatusName");
#undef SYM
    if (!b->create || !b->destroy || !b->set_stream || !b->set_math ||
        !b->dgemm || !b->sgemm || !b->gemm_ex) {
        snprintf(err, errcap, "libcublas.so.13 lacks a GEMM entry point");
        dlclose(b->lib);
        free(b);
        return KEVO_ENODEV;
    }
    cublasStatus_t st = b->create(&b->h);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = b->set_stream(b->h, (cudaStream_t)s);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = b->set_math(b->h, CUBLAS_DEFAULT_MATH);
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(err, errcap, "cublasCreate failed: %s", status_text(b, st));
        if (b->h)
            b->destroy(b->h);
        free(b);
        return KEVO_ECUDA;
    }
    if (b->get_version)
        b->get_version(b->h, &b->version);
    *out = b;
    return KEVO_OK;
}

void blas_free(struct blas *b)
{
    if (!b)
        return;
    if (b->h)
        b->destroy(b->h);
    free(b); /* the library stays loaded: unloading cuBLAS is not safe */
}

int blas_version(const struct blas *b)
{
    return b ? b->version : 0;
}

const char *blas_errmsg(const struct blas *b)
{
    return b->err;
}

static int check(struct blas *b, cublasStatus_t st, const char *what)
{
    if (st == CUBLAS_STATUS_SUCCESS)
        return KEVO_OK;
    snprintf(b->err, sizeof b->err, "%s failed: %s", what,
             status_text(b, st));
    return KEVO_ECUDA;
}

/* Row-major C = A B is column-major C^T = B^T A^T: swap the operands and
 * m/n; leading dimensions are the row lengths. */
int blas_dgemm(struct blas *b, int m, int n, int k, CUdeviceptr a,
               CUdeviceptr bm, CUdeviceptr c)
{
    const double one = 1.0, zero = 0.0;
    return check(b, b->dgemm(b->h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
                             (const double *)bm, n, (const double *)a, k,
                             &zero, (double *)c, n),
                 "cublasDgemm");
}

int blas_gemm(struct blas *b, enum dtype dt, int m, int n, int k,
              CUdeviceptr a, CUdeviceptr bm, CUdeviceptr c)
{
    const float one = 1.0f, zero = 0.0f;
    if (dt == DTYPE_FP32)
        return check(b, b->sgemm(b->h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k,
                                 &one, (const float *)bm, n,
                                 (const float *)a, k, &zero, (float *)c, n),
                     "cublasSgemm");
    cudaDataType t = dt == DTYPE_FP16 ? CUDA_R_16F : CUDA_R_16BF;
    return check(b, b->gemm_ex(b->h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
                               (const void *)bm, t, n, (const void *)a, t, k,
                               &zero, (void *)c, t, n, CUBLAS_COMPUTE_32F,
                               CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
}
