// expect: tensormap_bad_swizzle.cu:7: bad swizzle '96' (expected 128, 64, 32 or none)
// kevo: problem gemm
// kevo: dtypes fp16
// kevo: param BM 64 128 default=128
// kevo: launch k
// kevo: block 128
// kevo: tensormap tmA A 64, BM swizzle=96
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws, int tmA)
{ (void)BM; }
