// expect: param_before_problem.cu:3: 'param' before the 'problem' directive
// kevo: dtypes fp32
// kevo: param BM 32 64 default=64
// kevo: problem gemm
// kevo: launch k
// kevo: grid cdiv(N, 32), cdiv(M, 32)
// kevo: block 256
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; }
