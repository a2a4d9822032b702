// expect: wrong
/*
 * wrong_lastcol.cu - scales every column but the last one by g[c]; the last
 * column by g[0] (an off-by-one a sampled checker can miss).
 */
// kevo: problem scale
// kevo: dtypes fp32 fp16 bf16
// kevo: launch wrong_lastcol
// kevo: grid SMS * 4
// kevo: block 256

extern "C" __global__ void wrong_lastcol(const elem_t *x, const elem_t *g,
                                         elem_t *y, int ROWS, int COLS,
                                         void *ws)
{
    long long n = (long long)ROWS * COLS;
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n;
         i += (long long)gridDim.x * 256) {
        int c = (int)(i % COLS);
        y[i] = FROM_F32(TO_F32(x[i]) * TO_F32(g[c == COLS - 1 ? 0 : c]));
    }
}
