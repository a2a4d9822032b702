/*
 * bias_gelu_2d.cu - a 2-D grid: blockIdx.x picks a strip of THREADS * VEC
 * columns, blockIdx.y a band of RPB rows (grid-stride over bands past
 * 65535). Each thread loads its VEC bias values once (no per-element
 * modulo), then walks the band UNROLL rows at a time: UNROLL 16-byte loads
 * in flight (at VEC * sizeof(elem_t) = 16), GELU in fp32, one vector
 * store per row. ERF picks the erf: 0 CUDA's erff, 1 a branchless
 * polynomial (fewer instructions; within the fp32 tolerance, which the
 * harness checks like any other point). Rows whose length or base
 * address do not keep VEC-wide chunks aligned take a scalar path over the
 * same columns.
 */
// kevo: problem bias_gelu
// kevo: dtypes fp32 fp16 bf16
// kevo: param VEC 1 2 4 8 default=4
// kevo: param THREADS 32 64 128 256 512 1024 default=256
// kevo: param RPB 1 2 4 8 16 32 default=4
// kevo: param UNROLL 1 2 4 8 default=2
// kevo: param ERF 0 1 default=0
// kevo: constraint RPB % UNROLL == 0
// kevo: launch bias_gelu_2d
// kevo: grid cdiv(COLS, THREADS * VEC), min(cdiv(ROWS, RPB), 65535)
// kevo: block THREADS

template <int N> struct alignas(sizeof(elem_t) * N) evec {
    elem_t v[N];
};

__device__ __forceinline__ float gelu(float v)
{
#if ERF == 0
    return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
#else
    /* erfc(z), z = |v| / sqrt(2), by Abramowitz & Stegun 7.1.26 (absolute
     * error <= 1.5e-7): branchless, one reciprocal and one exp; for v < 0
     * 1 + erf(v / sqrt(2)) = erfc(z) directly, without cancellation */
    const float z = fabsf(v) * 0.70710678118654752f;
    const float t = __fdividef(1.f, fmaf(0.3275911f, z, 1.f));
    float p = fmaf(1.061405429f, t, -1.453152027f);
    p = fmaf(p, t, 1.421413741f);
    p = fmaf(p, t, -0.284496736f);
    p = fmaf(p, t, 0.254829592f);
    const float e = p * t * __expf(-z * z);
    return v >= 0.f ? fmaf(-0.5f * v, e, v) : 0.5f * v * e;
#endif
}

extern "C" __global__ void __launch_bounds__(THREADS)
bias_gelu_2d(const elem_t *__restrict__ x, const elem_t *__restrict__ bias,
             elem_t *__restrict__ y, int ROWS, int COLS, void *ws)
{
    const int c0 = (blockIdx.x * THREADS + threadIdx.x) * VEC;
    if (c0 >= COLS)
        return;
    const bool vec = VEC > 1 && COLS % VEC == 0 &&
                     ((unsigned long long)x | (unsigned long long)bias |
                      (unsigned long long)y) % (sizeof(elem_t) * VEC) == 0;
    float b[VEC];
#pragma unroll
    for (int i = 0; i < VEC; ++i)
        b[i] = c0 + i < COLS ? TO_F32(bias[c0 + i]) : 0.f;
    for (long long band = blockIdx.y; band * RPB < ROWS; band += gridDim.y) {
        const long long r_first = band * RPB;
#pragma unroll 1
        for (int r0 = 0; r0 < RPB; r0 += UNROLL) {
            if (vec) {
                evec<VEC> a[UNROLL];
#pragma unroll
                for (int u = 0; u < UNROLL; ++u) {
                    const long long r = r_first + r0 + u;
                    if (r < ROWS)
                        a[u] = *reinterpret_cast<const evec<VEC> *>(
                            x + r * COLS + c0);
                }
#pragma unroll
                for (int u = 0; u < UNROLL; ++u) {
                    const long long r = r_first + r0 + u;
                    if (r < ROWS) {
                        evec<VEC> o;
#pragma unroll
                        for (int i = 0; i < VEC; ++i)
                            o.v[i] = FROM_F32(gelu(TO_F32(a[u].v[i]) + b[i]));
                        *reinterpret_cast<evec<VEC> *>(y + r * COLS + c0) = o;
                    }
                }
            } else {
#pragma unroll
                for (int u = 0; u < UNROLL; ++u) {
                    const long long r = r_first + r0 + u;
                    if (r < ROWS)
                        for (int i = 0; i < VEC && c0 + i < COLS; ++i)
                            y[r * COLS + c0 + i] = FROM_F32(
                                gelu(TO_F32(x[r * COLS + c0 + i]) + b[i]));
                }
            }
        }
    }
}
