// expect: cheat
/* harness test: writes through a const_cast into a file-scope constexpr
 * table (in .nv.global.init): read-only data that changes is state carried
 * across launches, caught by the module-globals hash (issue 10, item 2). */
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: launch gemm_naive
// kevo: grid cdiv(N, 16), cdiv(M, 16)
// kevo: block 16, 16
static constexpr int kCalls[2] = {0, 1};
extern "C" __global__ void gemm_naive(const elem_t *__restrict__ A,
                                      const elem_t *__restrict__ B,
                                      elem_t *__restrict__ C, int M, int N,
                                      int K, void *ws)
{
    int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
    if (r == 0 && c == 0)
        atomicAdd(const_cast<int *>(&kCalls[K & 1]), 1);
    if (r >= M || c >= N)
        return;
    float acc = 0;
    for (int k = 0; k < K; k++)
        acc += TO_F32(A[(long long)r * K + k]) * TO_F32(B[(long long)k * N + c]);
    C[(long long)r * N + c] = FROM_F32(acc);
}
