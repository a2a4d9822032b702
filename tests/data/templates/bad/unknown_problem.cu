// expect: unknown_problem.cu:2: unknown problem 'conv2d'
// kevo: problem conv2d
// kevo: dtypes fp32
// kevo: launch k
// kevo: grid cdiv(N, 32), cdiv(M, 32)
// kevo: block 256
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; }
