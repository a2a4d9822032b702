// expect: cheat
/*
 * cheat_oob.cu - ok_rows.cu (argmax per row) that also writes past the
 * end of out: cheat.
 */
// kevo: problem argmax
// kevo: dtypes fp32
// kevo: launch cheat_oob
// kevo: grid cdiv(rows, 128)
// kevo: block 128
extern "C" __global__ void cheat_oob(const elem_t *x, long long *out, int rows,
                                   int cols, void *ws)
{
    long long r = blockIdx.x * 128LL + threadIdx.x;
    if (r >= rows)
        return;
    float best = TO_F32(x[r * cols]);
    long long at = 0;
    for (int c = 1; c < cols; ++c) {
        float v = TO_F32(x[r * cols + c]);
        if (v > best) {
            best = v;
            at = c;
        }
    }
    out[r] = at;
    if (r == 0)
        out[rows + 1] = 0; /* past the end: the guard */
}
