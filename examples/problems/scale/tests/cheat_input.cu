// expect: cheat
/*
 * cheat_input.cu - writes its result into the input x as well (an input
 * must never change).
 */
// kevo: problem scale
// kevo: dtypes fp32 fp16 bf16
// kevo: launch cheat_input
// kevo: grid SMS * 4
// kevo: block 256

extern "C" __global__ void cheat_input(elem_t *x, const elem_t *g,
                                       elem_t *y, int ROWS, int COLS,
                                       void *ws)
{
    long long n = (long long)ROWS * COLS;
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n;
         i += (long long)gridDim.x * 256) {
        elem_t v = FROM_F32(TO_F32(x[i]) * TO_F32(g[i % COLS]));
        y[i] = v;
        x[i] = v;
    }
}
