// expect: compile_error
/*
 * globaltimer_split.cu - a correct softmax that reads the global timer
 * through a string literal split in two ("%%global" "timer"), so that no
 * source text says globaltimer in one piece, and lets the reading leak
 * into its output bits when two calls are far apart (timed runs told
 * apart). Issue 29 item 1: the judge decides from the PTX (codescan.c),
 * where the literal is joined: compile_error "policy: the compiled code
 * reads the global timer". Was ok with the source-text ban.
 */
// kevo: problem softmax
// kevo: dtypes fp32
// kevo: launch gt_split
// kevo: grid ROWS
// kevo: block 256
extern "C" __global__ void gt_split(const elem_t *__restrict__ x,
                                   elem_t *__restrict__ y, int ROWS,
                                   int COLS, void *ws)
{
    __shared__ float red[256];
    const elem_t *xr = x + (long long)blockIdx.x * COLS;
    elem_t *yr = y + (long long)blockIdx.x * COLS;
    unsigned long long t;
    asm volatile("mov.u64 %0, %%global" "timer;" : "=l"(t));
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
    /* below the fp32 tolerance: 1 ulp when the timer's bit 40 is set */
    float bump = 1.0f + (float)((t >> 40) & 1) * 1.2e-7f;
    for (int c = threadIdx.x; c < COLS; c += 256)
        yr[c] = FROM_F32(expf(TO_F32(xr[c]) - m) / sum * bump);
}
