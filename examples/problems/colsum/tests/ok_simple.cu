// expect: ok
/*
 * ok_simple.cu - a plain column sum: one thread per column, a serial fp32
 * sum over the rows (adjacent threads read adjacent columns).
 * wrong_lastrow.cu and cheat_oob.cu are this kernel with one bug each.
 */
// kevo: problem colsum
// kevo: dtypes fp32 fp16 bf16
// kevo: launch ok_simple
// kevo: grid cdiv(COLS, 256)
// kevo: block 256

extern "C" __global__ void ok_simple(const elem_t *x, elem_t *out, int ROWS,
                                     int COLS, void *ws)
{
    const int c = blockIdx.x * 256 + threadIdx.x;
    if (c < COLS) {
        float s = 0.f;
        for (long long r = 0; r < ROWS; ++r)
            s += TO_F32(x[r * COLS + c]);
        out[c] = FROM_F32(s);
    }
}
