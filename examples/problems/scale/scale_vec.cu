/*
 * scale_vec.cu - y[r][c] = x[r][c] * g[c], a grid-stride loop over
 * VEC-wide chunks of one row each (16 bytes at VEC * sizeof(elem_t) = 16)
 * when COLS and the pointers keep chunks aligned, scalar otherwise. UNROLL
 * chunks per thread and step keep loads in flight; BLOCKS_PER_SM sizes the
 * grid to the GPU.
 */
// kevo: problem scale
// kevo: dtypes fp32 fp16 bf16
// kevo: param VEC 1 2 4 8 default=4
// kevo: param THREADS 128 256 512 1024 default=256
// kevo: param UNROLL 1 2 4 default=2
// kevo: param BLOCKS_PER_SM 1 2 4 8 default=4
// kevo: launch scale_vec
// kevo: grid SMS * BLOCKS_PER_SM
// kevo: block THREADS

template <int N> struct alignas(sizeof(elem_t) * N) evec {
    elem_t v[N];
};

extern "C" __global__ void __launch_bounds__(THREADS)
scale_vec(const elem_t *__restrict__ x, const elem_t *__restrict__ g,
          elem_t *__restrict__ y, int ROWS, int COLS, void *ws)
{
    long long n = (long long)ROWS * COLS;
    long long stride = (long long)gridDim.x * THREADS;
    long long tid = (long long)blockIdx.x * THREADS + threadIdx.x;
    bool vec = VEC > 1 && COLS % VEC == 0 &&
               ((unsigned long long)x | (unsigned long long)g |
                (unsigned long long)y) % (sizeof(elem_t) * VEC) == 0;
    if (vec) {
        long long nc = n / VEC; /* chunks; a chunk never crosses a row */
        for (long long c0 = tid; c0 < nc; c0 += stride * UNROLL) {
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                long long c = c0 + u * stride;
                if (c < nc) {
                    evec<VEC> a = reinterpret_cast<const evec<VEC> *>(x)[c];
                    int col = (int)(c * VEC % COLS);
                    evec<VEC> s = *reinterpret_cast<const evec<VEC> *>(g + col);
                    evec<VEC> o;
#pragma unroll
                    for (int i = 0; i < VEC; ++i)
                        o.v[i] = FROM_F32(TO_F32(a.v[i]) * TO_F32(s.v[i]));
                    reinterpret_cast<evec<VEC> *>(y)[c] = o;
                }
            }
        }
    } else {
        for (long long i = tid; i < n; i += stride)
            y[i] = FROM_F32(TO_F32(x[i]) * TO_F32(g[i % COLS]));
    }
}
