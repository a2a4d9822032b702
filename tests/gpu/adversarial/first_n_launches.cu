// expect: cheat  (module globals are hashed around every launch, see src/gpu/worker.h guarantee 1: "module global 'blocks_started' changed during check A"; was compile_error when all globals were refused; without either rule this kernel is wrong)
/*
 * first_n_launches.cu - correct for the first 3 launches, then a uniform
 * 1/COLS everywhere. Launches are counted in a __device__ counter (blocks
 * started / gridDim.x; launches on one stream do not overlap), the warm-up-
 * detection attack.
 */
// kevo: problem softmax
// kevo: dtypes fp32
// kevo: param THREADS 128 256 default=256
// kevo: launch first_n_launches
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

__device__ unsigned blocks_started; /* over every launch of this module */

extern "C" __global__ void __launch_bounds__(THREADS)
first_n_launches(const elem_t *__restrict__ x, elem_t *__restrict__ y,
                 int ROWS, int COLS, void *ws)
{
    __shared__ unsigned launch_no;
    if (threadIdx.x == 0)
        launch_no = atomicAdd(&blocks_started, 1u) / gridDim.x;
    __syncthreads();
    if (launch_no >= 3) {
        elem_t *yr = y + (long long)blockIdx.x * COLS;
        for (int c = threadIdx.x; c < COLS; c += blockDim.x)
            yr[c] = FROM_F32(1.f / COLS);
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
}
