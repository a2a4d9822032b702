// expect: ok
/*
 * harness test: a __device__ counter used within one launch and restored
 * before it ends (a grid-wide "last block" ticket, as split-K and stream-K
 * kernels use) carries no state across launches: module memory is the same
 * after every launch, so it passes (issue 10, item 2).
 */
// kevo: problem softmax
// kevo: dtypes fp32
// kevo: launch sm_ticket
// kevo: grid ROWS
// kevo: block 256

__device__ unsigned int done_blocks;

extern "C" __global__ void sm_ticket(const elem_t *__restrict__ x,
                                     elem_t *__restrict__ y, int ROWS,
                                     int COLS, void *ws)
{
    __shared__ float red[256];
    const long long base = (long long)blockIdx.x * COLS;
    float m = -3.0e38f;
    for (long long c = threadIdx.x; c < COLS; c += 256)
        m = fmaxf(m, TO_F32(x[base + c]));
    red[threadIdx.x] = m;
    __syncthreads();
    for (int o = 128; o; o >>= 1) {
        if (threadIdx.x < o)
            red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + o]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float s = 0.f;
    for (long long c = threadIdx.x; c < COLS; c += 256)
        s += expf(TO_F32(x[base + c]) - m);
    red[threadIdx.x] = s;
    __syncthreads();
    for (int o = 128; o; o >>= 1) {
        if (threadIdx.x < o)
            red[threadIdx.x] += red[threadIdx.x + o];
        __syncthreads();
    }
    s = red[0];
    for (long long c = threadIdx.x; c < COLS; c += 256)
        y[base + c] = FROM_F32(expf(TO_F32(x[base + c]) - m) / s);
    /* the last block to finish resets the ticket for the next launch */
    if (threadIdx.x == 0 && atomicAdd(&done_blocks, 1u) == gridDim.x - 1)
        done_blocks = 0; /* seen by the next launch (stream order) */
}
