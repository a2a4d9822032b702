// expect: wrong
/*
 * problem self-test (gemm): C = 1 everywhere, a constant of the size a
 * typical |C| has for small K. See gemm_zeros.cu for C = 0.
 */
// kevo: problem gemm
// kevo: dtypes fp32 fp16 bf16
// kevo: launch gemm_const
// kevo: grid min(cdiv(M * N, 256), SMS * 16)
// kevo: block 256
extern "C" __global__ void gemm_const(const elem_t *__restrict__ A,
                                      const elem_t *__restrict__ B,
                                      elem_t *__restrict__ C, int M, int N,
                                      int K, void *ws)
{
    const long long n = (long long)M * N;
    for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < n;
         i += (long long)gridDim.x * 256)
        C[i] = FROM_F32(1.0f);
}
