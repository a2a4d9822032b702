// expect: too_many_params.cu:28: too many params (max 24)
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 default=64
// kevo: param P0 1
// kevo: param P1 1
// kevo: param P2 1
// kevo: param P3 1
// kevo: param P4 1
// kevo: param P5 1
// kevo: param P6 1
// kevo: param P7 1
// kevo: param P8 1
// kevo: param P9 1
// kevo: param P10 1
// kevo: param P11 1
// kevo: param P12 1
// kevo: param P13 1
// kevo: param P14 1
// kevo: param P15 1
// kevo: param P16 1
// kevo: param P17 1
// kevo: param P18 1
// kevo: param P19 1
// kevo: param P20 1
// kevo: param P21 1
// kevo: param P22 1
// kevo: param P23 1
// kevo: launch k
// kevo: grid cdiv(N, 32), cdiv(M, 32)
// kevo: block 256
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; }
