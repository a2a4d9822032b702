// expect: arg_unused.cu:5: arg 'u*' is never used in the text
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 default=64
// kevo: arg unread BM
// kevo: launch k
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws, int g) { (void)BM; (void)g; }
