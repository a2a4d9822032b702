// expect: two_defaults.cu:4: param 'BM' has two defaults
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 default=32 default=64
// kevo: launch k
// kevo: grid cdiv(N, 32), cdiv(M, 32)
// kevo: block 256
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; }
