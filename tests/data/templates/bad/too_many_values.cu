// expect: too_many_values.cu:4: param 'BM' has more than 32 values
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33
// kevo: launch k
// kevo: grid cdiv(N, 32), cdiv(M, 32)
// kevo: block 256
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; }
