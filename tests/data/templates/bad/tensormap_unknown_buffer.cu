// expect: tensormap_unknown_buffer.cu:7: problem 'gemm' has no buffer 'D'
// kevo: problem gemm
// kevo: dtypes fp16
// kevo: param BM 64 128 default=128
// kevo: launch k
// kevo: block 128
// kevo: tensormap tmA D 64, BM swizzle=128
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws, int tmA)
{ (void)BM; }
