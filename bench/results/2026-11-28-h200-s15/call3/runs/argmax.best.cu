// kevo: llm_c00d7ea3 VPL=8 WARPS=8 RPW=1 LDMODE=0 dtype=fp32
typedef float elem_t;
#define TO_F32(x) (x)
#define FROM_F32(x) (x)
#define VPL 8
#define WARPS 8
#define RPW 1
#define LDMODE 0
#line 1 "llm_c00d7ea3.cu"
// kevo: problem argmax
// kevo: dtypes fp32
// kevo: param VPL 2 4 6 8 12 16 default=8
// kevo: param WARPS 2 4 8 16 default=8
// kevo: param RPW 1 2 4 default=1
// kevo: param LDMODE 0 1 2 default=0
// kevo: constraint VPL * RPW <= 16
// kevo: launch argmax_warp_row
// kevo: grid cdiv(rows, WARPS * RPW)
// kevo: block 32 * WARPS

/* Design 1: one warp per row (RPW rows per warp), every float4 of a chunk of
   32*VPL float4 per row is loaded into registers before any compare, then a
   single xor-shuffle (value, index) reduction per row. */

#define NEG_INF __int_as_float(0xff800000)
#define IDX_NONE 0x7fffffff
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float4 ld_vec(const float4 *p)
{
#if LDMODE == 0
    return __ldg(p);
#elif LDMODE == 1
    return __ldcs(p);
#else
    float4 r;
    asm("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
        : "l"(p));
    return r;
#endif
}

/* sequential update inside one lane: indices arrive in increasing order, so a
   strict '>' keeps the first maximum; the first NaN wins and stays. */
__device__ __forceinline__ void upd(float v, int i, float &bv, int &bi)
{
    if (v > bv || (v != v && bv == bv)) {
        bv = v;
        bi = i;
    }
}

/* does candidate (v, i) beat (bv, bi)?  NaN beats numbers, ties -> lower index */
__device__ __forceinline__ bool takes(float v, int i, float bv, int bi)
{
    const bool vn = v != v, bn = bv != bv;
    if (vn || bn)
        return vn && (!bn || i < bi);
    return v > bv || (v == bv && i < bi);
}

extern "C" __global__ void __launch_bounds__(32 * WARPS)
argmax_warp_row(const elem_t *__restrict__ x, long long *__restrict__ out,
                int rows, int cols, void *ws)
{
    const int lane = threadIdx.x & 31;
    const long long row0l =
        ((long long)blockIdx.x * WARPS + (threadIdx.x >> 5)) * RPW;
    if (row0l >= rows)
        return; /* whole warp leaves together */
    const int row0 = (int)row0l;

    const float *p[RPW];
    int head[RPW], nvec[RPW];
    float bv[RPW];
    int bi[RPW];
    int nvmax = 0;

#pragma unroll
    for (int r = 0; r < RPW; ++r) {
        const int row = min(row0 + r, rows - 1); /* clamp; store is guarded */
        p[r] = x + (long long)row * cols;
        /* elements before the first 16-byte boundary of the row */
        const int mis = (int)((reinterpret_cast<unsigned long long>(p[r]) >> 2) & 3ull);
        const int h = min((4 - mis) & 3, cols);
        head[r] = h;
        nvec[r] = (cols - h) >> 2;
        nvmax = max(nvmax, nvec[r]);
        bv[r] = NEG_INF;
        bi[r] = IDX_NONE;
        if (lane < h)
            upd(TO_F32(__ldg(p[r] + lane)), lane, bv[r], bi[r]);
    }

    /* aligned float4 body: all loads of the chunk first, then the compares */
    for (int c0 = 0; c0 < nvmax; c0 += 32 * VPL) {
        float4 v[RPW][VPL];
#pragma unroll
        for (int r = 0; r < RPW; ++r) {
            const float4 *q = reinterpret_cast<const float4 *>(p[r] + head[r]);
#pragma unroll
            for (int k = 0; k < VPL; ++k) {
                const int j = c0 + k * 32 + lane;
                v[r][k] = j < nvec[r] ? ld_vec(q + j)
                                      : make_float4(NEG_INF, NEG_INF, NEG_INF, NEG_INF);
            }
        }
#pragma unroll
        for (int r = 0; r < RPW; ++r) {
#pragma unroll
            for (int k = 0; k < VPL; ++k) {
                const int e = head[r] + 4 * (c0 + k * 32 + lane);
                upd(v[r][k].x, e, bv[r], bi[r]);
                upd(v[r][k].y, e + 1, bv[r], bi[r]);
                upd(v[r][k].z, e + 2, bv[r], bi[r]);
                upd(v[r][k].w, e + 3, bv[r], bi[r]);
            }
        }
    }

    /* scalar tail: fewer than 4 elements, highest indices, processed last */
#pragma unroll
    for (int r = 0; r < RPW; ++r) {
        const int t = head[r] + 4 * nvec[r] + lane;
        if (t < cols)
            upd(TO_F32(__ldg(p[r] + t)), t, bv[r], bi[r]);
    }

    /* warp reduction of (value, index) and store */
#pragma unroll
    for (int r = 0; r < RPW; ++r) {
        float v = bv[r];
        int i = bi[r];
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            const float ov = __shfl_xor_sync(FULL_MASK, v, o);
            const int oi = __shfl_xor_sync(FULL_MASK, i, o);
            if (takes(ov, oi, v, i)) {
                v = ov;
                i = oi;
            }
        }
        /* IDX_NONE survives only if every element is -inf: torch returns 0 */
        if (lane == 0 && row0 + r < rows)
            out[row0 + r] = (long long)(i == IDX_NONE ? 0 : i);
    }
}
