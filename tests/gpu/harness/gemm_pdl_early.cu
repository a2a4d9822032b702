// expect: wrong
/* harness test: a programmatic dependent launch that reads too early.
 * Launch 1 lets launch 2 start at once (griddepcontrol.launch_dependents),
 * then spins ~0.2 ms and writes fp32 sums into the workspace; launch 2
 * (pdl) reads them without waiting (no griddepcontrol.wait), so it reads
 * the poisoned workspace: wrong. Proves the attribute reaches the driver
 * (without it, launch 2 would wait for launch 1 and be right). */
// kevo: problem gemm
// kevo: dtypes fp32 fp16 bf16
// kevo: workspace M * N * 4
// kevo: launch pdl_sums
// kevo: grid cdiv(N, 16), cdiv(M, 16)
// kevo: block 16, 16
// kevo: launch pdl_store
// kevo: pdl
// kevo: grid cdiv(M * N, 256)
// kevo: block 256

extern "C" __global__ void pdl_sums(const elem_t *__restrict__ A,
                                    const elem_t *__restrict__ B,
                                    elem_t *__restrict__ C, int M, int N,
                                    int K, void *ws)
{
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    /* ~0.2 ms at H100 clocks (no wall-clock timers in candidates) */
    long long t0 = clock64();
    while (clock64() - t0 < 400000)
        ;
    int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
    if (r >= M || c >= N)
        return;
    float acc = 0;
    for (int k = 0; k < K; k++)
        acc += TO_F32(A[(long long)r * K + k]) * TO_F32(B[(long long)k * N + c]);
    ((float *)ws)[(long long)r * N + c] = acc;
}

extern "C" __global__ void pdl_store(const elem_t *__restrict__ A,
                                     const elem_t *__restrict__ B,
                                     elem_t *__restrict__ C, int M, int N,
                                     int K, void *ws)
{
    long long i = (long long)blockIdx.x * 256 + threadIdx.x;
    if (i < (long long)M * N)
        C[i] = FROM_F32(((const float *)ws)[i]);
}
