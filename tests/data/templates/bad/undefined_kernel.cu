// expect: undefined_kernel.cu:8: kernel 'k2' is not defined as extern "C" __global__ in the text
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 default=64
// kevo: launch k
// kevo: grid cdiv(N, 32), cdiv(M, 32)
// kevo: block 256
// kevo: launch k2
__global__ void k2(int *p) {}
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; }
