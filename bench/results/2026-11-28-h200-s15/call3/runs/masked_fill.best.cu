// kevo: llm_382f7c3e VEC=4 UNROLL=4 THREADS=512 HINT=0 dtype=fp32
typedef float elem_t;
#define TO_F32(x) (x)
#define FROM_F32(x) (x)
#define VEC 4
#define UNROLL 4
#define THREADS 512
#define HINT 0
#line 1 "llm_382f7c3e.cu"
// kevo: problem masked_fill
// kevo: dtypes fp32
// kevo: param VEC 4 8 16 default=16
// kevo: param UNROLL 1 2 4 default=1
// kevo: param THREADS 64 128 256 512 1024 default=128
// kevo: param HINT 0 1 default=1
// kevo: constraint UNROLL * VEC * THREADS <= 32768
// kevo: launch masked_fill_vec
// kevo: grid cdiv(cdiv(n * m, VEC), THREADS * UNROLL)
// kevo: block THREADS

/* Design 1: flat one-shot vectorized elementwise kernel.  A group is VEC
   consecutive elements: VEC mask bytes in one vector load, VEC/4 float4 of x,
   VEC/4 float4 stores.  Loads of all UNROLL groups precede all stores. */

#define NV (VEC / 4) /* float4 (and 32-bit mask words) per group */

#if HINT == 1
#define MF_LD(p) __ldcs(p)
#define MF_ST(p, v) __stcs((p), (v))
#else
#define MF_LD(p) __ldg(p)
#define MF_ST(p, v) (*(p) = (v))
#endif

__device__ __forceinline__ void load_group(const float *x, const bool *mask, long long e,
                                           float4 (&xv)[NV], unsigned (&mw)[NV])
{
#if VEC == 4
    mw[0] = MF_LD(reinterpret_cast<const unsigned int *>(mask + e));
#elif VEC == 8
    const uint2 t = MF_LD(reinterpret_cast<const uint2 *>(mask + e));
    mw[0] = t.x;
    mw[1] = t.y;
#else
    const uint4 t = MF_LD(reinterpret_cast<const uint4 *>(mask + e));
    mw[0] = t.x;
    mw[1] = t.y;
    mw[2] = t.z;
    mw[3] = t.w;
#endif
    const float4 *xp = reinterpret_cast<const float4 *>(x + e);
#pragma unroll
    for (int v = 0; v < NV; ++v)
        xv[v] = MF_LD(xp + v);
}

extern "C" __global__ void __launch_bounds__(THREADS)
masked_fill_vec(const elem_t *__restrict__ x, const bool *__restrict__ mask,
                elem_t *__restrict__ out, int n, int m, void *ws)
{
    const long long total = (long long)n * m;
    const bool aligned =
        ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(out)) & 15ull) == 0ull &&
        (reinterpret_cast<unsigned long long>(mask) & (unsigned long long)(VEC - 1)) == 0ull;
    const long long g0 = (long long)blockIdx.x * (UNROLL * THREADS) + threadIdx.x;

    float4 xv[UNROLL][NV];
    unsigned mw[UNROLL][NV];
    bool full[UNROLL];

    /* phase 1: every load */
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
        const long long e = (g0 + (long long)u * THREADS) * VEC;
        full[u] = aligned && e + VEC <= total;
        if (full[u])
            load_group(x, mask, e, xv[u], mw[u]);
    }

    /* phase 2: select and store */
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
        const long long e = (g0 + (long long)u * THREADS) * VEC;
        if (full[u]) {
            float4 *op = reinterpret_cast<float4 *>(out + e);
#pragma unroll
            for (int v = 0; v < NV; ++v) {
                const unsigned w = mw[u][v];
                float4 o = xv[u][v];
                o.x = (w & 0x000000ffu) ? -1.0f : o.x;
                o.y = (w & 0x0000ff00u) ? -1.0f : o.y;
                o.z = (w & 0x00ff0000u) ? -1.0f : o.z;
                o.w = (w & 0xff000000u) ? -1.0f : o.w;
                MF_ST(op + v, o);
            }
        } else if (e < total) {
            /* partial last group, or misaligned buffers: scalar */
            const long long end = e + VEC < total ? e + VEC : total;
            for (long long i = e; i < end; ++i)
                out[i] = mask[i] ? FROM_F32(-1.0f) : x[i];
        }
    }
}
