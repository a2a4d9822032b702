// expect: pdl_first_launch.cu:6: 'pdl' on the first launch 'k': only a later launch may overlap the one in front of it
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: launch k
// kevo: grid cdiv(N, 32), cdiv(M, 32)
// kevo: pdl
// kevo: block 256
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) {}
