// expect: ok
/*
 * correct_gemm.cu - adversarial-suite control for the GEMM checks: a plain,
 * correct fp32 GEMM (one output per thread, K loop from global memory, 1-D
 * grid). Every evaluator check must pass it; if not, the evaluator is wrong.
 */
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param THREADS 128 256 default=256
// kevo: launch correct_gemm
// kevo: grid cdiv(M * N, THREADS)
// kevo: block THREADS

extern "C" __global__ void __launch_bounds__(THREADS)
correct_gemm(const elem_t *__restrict__ A, const elem_t *__restrict__ B,
             elem_t *__restrict__ C, int M, int N, int K, void *ws)
{
    const long long i = (long long)blockIdx.x * THREADS + threadIdx.x;
    if (i >= (long long)M * N)
        return;
    const long long row = i / N, col = i % N;
    float acc = 0.f;
    for (int k = 0; k < K; ++k)
        acc = fmaf(TO_F32(A[row * K + k]), TO_F32(B[(long long)k * N + col]),
                   acc);
    C[i] = FROM_F32(acc);
}
