/*
 * rowwise.cu - test template (tests/unit/test_tpl.c): one block per row,
 * block-wide max and sum through shared memory.
 */
// kevo: problem softmax
// kevo: dtypes fp32 fp16 bf16
// kevo: param THREADS 64 128 256 512 1024 default=256
// kevo: constraint ispow2(THREADS)
// kevo: requires COLS >= THREADS / 32
// kevo: launch softmax_rowwise
// kevo: grid ROWS
// kevo: block THREADS
// kevo: smem THREADS * 4

extern "C" __global__ void softmax_rowwise(const elem_t *__restrict__ x,
                                           elem_t *__restrict__ y, int ROWS,
                                           int COLS, void *ws)
{
    extern __shared__ float red[];
    const elem_t *xr = x + (size_t)blockIdx.x * COLS;
    elem_t *yr = y + (size_t)blockIdx.x * COLS;
    float m = -INFINITY, s = 0.f;
    for (int i = threadIdx.x; i < COLS; i += THREADS)
        m = fmaxf(m, TO_F32(xr[i]));
    red[threadIdx.x] = m;
    __syncthreads();
    for (int w = THREADS / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + w]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    for (int i = threadIdx.x; i < COLS; i += THREADS)
        s += __expf(TO_F32(xr[i]) - m);
    red[threadIdx.x] = s;
    __syncthreads();
    for (int w = THREADS / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            red[threadIdx.x] += red[threadIdx.x + w];
        __syncthreads();
    }
    s = red[0];
    for (int i = threadIdx.x; i < COLS; i += THREADS)
        yr[i] = FROM_F32(__expf(TO_F32(xr[i]) - m) / s);
}
