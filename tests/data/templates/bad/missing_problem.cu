// expect: missing_problem.cu:1: missing 'problem' directive
// kevo: dtypes fp32
// kevo: nondeterministic
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; }
