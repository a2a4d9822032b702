// A gemm template filed under softmax/: tpl_load_dir must reject it.
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: launch k
// kevo: grid cdiv(M * N, 256)
// kevo: block 256
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) {}
