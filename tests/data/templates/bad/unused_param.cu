// expect: unused_param.cu:5: param 'UNUS*' is never used in the text or an expression
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 default=64
// kevo: param UNUSED 1 2
// UNUSEDX and X_UNUSED are other words
// kevo: launch k
// kevo: grid cdiv(N, 32), cdiv(M, 32)
// kevo: block 256
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; }
