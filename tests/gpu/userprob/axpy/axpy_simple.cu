/*
 * axpy_simple.cu - y = a * x + y, a grid-stride loop of UNROLL elements per
 * thread and step.
 */
// kevo: problem axpy
// kevo: dtypes fp32 bf16
// kevo: param THREADS 128 256 512 default=256
// kevo: param BLOCKS_PER_SM 2 4 8 default=4
// kevo: launch axpy_simple
// kevo: grid SMS * BLOCKS_PER_SM
// kevo: block THREADS

extern "C" __global__ void __launch_bounds__(THREADS)
axpy_simple(const float *__restrict__ a, const elem_t *__restrict__ x,
            elem_t *__restrict__ y, int N, void *ws)
{
    float s = a[0];
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < N;
         i += (long long)gridDim.x * THREADS)
        y[i] = FROM_F32(fmaf(s, TO_F32(x[i]), TO_F32(y[i])));
}
