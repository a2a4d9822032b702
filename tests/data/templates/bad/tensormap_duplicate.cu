// expect: tensormap_duplicate.cu:8: duplicate tensormap 'tmA' (first on line 7)
// kevo: problem gemm
// kevo: dtypes fp16
// kevo: param BM 64 128 default=128
// kevo: launch k
// kevo: block 128
// kevo: tensormap tmA A 64, BM
// kevo: tensormap tmA B 64, 64
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws, int tmA)
{ (void)BM; }
