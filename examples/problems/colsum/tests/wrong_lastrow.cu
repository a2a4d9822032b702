// expect: wrong
/*
 * wrong_lastrow.cu - ok_simple.cu with an off-by-one loop that never adds
 * the last row: every column sum is off by x[ROWS-1][c] (uniform in
 * [-1, 1)), far beyond atol = 3e-7 * ROWS: wrong at every dtype.
 */
// kevo: problem colsum
// kevo: dtypes fp32 fp16 bf16
// kevo: launch wrong_lastrow
// kevo: grid cdiv(COLS, 256)
// kevo: block 256

extern "C" __global__ void wrong_lastrow(const elem_t *x, elem_t *out, int ROWS,
                                         int COLS, void *ws)
{
    const int c = blockIdx.x * 256 + threadIdx.x;
    if (c < COLS) {
        float s = 0.f;
        for (long long r = 0; r < ROWS - 1; ++r)
            s += TO_F32(x[r * COLS + c]);
        out[c] = FROM_F32(s);
    }
}
