// expect: cheat
/*
 * cheat_oob.cu - ok_serial.cu (a serial fp32 running sum per row) whose
 * last row also writes past the end of out, into the guard: cheat.
 */
// kevo: problem cumsum
// kevo: dtypes fp32 fp16 bf16
// kevo: launch cheat_oob
// kevo: grid cdiv(batch_size, 64)
// kevo: block 64
extern "C" __global__ void cheat_oob(const elem_t *x, elem_t *out,
                                     int batch_size, int input_shape, void *ws)
{
    long long r = blockIdx.x * 64LL + threadIdx.x;
    if (r >= batch_size)
        return;
    float s = 0.f;
    for (int c = 0; c < input_shape; ++c) {
        s += TO_F32(x[r * input_shape + c]);
        out[r * input_shape + c] = FROM_F32(s);
    }
    if (r == batch_size - 1)
        out[(long long)batch_size * input_shape + 3] = FROM_F32(s);
}
