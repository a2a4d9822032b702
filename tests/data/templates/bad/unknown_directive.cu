// expect: unknown_directive.cu:4: unknown directive 'parm'
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: parm BM 32
// kevo: launch k
// kevo: grid cdiv(N, 32), cdiv(M, 32)
// kevo: block 256
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; }
