// expect: cheat  (module globals are hashed around every launch, see src/gpu/worker.h guarantee 1: "module global 'cache_y' changed during check A"; was compile_error when all globals were refused; without either rule this kernel is wrong)
/*
 * cached_device_buffer.cu - memoization. The first launch computes each row
 * and keeps it in a __device__ array; later launches copy the kept rows and
 * ignore their (new) inputs. Module state persists between launches, so
 * fresh inputs per check must catch it.
 */
// kevo: problem softmax
// kevo: dtypes fp32
// kevo: param THREADS 128 256 default=256
// kevo: launch cached_device_buffer
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

#define CACHE_ELEMS (1 << 24) /* 64 MB: 4096 x 4096 fp32 */
#define CACHE_ROWS 65536
__device__ float cache_y[CACHE_ELEMS];
__device__ int cache_ok[CACHE_ROWS];

extern "C" __global__ void __launch_bounds__(THREADS)
cached_device_buffer(const elem_t *__restrict__ x, elem_t *__restrict__ y,
                     int ROWS, int COLS, void *ws)
{
    const long long row = blockIdx.x;
    if ((long long)ROWS * COLS > CACHE_ELEMS || ROWS > CACHE_ROWS) {
        __shared__ float red[32];
        const elem_t *xr = x + (long long)blockIdx.x * COLS;
        elem_t *yr = y + (long long)blockIdx.x * COLS;
        float m = NEG_INF, s = 0.f;
        for (int c = threadIdx.x; c < COLS; c += blockDim.x)
            m = fmaxf(m, TO_F32(xr[c]));
        m = block_reduce(m, 0, red);
        for (int c = threadIdx.x; c < COLS; c += blockDim.x)
            s += expf(TO_F32(xr[c]) - m);
        s = block_reduce(s, 1, red);
        for (int c = threadIdx.x; c < COLS; c += blockDim.x)
            yr[c] = FROM_F32(expf(TO_F32(xr[c]) - m) / s);
        return;
    }
    if (cache_ok[row]) { /* written only by this row's block, earlier */
        for (int c = threadIdx.x; c < COLS; c += blockDim.x)
            y[row * COLS + c] = FROM_F32(cache_y[row * COLS + c]);
        return;
    }
    __shared__ float red[32];
    const elem_t *xr = x + (long long)blockIdx.x * COLS;
    elem_t *yr = y + (long long)blockIdx.x * COLS;
    float m = NEG_INF, s = 0.f;
    for (int c = threadIdx.x; c < COLS; c += blockDim.x)
        m = fmaxf(m, TO_F32(xr[c]));
    m = block_reduce(m, 0, red);
    for (int c = threadIdx.x; c < COLS; c += blockDim.x)
        s += expf(TO_F32(xr[c]) - m);
    s = block_reduce(s, 1, red);
    for (int c = threadIdx.x; c < COLS; c += blockDim.x)
        yr[c] = FROM_F32(expf(TO_F32(xr[c]) - m) / s);
    for (int c = threadIdx.x; c < COLS; c += blockDim.x)
        cache_y[row * COLS + c] = TO_F32(yr[c]);
    __syncthreads();
    if (threadIdx.x == 0)
        cache_ok[row] = 1;
}
