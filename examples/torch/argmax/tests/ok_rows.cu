// expect: ok
/*
 * ok_rows.cu - torch.argmax(x, dim=1): one thread per row, first index of
 * the maximum (torch's tie rule). wrong_last.cu and cheat_oob.cu add a bug.
 */
// kevo: problem argmax
// kevo: dtypes fp32
// kevo: launch ok_rows
// kevo: grid cdiv(rows, 128)
// kevo: block 128
extern "C" __global__ void ok_rows(const elem_t *x, long long *out, int rows,
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
}
