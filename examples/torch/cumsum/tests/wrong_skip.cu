// expect: wrong
/*
 * wrong_skip.cu - ok_serial.cu (a serial fp32 running sum per row) that
 * never adds column 7: wrong.
 */
// kevo: problem cumsum
// kevo: dtypes fp32 fp16 bf16
// kevo: launch wrong_skip
// kevo: grid cdiv(batch_size, 64)
// kevo: block 64
extern "C" __global__ void wrong_skip(const elem_t *x, elem_t *out,
                                     int batch_size, int input_shape, void *ws)
{
    long long r = blockIdx.x * 64LL + threadIdx.x;
    if (r >= batch_size)
        return;
    float s = 0.f;
    for (int c = 0; c < input_shape; ++c) {
        if (c != 7) s += TO_F32(x[r * input_shape + c]);
        out[r * input_shape + c] = FROM_F32(s);
    }
}
