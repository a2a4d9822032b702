// expect: cheat
/*
 * cheat_oob.cu - a correct column sum (ok_simple.cu) whose first thread
 * also writes out[COLS + 1], two elements past the end of out, into the
 * harness's guard region: cheat.
 */
// kevo: problem colsum
// kevo: dtypes fp32 fp16 bf16
// kevo: launch cheat_oob
// kevo: grid cdiv(COLS, 256)
// kevo: block 256

extern "C" __global__ void cheat_oob(const elem_t *x, elem_t *out, int ROWS,
                                     int COLS, void *ws)
{
    const int c = blockIdx.x * 256 + threadIdx.x;
    if (c < COLS) {
        float s = 0.f;
        for (long long r = 0; r < ROWS; ++r)
            s += TO_F32(x[r * COLS + c]);
        out[c] = FROM_F32(s);
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        out[COLS + 1] = FROM_F32(0.f);
}
