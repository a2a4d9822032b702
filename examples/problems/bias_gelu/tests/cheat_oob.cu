// expect: cheat
/*
 * cheat_oob.cu - a correct bias + GELU (ok_simple.cu) whose first thread
 * also writes y[ROWS * COLS + 2], two elements past the end of y, into the
 * harness's guard region: cheat.
 */
// kevo: problem bias_gelu
// kevo: dtypes fp32 fp16 bf16
// kevo: launch cheat_oob
// kevo: grid SMS * 4
// kevo: block 256

__device__ float gelu(float v)
{
    return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
}

extern "C" __global__ void cheat_oob(const elem_t *x, const elem_t *bias,
                                     elem_t *y, int ROWS, int COLS, void *ws)
{
    long long n = (long long)ROWS * COLS;
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n;
         i += (long long)gridDim.x * 256)
        y[i] = FROM_F32(gelu(TO_F32(x[i]) + TO_F32(bias[i % COLS])));
    if (blockIdx.x == 0 && threadIdx.x == 0)
        y[n + 2] = FROM_F32(0.f);
}
