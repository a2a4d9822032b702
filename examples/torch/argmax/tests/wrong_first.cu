// expect: wrong
/*
 * wrong_first.cu - ok_rows.cu (argmax per row) that never looks at the
 * last column: wrong on the rows whose maximum is there.
 */
// kevo: problem argmax
// kevo: dtypes fp32
// kevo: launch wrong_first
// kevo: grid cdiv(rows, 128)
// kevo: block 128
extern "C" __global__ void wrong_first(const elem_t *x, long long *out, int rows,
                                   int cols, void *ws)
{
    long long r = blockIdx.x * 128LL + threadIdx.x;
    if (r >= rows)
        return;
    float best = TO_F32(x[r * cols]);
    long long at = 0;
    for (int c = 1; c < cols - 1; ++c) { /* misses the last column */
        float v = TO_F32(x[r * cols + c]);
        if (v > best) {
            best = v;
            at = c;
        }
    }
    out[r] = at;
}
