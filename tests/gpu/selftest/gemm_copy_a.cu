// expect: wrong
/*
 * problem self-test (gemm): C[m][n] = A[m][n mod K], a copy of A (tiled
 * along n when N > K): inputs passed through, right magnitude order, no
 * product at all.
 */
// kevo: problem gemm
// kevo: dtypes fp32 fp16 bf16
// kevo: launch gemm_copy_a
// kevo: grid cdiv(N, 16), cdiv(M, 16)
// kevo: block 16, 16
extern "C" __global__ void gemm_copy_a(const elem_t *__restrict__ A,
                                       const elem_t *__restrict__ B,
                                       elem_t *__restrict__ C, int M, int N,
                                       int K, void *ws)
{
    const int r = blockIdx.y * 16 + threadIdx.y,
              c = blockIdx.x * 16 + threadIdx.x;
    if (r < M && c < N)
        C[(long long)r * N + c] = A[(long long)r * K + c % K];
}
