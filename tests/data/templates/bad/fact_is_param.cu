// expect: fact_is_param.cu:5: fact 'BM' collides with a param
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 default=64
// kevo: fact BM N % 4 == 0
// kevo: launch k
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; (void)AL; }
