// expect: ok
/* harness test (issue 29 item 1): a plain correct softmax whose comments
 * say malloc, free(), %globaltimer and cudaLaunchDevice, and which has a
 * variable named malloc_count: the judge reads the compiled code, so
 * comments may say anything and the kernel is ok. (The source-text ban
 * called it compile_error.) No malloc is called here. */
// kevo: problem softmax
// kevo: dtypes fp32
// kevo: launch sm_words
// kevo: grid ROWS
// kevo: block 256
extern "C" __global__ void sm_words(const elem_t *__restrict__ x,
                                   elem_t *__restrict__ y, int ROWS,
                                   int COLS, void *ws)
{
    __shared__ float red[256];
    const elem_t *xr = x + (long long)blockIdx.x * COLS;
    elem_t *yr = y + (long long)blockIdx.x * COLS;
    int malloc_count = 0; /* never calls malloc */
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
        yr[c] = FROM_F32(expf(TO_F32(xr[c]) - m) / sum + (float)malloc_count);
}
