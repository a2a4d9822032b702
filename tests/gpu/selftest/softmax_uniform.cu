// expect: wrong
/*
 * problem self-test (softmax): each row is a random probability vector,
 * u / sum(u) with u uniform in (0, 1] from a hash of (row, col): positive,
 * rows sum to 1, values of the right size (~1/COLS), and it reads x (a
 * data dependence through the row maximum), yet it is not softmax(x).
 * See softmax_const.cu for the constant 1/COLS and the all-zeros tests.
 */
// kevo: problem softmax
// kevo: dtypes fp32 fp16 bf16
// kevo: launch sm_uniform
// kevo: grid ROWS
// kevo: block 256
__device__ __forceinline__ float unit(long long r, int c)
{
    unsigned long long z = ((unsigned long long)r << 32 | (unsigned)c) +
                           0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return ((float)(z >> 40) + 1.0f) * (1.0f / 16777216.0f); /* (0, 1] */
}

extern "C" __global__ void sm_uniform(const elem_t *__restrict__ x,
                                      elem_t *__restrict__ y, int ROWS,
                                      int COLS, void *ws)
{
    __shared__ float red[256];
    const long long r = blockIdx.x;
    float s = 0.f, mx = -3.0e38f;
    for (int c = threadIdx.x; c < COLS; c += 256) {
        s += unit(r, c);
        mx = fmaxf(mx, TO_F32(x[r * COLS + c]));
    }
    /* mx > -3e38 always: the data dependence only */
    red[threadIdx.x] = mx > -3.0e38f ? s : 0.f;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k)
            red[threadIdx.x] += red[threadIdx.x + k];
        __syncthreads();
    }
    const float inv = 1.0f / red[0];
    for (int c = threadIdx.x; c < COLS; c += 256)
        y[r * COLS + c] = FROM_F32(unit(r, c) * inv);
}
