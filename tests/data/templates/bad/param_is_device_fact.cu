// expect: param_is_device_fact.cu:5: param 'SMS' collides with a device fact
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 default=64
// kevo: param SMS 1 2
// kevo: launch k
// kevo: grid cdiv(N, 32), cdiv(M, 32)
// kevo: block 256
extern "C" __global__ void k(const elem_t *A, const elem_t *B, elem_t *C,
                             int M, int N, int K, void *ws) { (void)BM; }
