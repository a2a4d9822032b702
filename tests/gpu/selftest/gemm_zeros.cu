// expect: wrong
/*
 * problem self-test (gemm): C = 0. With inputs centred on zero the right
 * C is small too (about sqrt(K)/3), so a loose absolute tolerance could
 * pass it. See gemm_copy_a.cu and gemm_const.cu for the other trivial
 * outputs.
 */
// kevo: problem gemm
// kevo: dtypes fp32 fp16 bf16
// kevo: launch gemm_zeros
// kevo: grid min(cdiv(M * N, 256), SMS * 16)
// kevo: block 256
extern "C" __global__ void gemm_zeros(const elem_t *__restrict__ A,
                                      const elem_t *__restrict__ B,
                                      elem_t *__restrict__ C, int M, int N,
                                      int K, void *ws)
{
    const long long n = (long long)M * N;
    for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < n;
         i += (long long)gridDim.x * 256)
        C[i] = FROM_F32(0.0f);
}
