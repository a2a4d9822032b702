// expect: wrong
/*
 * race_no_sync.cu - a block-reduction softmax whose sum step lacks the
 * __syncthreads between the shared-memory write of each warp's partial sum
 * and the read of all of them. The race is made to bite: warp 0 clears the
 * partials and reads them at once, while the other 31 warps first spend
 * ~10^4 cycles in a dependent loop, so the normalisation misses most of the
 * row.
 */
// kevo: problem softmax
// kevo: dtypes fp32
// kevo: param THREADS 1024 default=1024
// kevo: launch race_no_sync
// kevo: grid ROWS
// kevo: block THREADS

#define NEG_INF __int_as_float(0xff800000)

/* Block-wide max (op 0) or sum (op 1) of v; red holds 32 floats. */
__device__ float block_reduce(float v, int op, float *red)
{
    for (int o = 16; o > 0; o >>= 1) {
        float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = op ? v + w : fmaxf(v, w);
    }
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    __syncthreads(); /* red may still be read by the previous call */
    if (lane == 0)
        red[warp] = v;
    __syncthreads();
    v = lane < (int)blockDim.x / 32 ? red[lane] : (op ? 0.f : NEG_INF);
    for (int o = 16; o > 0; o >>= 1) {
        float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = op ? v + w : fmaxf(v, w);
    }
    return v;
}

extern "C" __global__ void __launch_bounds__(THREADS)
race_no_sync(const elem_t *__restrict__ x, elem_t *__restrict__ y,
             int ROWS, int COLS, void *ws)
{
    __shared__ float red[32];
    __shared__ float part[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const elem_t *xr = x + (long long)blockIdx.x * COLS;
    elem_t *yr = y + (long long)blockIdx.x * COLS;
    float m = NEG_INF, s = 0.f;
    for (int c = threadIdx.x; c < COLS; c += blockDim.x)
        m = fmaxf(m, TO_F32(xr[c]));
    m = block_reduce(m, 0, red); /* correct, with barriers */
    if (warp == 0)
        part[lane] = 0.f;
    for (int c = threadIdx.x; c < COLS; c += blockDim.x)
        s += expf(TO_F32(xr[c]) - m);
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    if (warp != 0) { /* slow warps: a loop the compiler must keep */
        float d = s;
        for (int i = 0; i < 4096; ++i)
            d = d * 0.9999f + 1e-7f;
        if (d == 12345.678f)
            s += 1.f;
    }
    if (lane == 0)
        part[warp] = s;
    /* BUG (deliberate): no __syncthreads() here */
    float t = lane < (int)blockDim.x / 32 ? part[lane] : 0.f;
    for (int o = 16; o > 0; o >>= 1)
        t += __shfl_xor_sync(0xffffffffu, t, o);
    for (int c = threadIdx.x; c < COLS; c += blockDim.x)
        yr[c] = FROM_F32(expf(TO_F32(xr[c]) - m) / t);
}
