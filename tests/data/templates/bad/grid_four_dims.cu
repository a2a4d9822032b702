// expect: grid_four_dims.cu:6: 'grid' takes 1 to 3 expressions
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 default=64
// kevo: launch k
// kevo: grid 1, 2, 3, BM
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; }
