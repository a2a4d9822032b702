// kevo: llm_c62a6914 THREADS=256 VPT=4 STREAM=1 dtype=fp32
typedef float elem_t;
#define TO_F32(x) (x)
#define FROM_F32(x) (x)
#define THREADS 256
#define VPT 4
#define STREAM 1
#line 1 "llm_c62a6914.cu"
// kevo: problem cumsum
// kevo: dtypes fp32
// kevo: param THREADS 128 256 512 1024 default=256
// kevo: param VPT 1 2 4 8 default=4
// kevo: param STREAM 0 1 default=0
// kevo: constraint THREADS * VPT <= 4096
// kevo: launch cumsum_row_block
// kevo: grid batch_size
// kevo: block THREADS

#define NWARPS (THREADS / 32)
#define WSPAN (VPT * 128)          /* elements per warp per chunk  */
#define CSPAN (THREADS * VPT * 4)  /* elements per block per chunk */
#define FULL_MASK 0xffffffffu

/* 4 consecutive elements starting at e (e % 4 == 0 and end % 4 == 0 when vec) */
__device__ __forceinline__ float4 cs_load(const float *__restrict__ p, int e, int end, bool vec)
{
    if (vec) {
        if (e < end) {
#if STREAM
            return __ldcs(reinterpret_cast<const float4 *>(p + e));
#else
            return __ldg(reinterpret_cast<const float4 *>(p + e));
#endif
        }
        return make_float4(0.f, 0.f, 0.f, 0.f);
    }
    float4 r;
    r.x = (e < end) ? TO_F32(__ldg(p + e)) : 0.f;
    r.y = (e + 1 < end) ? TO_F32(__ldg(p + e + 1)) : 0.f;
    r.z = (e + 2 < end) ? TO_F32(__ldg(p + e + 2)) : 0.f;
    r.w = (e + 3 < end) ? TO_F32(__ldg(p + e + 3)) : 0.f;
    return r;
}

__device__ __forceinline__ void cs_store(float *__restrict__ p, int e, int end, bool vec, float4 v)
{
    if (vec) {
        if (e < end) {
#if STREAM
            __stcs(reinterpret_cast<float4 *>(p + e), v);
#else
            *reinterpret_cast<float4 *>(p + e) = v;
#endif
        }
        return;
    }
    if (e < end) p[e] = FROM_F32(v.x);
    if (e + 1 < end) p[e + 1] = FROM_F32(v.y);
    if (e + 2 < end) p[e + 2] = FROM_F32(v.z);
    if (e + 3 < end) p[e + 3] = FROM_F32(v.w);
}

extern "C" __global__ void __launch_bounds__(THREADS)
cumsum_row_block(const elem_t *__restrict__ x, elem_t *__restrict__ out,
                 int batch_size, int input_shape, void *ws)
{
    __shared__ float s_wt[2][NWARPS];

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int n = input_shape;
    const long long off = (long long)blockIdx.x * n;
    const float *xr = x + off;
    float *yr = out + off;
    const bool vec = ((n & 3) == 0) &&
                     (((reinterpret_cast<unsigned long long>(x) |
                        reinterpret_cast<unsigned long long>(out)) & 15ull) == 0ull);

    float carry = 0.f;
    int par = 0;
    for (int c0 = 0; c0 < n; c0 += CSPAN) { /* block-uniform loop */
        const int wb = c0 + warp * WSPAN + lane * 4;
        float4 v[VPT];
#pragma unroll
        for (int j = 0; j < VPT; ++j) v[j] = cs_load(xr, wb + j * 128, n, vec);

        /* thread + warp level: pre[j] = exclusive prefix (inside this warp's span) */
        float pre[VPT];
        float wp = 0.f;
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            v[j].y += v[j].x;
            v[j].z += v[j].y;
            v[j].w += v[j].z;
            float inc = v[j].w;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const float t = __shfl_up_sync(FULL_MASK, inc, o);
                if (lane >= o) inc += t;
            }
            float ex = __shfl_up_sync(FULL_MASK, inc, 1);
            if (lane == 0) ex = 0.f;
            pre[j] = wp + ex;
            wp += __shfl_sync(FULL_MASK, inc, 31);
        }

        /* block level: scan of the warp totals, done redundantly by every warp */
        if (lane == 0) s_wt[par][warp] = wp;
        __syncthreads();
        float winc = (lane < NWARPS) ? s_wt[par][lane] : 0.f;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const float t = __shfl_up_sync(FULL_MASK, winc, o);
            if (lane >= o) winc += t;
        }
        float wex = __shfl_up_sync(FULL_MASK, winc, 1);
        if (lane == 0) wex = 0.f;
        const float base = carry + __shfl_sync(FULL_MASK, wex, warp);
        const float ctot = __shfl_sync(FULL_MASK, winc, 31);

#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            const float b = base + pre[j];
            cs_store(yr, wb + j * 128, n, vec,
                     make_float4(b + v[j].x, b + v[j].y, b + v[j].z, b + v[j].w));
        }
        carry += ctot;
        par ^= 1;
    }
}
