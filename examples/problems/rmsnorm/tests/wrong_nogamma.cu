// expect: wrong
/*
 * wrong_nogamma.cu - ok_simple.cu that forgets gamma: y = x * rstd. Every
 * element is off by a factor gamma[c] (uniform in [0.5, 1.5)): wrong at
 * every dtype.
 */
// kevo: problem rmsnorm
// kevo: dtypes fp32 fp16 bf16
// kevo: launch wrong_nogamma
// kevo: grid ROWS
// kevo: block 256

extern "C" __global__ void wrong_nogamma(const elem_t *x, const elem_t *gamma,
                                         elem_t *y, int ROWS, int COLS,
                                         void *ws)
{
    __shared__ float sh[256];
    const elem_t *xr = x + (long long)blockIdx.x * COLS;
    elem_t *yr = y + (long long)blockIdx.x * COLS;
    float q = 0.f;
    for (int c = threadIdx.x; c < COLS; c += 256)
        q += TO_F32(xr[c]) * TO_F32(xr[c]);
    sh[threadIdx.x] = q;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s)
            sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    const float rstd = rsqrtf(sh[0] / COLS + 1e-6f);
    for (int c = threadIdx.x; c < COLS; c += 256)
        yr[c] = FROM_F32(TO_F32(xr[c]) * rstd);
}
