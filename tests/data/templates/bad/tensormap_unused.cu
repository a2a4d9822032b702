// expect: tensormap_unused.cu:7: tensormap 't*' is never used in the text
// kevo: problem gemm
// kevo: dtypes fp16
// kevo: param BM 64 128 default=128
// kevo: launch k
// kevo: block 128
// kevo: tensormap tmC C 64, BM
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws, int tmA)
{ (void)BM; }
