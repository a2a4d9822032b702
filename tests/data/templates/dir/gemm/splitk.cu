/*
 * splitk.cu - test template (tests/unit/test_tpl.c): two launches, a
 * cluster, a workspace and atomics. Exercises the launch-plan directives
 * and kernel definitions spread over lines with __launch_bounds__.
 */
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param SPLIT 2 4 default=2
// kevo: param TB 128 256 default=128
// kevo: nondeterministic
// kevo: requires K % (SPLIT * 8) == 0
// kevo: workspace SPLIT * M * N * 4
// kevo: launch splitk_partial
// kevo: grid cdiv(N, 32), cdiv(M, 32), SPLIT
// kevo: block 32, 32
// kevo: cluster 1, 1, SPLIT
// kevo: launch splitk_reduce
// kevo: pdl
// kevo: grid cdiv(M * N, TB)
// kevo: block TB

extern "C"
__global__
__launch_bounds__(32 * 32)
void splitk_partial(const elem_t *__restrict__ A, const elem_t *__restrict__ B,
                    elem_t *__restrict__ C, int M, int N, int K, void *ws)
{
    float *part = (float *)ws + (size_t)blockIdx.z * M * N;
    int r = blockIdx.y * 32 + threadIdx.y, c = blockIdx.x * 32 + threadIdx.x;
    int k0 = blockIdx.z * (K / SPLIT), k1 = k0 + K / SPLIT;
    if (r >= M || c >= N)
        return;
    float acc = 0.f;
    for (int k = k0; k < k1; k++)
        acc += TO_F32(A[(size_t)r * K + k]) * TO_F32(B[(size_t)k * N + c]);
    part[(size_t)r * N + c] = acc;
}

extern "C" __global__ void __launch_bounds__(TB)
    splitk_reduce(const elem_t *__restrict__ A, const elem_t *__restrict__ B,
                  elem_t *__restrict__ C, int M, int N, int K, void *ws)
{
    size_t i = (size_t)blockIdx.x * TB + threadIdx.x;
#if __CUDA_ARCH__ >= 900
    /* pdl: may start before splitk_partial ends; wait for its sums */
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
    if (i >= (size_t)M * N)
        return;
    float acc = 0.f;
    for (int s = 0; s < SPLIT; s++)
        acc += ((const float *)ws)[(size_t)s * M * N + i];
    C[i] = FROM_F32(acc);
}
