// expect: tensormap_one_box.cu:7: tensormap 'tmA' needs two box expressions (inner, outer)
// kevo: problem gemm
// kevo: dtypes fp16
// kevo: param BM 64 128 default=128
// kevo: launch k
// kevo: block 128
// kevo: tensormap tmA A 64 swizzle=128
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws, int tmA)
{ (void)BM; }
