// expect: pdl_duplicate.cu:9: duplicate 'pdl' for launch 'k2'
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: launch k
// kevo: grid cdiv(N, 32), cdiv(M, 32)
// kevo: block 256
// kevo: launch k2
// kevo: pdl
// kevo: pdl
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) {}
extern "C" __global__ void k2(const elem_t *A, const elem_t *B, elem_t *C,
                              int M, int N, int K, void *ws) {}
