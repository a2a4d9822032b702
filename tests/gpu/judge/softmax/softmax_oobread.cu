/*
 * softmax_oobread.cu - issue 29 item 2: a correct softmax that also reads
 * one element past the end of its row and discards it (a prefetch gone
 * wrong): inside the evaluator's guard bands it cannot fault and is ok;
 * on the last row it reads past the end of x. compute-sanitizer memcheck
 * on exact-size buffers (kevo verify --sanitize) must report it.
 */
// kevo: problem softmax
// kevo: dtypes fp32
// kevo: launch sm_oob
// kevo: grid ROWS
// kevo: block 256
extern "C" __global__ void sm_oob(const elem_t *__restrict__ x,
                                   elem_t *__restrict__ y, int ROWS,
                                   int COLS, void *ws)
{
    __shared__ float red[256];
    const elem_t *xr = x + (long long)blockIdx.x * COLS;
    elem_t *yr = y + (long long)blockIdx.x * COLS;
    volatile __shared__ float sink; /* a volatile store: the read stays */
    if (threadIdx.x == 0)
        sink = ((const volatile float *)xr)[COLS]; /* one past the row */
    float m = -3.0e38f;
    for (int c = threadIdx.x; c < COLS; c += 256)
        m = fmaxf(m, TO_F32(xr[c]));
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = 128; s; s >>= 1) {
        if (threadIdx.x < s)
            red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0;
    for (int c = threadIdx.x; c < COLS; c += 256)
        sum += expf(TO_F32(xr[c]) - m);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = 128; s; s >>= 1) {
        if (threadIdx.x < s)
            red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    sum = red[0];
    for (int c = threadIdx.x; c < COLS; c += 256)
        yr[c] = FROM_F32(expf(TO_F32(xr[c]) - m) / sum);
}
