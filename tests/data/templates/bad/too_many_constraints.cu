// expect: too_many_constraints.cu:37: too many constraints (max 32)
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 default=64
// kevo: constraint BM > 0
// kevo: constraint BM > 1
// kevo: constraint BM > 2
// kevo: constraint BM > 3
// kevo: constraint BM > 4
// kevo: constraint BM > 5
// kevo: constraint BM > 6
// kevo: constraint BM > 7
// kevo: constraint BM > 8
// kevo: constraint BM > 9
// kevo: constraint BM > 10
// kevo: constraint BM > 11
// kevo: constraint BM > 12
// kevo: constraint BM > 13
// kevo: constraint BM > 14
// kevo: constraint BM > 15
// kevo: constraint BM > 16
// kevo: constraint BM > 17
// kevo: constraint BM > 18
// kevo: constraint BM > 19
// kevo: constraint BM > 20
// kevo: constraint BM > 21
// kevo: constraint BM > 22
// kevo: constraint BM > 23
// kevo: constraint BM > 24
// kevo: constraint BM > 25
// kevo: constraint BM > 26
// kevo: constraint BM > 27
// kevo: constraint BM > 28
// kevo: constraint BM > 29
// kevo: constraint BM > 30
// kevo: constraint BM > 31
// kevo: constraint BM > 0
// kevo: launch k
// kevo: grid cdiv(N, 32), cdiv(M, 32)
// kevo: block 256
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; }
