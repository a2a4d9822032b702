// expect: cheat
/*
 * cheat_twice.cu - adds a * x to y twice on odd calls only (a call counter
 * in the workspace would be honest; a module global is state carried
 * across calls): the output changes between identical calls.
 */
// kevo: problem axpy
// kevo: dtypes fp32 bf16
// kevo: launch cheat_twice
// kevo: grid 1
// kevo: block 256

__device__ unsigned calls;

extern "C" __global__ void cheat_twice(const float *a, const elem_t *x,
                                       elem_t *y, int N, void *ws)
{
    unsigned c = calls;
    __syncthreads();
    if (threadIdx.x == 0)
        calls = c + 1;
    float k = (c & 1) ? 2.0f : 1.0f;
    for (long long i = threadIdx.x; i < N; i += 256)
        y[i] = FROM_F32(fmaf(k * a[0], TO_F32(x[i]), TO_F32(y[i])));
}
