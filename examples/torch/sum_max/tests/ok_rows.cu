// expect: ok
/*
 * ok_rows.cu - (x.sum(1), x.amax(1)): one block of 256 threads per row,
 * fp32 partial sums and maxima reduced in shared memory.
 */
// kevo: problem sum_max
// kevo: dtypes fp32
// kevo: launch ok_rows
// kevo: grid rows
// kevo: block 256
extern "C" __global__ void ok_rows(const elem_t *x, elem_t *out0, elem_t *out1, int rows, int cols, void *ws)
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
        out1[blockIdx.x] = FROM_F32(sm[0]);
    }
}
