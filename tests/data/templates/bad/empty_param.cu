// expect: empty_param.cu:4: param 'BM' has no values
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM
// kevo: launch k
// kevo: grid cdiv(N, 32), cdiv(M, 32)
// kevo: block 256
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; }
