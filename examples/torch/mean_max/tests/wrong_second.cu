// expect: wrong
/*
 * wrong_second.cu - ok_rows.cu that writes the mean into the second
 * output too: wrong.
 */
// kevo: problem mean_max
// kevo: dtypes fp32 fp16 bf16
// kevo: launch wrong_second
// kevo: grid cdiv(rows, 128)
// kevo: block 128
extern "C" __global__ void wrong_second(const elem_t *x, elem_t *out0, elem_t *out1, int rows, int cols, void *ws)
{
    long long r = blockIdx.x * 128LL + threadIdx.x;
    if (r >= rows)
        return;
    float s = 0.f, mx = TO_F32(x[r * cols]);
    for (int c = 0; c < cols; ++c) {
        float v = TO_F32(x[r * cols + c]);
        s += v;
        mx = fmaxf(mx, v);
    }
    out0[r] = FROM_F32(s / cols);
    out1[r] = FROM_F32(s / cols);
}
