// expect: ok
/*
 * ok_serial.cu - torch.cumsum(x, dim=1): one thread per row, a serial
 * fp32 running sum. wrong_skip.cu and cheat_oob.cu add one bug each.
 */
// kevo: problem cumsum
// kevo: dtypes fp32 fp16 bf16
// kevo: launch ok_serial
// kevo: grid cdiv(batch_size, 64)
// kevo: block 64
extern "C" __global__ void ok_serial(const elem_t *x, elem_t *out,
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
}
