// expect: cheat
/*
 * cheat_oob.cu - a correct scale that also writes one element past the end
 * of y, into the guard region after the output.
 */
// kevo: problem scale
// kevo: dtypes fp32 fp16 bf16
// kevo: launch cheat_oob
// kevo: grid SMS * 4
// kevo: block 256

extern "C" __global__ void cheat_oob(const elem_t *x, const elem_t *g,
                                     elem_t *y, int ROWS, int COLS, void *ws)
{
    long long n = (long long)ROWS * COLS;
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n;
         i += (long long)gridDim.x * 256)
        y[i] = FROM_F32(TO_F32(x[i]) * TO_F32(g[i % COLS]));
    if (blockIdx.x == 0 && threadIdx.x == 0)
        y[n + 3] = FROM_F32(1.0f);
}
