// expect: too_many_requires.cu:37: too many requires (max 32)
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 default=64
// kevo: requires K > 0
// kevo: requires K > 1
// kevo: requires K > 2
// kevo: requires K > 3
// kevo: requires K > 4
// kevo: requires K > 5
// kevo: requires K > 6
// kevo: requires K > 7
// kevo: requires K > 8
// kevo: requires K > 9
// kevo: requires K > 10
// kevo: requires K > 11
// kevo: requires K > 12
// kevo: requires K > 13
// kevo: requires K > 14
// kevo: requires K > 15
// kevo: requires K > 16
// kevo: requires K > 17
// kevo: requires K > 18
// kevo: requires K > 19
// kevo: requires K > 20
// kevo: requires K > 21
// kevo: requires K > 22
// kevo: requires K > 23
// kevo: requires K > 24
// kevo: requires K > 25
// kevo: requires K > 26
// kevo: requires K > 27
// kevo: requires K > 28
// kevo: requires K > 29
// kevo: requires K > 30
// kevo: requires K > 31
// kevo: requires K > 0
// kevo: launch k
// kevo: grid cdiv(N, 32), cdiv(M, 32)
// kevo: block 256
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; }
