// expect: ok
/*
 * ok_simple.cu - the plain grid-stride scale: correct for every shape.
 */
// kevo: problem scale
// kevo: dtypes fp32 fp16 bf16
// kevo: launch ok_simple
// kevo: grid SMS * 4
// kevo: block 256

extern "C" __global__ void ok_simple(const elem_t *x, const elem_t *g,
                                     elem_t *y, int ROWS, int COLS, void *ws)
{
    long long n = (long long)ROWS * COLS;
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n;
         i += (long long)gridDim.x * 256)
        y[i] = FROM_F32(TO_F32(x[i]) * TO_F32(g[i % COLS]));
}
