// expect: cheat
/*
 * cheat_oob.cu - a correct layer norm (ok_simple.cu) whose last block also
 * writes y[ROWS * COLS + 2], two elements past the end of y, into the
 * harness's guard region: cheat.
 */
// kevo: problem layernorm
// kevo: dtypes fp32 fp16 bf16
// kevo: launch cheat_oob
// kevo: grid ROWS
// kevo: block 256

__device__ float block_sum(float v, float *sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s)
            sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    float r = sh[0];
    __syncthreads();
    return r;
}

extern "C" __global__ void cheat_oob(const elem_t *x, const elem_t *gamma,
                                     const elem_t *beta, elem_t *y, int ROWS,
                                     int COLS, void *ws)
{
    __shared__ float sh[256];
    const elem_t *xr = x + (long long)blockIdx.x * COLS;
    elem_t *yr = y + (long long)blockIdx.x * COLS;
    float s = 0.f;
    for (int c = threadIdx.x; c < COLS; c += 256)
        s += TO_F32(xr[c]);
    const float mean = block_sum(s, sh) / COLS;
    float q = 0.f;
    for (int c = threadIdx.x; c < COLS; c += 256) {
        const float d = TO_F32(xr[c]) - mean;
        q += d * d;
    }
    const float rstd = rsqrtf(block_sum(q, sh) / COLS + 1e-5f);
    for (int c = threadIdx.x; c < COLS; c += 256)
        yr[c] = FROM_F32((TO_F32(xr[c]) - mean) * rstd * TO_F32(gamma[c]) +
                         TO_F32(beta[c]));
    if (blockIdx.x == ROWS - 1 && threadIdx.x == 0)
        yr[COLS + 2] = FROM_F32(0.f);
}
