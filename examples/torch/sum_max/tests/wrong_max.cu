// expect: wrong (in out1)
/*
 * wrong_max.cu - ok_rows.cu whose maximum is 1e-3 too large: wrong, in
 * out1. One tolerance wide enough for torch's own error on the sum
 * (about 0.06) would pass it; out1's own (about 2e-6) does not.
 */
// kevo: problem sum_max
// kevo: dtypes fp32
// kevo: launch wrong_max
// kevo: grid rows
// kevo: block 256
extern "C" __global__ void wrong_max(const elem_t *x, elem_t *out0, elem_t *out1, int rows, int cols, void *ws)
{
    __shared__ float ss[256], sm[256];
    const elem_t *row = x + (long long)blockIdx.x * cols;
    float s = 0.f, mx = TO_F32(row[0]);
    for (int c = threadIdx.x; c < cols; c += 256) {
        float v = TO_F32(row[c]);
        s += v;
        mx = fmaxf(mx, v);
    }
    ss[threadIdx.x] = s;
    sm[threadIdx.x] = mx;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) {
            ss[threadIdx.x] += ss[threadIdx.x + k];
            sm[threadIdx.x] = fmaxf(sm[threadIdx.x], sm[threadIdx.x + k]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out0[blockIdx.x] = FROM_F32(ss[0]);
        out1[blockIdx.x] = FROM_F32(sm[0] + 1e-3f);
    }
}
