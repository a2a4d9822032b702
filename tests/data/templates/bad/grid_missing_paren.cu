// expect: grid_missing_paren.cu:6: grid 'cdiv(M, 32': column 11: missing ')' at end of expression
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 default=64
// kevo: launch k
// kevo: grid cdiv(N, 32), cdiv(M, 32
// kevo: block BM
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; }
