// expect: fact_is_size.cu:5: fact 'N' collides with a size
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 default=64
// kevo: fact N N % 4 == 0
// kevo: launch k
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; (void)AL; }
