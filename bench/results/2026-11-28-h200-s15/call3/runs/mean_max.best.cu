// kevo: llm_e945f4e6 TPR=32 WARPS=8 RPG=1 UNR=4 LDHINT=1 dtype=fp32
typedef float elem_t;
#define TO_F32(x) (x)
#define FROM_F32(x) (x)
#define TPR 32
#define WARPS 8
#define RPG 1
#define UNR 4
#define LDHINT 1
#line 1 "llm_e945f4e6.cu"
// kevo: problem mean_max
// kevo: dtypes fp32
// kevo: param TPR 8 16 32 default=32
// kevo: param WARPS 2 4 8 16 default=8
// kevo: param RPG 1 2 4 default=1
// kevo: param UNR 1 2 4 8 default=4
// kevo: param LDHINT 0 1 2 default=1
// kevo: constraint RPG * UNR <= 16
// kevo: launch mean_max_rows
// kevo: grid max(1, cdiv(rows, WARPS * (32 / TPR) * RPG))
// kevo: block WARPS * 32

#define GPW (32 / TPR)       /* row groups per warp */
#define GPB (WARPS * GPW)    /* row groups per block */
#define ROWS_PB (GPB * RPG)  /* rows per block */

__device__ __forceinline__ float4 ld4(const float4 *p)
{
    float4 v;
#if LDHINT == 0
    v = __ldg(p);
#elif LDHINT == 1
    asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
#else
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
#endif
    return v;
}

extern "C" __global__ void __launch_bounds__(WARPS * 32)
mean_max_rows(const elem_t *__restrict__ x, elem_t *__restrict__ out0,
              elem_t *__restrict__ out1, int rows, int cols, void *ws)
{
    const int lane = threadIdx.x & 31;
    const int gl = lane & (TPR - 1);                         /* lane within row group */
    const int grp = (threadIdx.x >> 5) * GPW + lane / TPR;   /* row group in block */
    const long long rbase = (long long)blockIdx.x * ROWS_PB + grp;
    const float ninf = __int_as_float(0xff800000);

    long long row[RPG];
    bool ok[RPG];
    float s[RPG], m[RPG];
#pragma unroll
    for (int r = 0; r < RPG; ++r) {
        row[r] = rbase + (long long)r * GPB;
        ok[r] = row[r] < (long long)rows;
        s[r] = 0.f;
        m[r] = ninf;
    }

    const bool vec = ((cols & 3) == 0) && ((((unsigned long long)x) & 15ull) == 0ull);
    if (vec) {
        const int n4 = cols >> 2;
        const float4 *rp[RPG];
#pragma unroll
        for (int r = 0; r < RPG; ++r)
            rp[r] = reinterpret_cast<const float4 *>(x + (ok[r] ? row[r] : 0ll) * (long long)cols);

        for (int c0 = 0; c0 < n4; c0 += TPR * UNR) {
            float4 v[RPG][UNR];
            /* all loads of this step first: RPG*UNR x 16 B in flight per lane */
#pragma unroll
            for (int r = 0; r < RPG; ++r)
#pragma unroll
                for (int u = 0; u < UNR; ++u) {
                    const int c = c0 + u * TPR + gl;
                    v[r][u] = make_float4(0.f, 0.f, 0.f, 0.f);
                    if (ok[r] && c < n4) v[r][u] = ld4(rp[r] + c);
                }
#pragma unroll
            for (int r = 0; r < RPG; ++r)
#pragma unroll
                for (int u = 0; u < UNR; ++u) {
                    const int c = c0 + u * TPR + gl;
                    if (c < n4) {
                        const float4 a = v[r][u];
                        s[r] += (a.x + a.y) + (a.z + a.w);
                        m[r] = fmaxf(m[r], fmaxf(fmaxf(a.x, a.y), fmaxf(a.z, a.w)));
                    }
                }
        }
    } else {
        /* generic path: any cols / alignment, coalesced scalar loads */
        for (int c0 = 0; c0 < cols; c0 += TPR * UNR * 4) {
            float v[RPG][UNR * 4];
#pragma unroll
            for (int r = 0; r < RPG; ++r)
#pragma unroll
                for (int u = 0; u < UNR * 4; ++u) {
                    const int c = c0 + u * TPR + gl;
                    v[r][u] = 0.f;
                    if (ok[r] && c < cols) v[r][u] = TO_F32(__ldg(x + row[r] * (long long)cols + c));
                }
#pragma unroll
            for (int r = 0; r < RPG; ++r)
#pragma unroll
                for (int u = 0; u < UNR * 4; ++u) {
                    const int c = c0 + u * TPR + gl;
                    if (c < cols) {
                        s[r] += v[r][u];
                        m[r] = fmaxf(m[r], v[r][u]);
                    }
                }
        }
    }

    /* combine within the TPR-lane group (all 32 lanes participate) */
#pragma unroll
    for (int r = 0; r < RPG; ++r) {
#pragma unroll
        for (int off = TPR / 2; off > 0; off >>= 1) {
            s[r] += __shfl_xor_sync(0xffffffffu, s[r], off);
            m[r] = fmaxf(m[r], __shfl_xor_sync(0xffffffffu, m[r], off));
        }
        if (gl == 0 && ok[r]) {
            out0[row[r]] = FROM_F32(s[r] / (float)cols);
            out1[row[r]] = FROM_F32(m[r]);
        }
    }
}
