// expect: arg_not_int.cu:5: arg 'g = BM * 100000000' is not an int at the default point
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 default=64
// kevo: arg g BM * 100000000
// kevo: launch k
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws, int g) { (void)BM; (void)g; }
