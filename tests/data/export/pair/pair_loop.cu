/*
 * pair_loop.cu - y = x * g, z = x + g, a grid-stride loop.
 */
// kevo: problem pair
// kevo: dtypes fp32 fp16 bf16
// kevo: param THREADS 128 256 default=256
// kevo: launch pair_loop
// kevo: grid SMS * 4
// kevo: block THREADS
extern "C" __global__ void pair_loop(const elem_t *x, const elem_t *g, elem_t *y,
                                     elem_t *z, int ROWS, int COLS, void *ws)
{
    long long n = (long long)ROWS * COLS;
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n;
         i += (long long)gridDim.x * THREADS) {
        y[i] = FROM_F32(TO_F32(x[i]) * TO_F32(g[i]));
        z[i] = FROM_F32(TO_F32(x[i]) + TO_F32(g[i]));
    }
}
