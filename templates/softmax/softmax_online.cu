/*
 * softmax_online.cu - row softmax in two streaming passes, TPR threads per
 * row (TPR = 32: a warp per row, THREADS/32 rows per block; TPR = THREADS:
 * a block per row). Pass 1 reads the row once with an online (running max,
 * rescaled sum) update per UNROLL-chunk group; one (max, sum) reduction per
 * row; pass 2 reads the row again and writes exp(x - max) / sum. Nothing is
 * kept on chip, so any COLS works; the second read is meant to hit L2 (a
 * row per group is at most a few hundred KB in flight), which the cache
 * hints steer: LDH for pass 1, LD2 for pass 2 (a last read: evict-first or
 * last-use), STH for the stores (streaming), REV walks pass 2 backwards so
 * the columns read last come first. Full UNROLL*TPR*VEC tiles run without
 * bounds checks; the last partial tile is predicated. VEC-wide accesses
 * only when x, y and COLS keep every row start aligned (checked at run
 * time); otherwise scalar accesses, still coalesced. fp32 math.
 */
// kevo: problem softmax
// kevo: dtypes fp32 fp16 bf16
// kevo: param TPR 32 64 128 256 512 1024 default=32
// kevo: param THREADS 64 128 256 512 1024 default=256
// kevo: param VEC 1 2 4 8 default=4
// kevo: param UNROLL 1 2 4 8 default=4
// Hints: 0 plain, 1 ld.global.nc (__ldg), 2 .cg (L2 only), 3 .cs (evict
// first), 4 .lu (last use); stores: 0 plain, 1 .cs, 2 .cg.
// kevo: param LDH 0 1 2 default=0
// kevo: param LD2 0 1 2 3 4 default=3
// kevo: param STH 0 1 2 default=1
// kevo: param REV 0 1 default=1
// kevo: param MINB 1 2 4 8 default=2
// OCC caps the blocks resident on an SM (0: no cap) by padding the
// dynamic shared memory: launch-only, one compile serves every value.
// kevo: param OCC 0 2 3 4 6 8 12 default=0
// kevo: constraint OCC * THREADS < 2048
// kevo: constraint TPR == 32 || TPR == THREADS
// kevo: constraint MINB * THREADS <= 2048
// A group of UNROLL chunks (raw bits, fp32 at worst) + ~32 registers of
// indices and state must fit the cap that __launch_bounds__ implies:
// kevo: constraint UNROLL * VEC <= 32
// kevo: constraint UNROLL * VEC + 32 <= min(255, 65536 / (MINB * THREADS) / 8 * 8)
// Column indices are int with headroom for one tile:
// kevo: requires COLS <= 2147000000
// Shape fact VCOLS: COLS % VEC == 0; when 0 the VEC-wide path cannot run
// and its build leaves it out (less PTX, less NVRTC time; issue 32).
// kevo: fact VCOLS COLS % VEC == 0
// kevo: launch softmax_online
// kevo: grid cdiv(ROWS, THREADS / TPR)
// kevo: block THREADS
// kevo: smem OCC ? (SMEM_OPTIN + 1024) / OCC - 2048 : 0

#define SPAN (TPR * VEC)      /* columns one chunk step of a group covers */
#define STEP (UNROLL * SPAN)  /* columns one tile covers */
#define NW (TPR / 32)         /* warps per row */
#define L2E 1.4426950408889634f
#define NEG_INF __int_as_float(0xff800000)

/* Raw storage: a chunk of VEC elements as NR words of RB bytes. */
template <int B> struct rawt;
template <> struct rawt<2> { typedef unsigned short T; };
template <> struct rawt<4> { typedef unsigned int T; };
template <> struct rawt<8> { typedef uint2 T; };
template <> struct rawt<16> { typedef uint4 T; };
#define CB ((int)(VEC * sizeof(elem_t)))
#define RB (CB < 16 ? CB : 16)
#define NR (CB / RB)
typedef rawt<RB>::T raw_t;
typedef rawt<(int)sizeof(elem_t)>::T eraw_t;
struct alignas(RB) chunk_t {
    raw_t r[NR];
};

template <int H, class T> __device__ __forceinline__ T ldh(const T *p)
{
#ifdef __CUDA_ARCH__
    if (H == 1)
        return __ldg(p);
    if (H == 2)
        return __ldcg(p);
    if (H == 3)
        return __ldcs(p);
    if (H == 4)
        return __ldlu(p);
#endif
    return *p;
}

template <int H, class T> __device__ __forceinline__ void sth(T *p, T v)
{
#ifdef __CUDA_ARCH__
    if (H == 1) {
        __stcs(p, v);
        return;
    }
    if (H == 2) {
        __stcg(p, v);
        return;
    }
#endif
    *p = v;
}

__device__ __forceinline__ elem_t &el(chunk_t &c, int i)
{
    return reinterpret_cast<elem_t *>(&c)[i];
}
__device__ __forceinline__ float fv(const chunk_t &c, int i)
{
    return TO_F32(reinterpret_cast<const elem_t *>(&c)[i]);
}

/* This thread's chunk of the tile step at base: VEC adjacent columns
 * (vec) or VEC columns TPR apart (scalar, coalesced across the group).
 * FULL: every column is < cols. Missing columns read as -inf. */
template <int H, bool FULL>
__device__ __forceinline__ void load(chunk_t &c, const elem_t *row, int base,
                                     int t, int cols, bool vec)
{
    if (VEC > 1 && vec) {
        if (FULL || base + t * VEC < cols) {
            const raw_t *p = reinterpret_cast<const raw_t *>(row + base +
                                                             t * VEC);
#pragma unroll
            for (int k = 0; k < NR; ++k)
                c.r[k] = ldh<H>(p + k);
        } else {
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                el(c, i) = FROM_F32(NEG_INF);
        }
    } else {
        const eraw_t *p = reinterpret_cast<const eraw_t *>(row);
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
            int col = base + i * TPR + t;
            if (FULL || col < cols)
                reinterpret_cast<eraw_t *>(&c)[i] = ldh<H>(p + col);
            else
                el(c, i) = FROM_F32(NEG_INF);
        }
    }
}

template <int H, bool FULL>
__device__ __forceinline__ void store(elem_t *row, int base, int t, int cols,
                                      bool vec, const chunk_t &c)
{
    if (VEC > 1 && vec) {
        if (FULL || base + t * VEC < cols) {
            raw_t *p = reinterpret_cast<raw_t *>(row + base + t * VEC);
#pragma unroll
            for (int k = 0; k < NR; ++k)
                sth<H>(p + k, c.r[k]);
        }
    } else {
        eraw_t *p = reinterpret_cast<eraw_t *>(row);
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
            int col = base + i * TPR + t;
            if (FULL || col < cols)
                sth<H>(p + col, reinterpret_cast<const eraw_t *>(&c)[i]);
        }
    }
}

/* (m, s) of two parts; no NaN when either part is empty (m = -inf). */
__device__ __forceinline__ void combine(float &m, float &s, float m2, float s2)
{
    float mn = fmaxf(m, m2);
    s = (m == mn ? s : s * exp2f((m - mn) * L2E)) +
        (m2 == mn ? s2 : s2 * exp2f((m2 - mn) * L2E));
    m = mn;
}

/* Folds a tile of UNROLL chunks into (m, s): one rescale at most. */
__device__ __forceinline__ void fold(float &m, float &s,
                                     const chunk_t (&c)[UNROLL])
{
    float cm = m;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
        for (int i = 0; i < VEC; ++i)
            cm = fmaxf(cm, fv(c[u], i));
    if (cm == NEG_INF)
        return; /* nothing yet */
    s *= exp2f((m - cm) * L2E); /* m = -inf: s is 0 and stays 0 */
    m = cm;
    const float nm = -cm * L2E;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
        for (int i = 0; i < VEC; ++i)
            s += exp2f(fmaf(fv(c[u], i), L2E, nm));
}

template <bool FULL>
__device__ __forceinline__ void pass1_tile(float &m, float &s,
                                           const elem_t *xr, int base, int t,
                                           int cols, bool vec)
{
    chunk_t c[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
        load<LDH, FULL>(c[u], xr, base + u * SPAN, t, cols, vec);
    fold(m, s, c);
}

template <bool FULL>
__device__ __forceinline__ void pass2_tile(const elem_t *xr, elem_t *yr,
                                           int base, int t, int cols,
                                           bool vec, float nm, float inv)
{
    chunk_t c[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
        load<LD2, FULL>(c[u], xr, base + u * SPAN, t, cols, vec);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
        for (int i = 0; i < VEC; ++i)
            el(c[u], i) = FROM_F32(exp2f(fmaf(fv(c[u], i), L2E, nm)) * inv);
        store<STH, FULL>(yr, base + u * SPAN, t, cols, vec, c[u]);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, MINB)
softmax_online(const elem_t *__restrict__ x, elem_t *__restrict__ y,
               int ROWS, int COLS, void *ws)
{
    __shared__ float red_m[NW], red_s[NW];
    const int t = threadIdx.x % TPR, lane = threadIdx.x % 32;
    const long long row = (long long)blockIdx.x * (THREADS / TPR) +
                          threadIdx.x / TPR;
    if (row >= ROWS) /* only with TPR == 32: a whole warp, no block sync */
        return;
    const elem_t *xr = x + row * COLS;
    elem_t *yr = y + row * COLS;
    const bool vec = VEC > 1 && VCOLS && COLS % VEC == 0 &&
                     (unsigned long long)x % RB == 0 &&
                     (unsigned long long)y % RB == 0;
    const int full_end = COLS / STEP * STEP; /* columns in full tiles */

    float m = NEG_INF, s = 0.f;
    for (int base = 0; base < full_end; base += STEP)
        pass1_tile<true>(m, s, xr, base, t, COLS, vec);
    if (full_end < COLS)
        pass1_tile<false>(m, s, xr, full_end, t, COLS, vec);

#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, o);
        float s2 = __shfl_xor_sync(0xffffffffu, s, o);
        combine(m, s, m2, s2);
    }
    if (NW > 1) { /* TPR == THREADS: every thread combines in warp order */
        if (lane == 0) {
            red_m[threadIdx.x / 32] = m;
            red_s[threadIdx.x / 32] = s;
        }
        __syncthreads();
        m = red_m[0];
        s = red_s[0];
#pragma unroll
        for (int w = 1; w < NW; ++w)
            combine(m, s, red_m[w], red_s[w]);
    }
    const float nm = -m * L2E, inv = 1.f / s;

    if (REV) {
        if (full_end < COLS)
            pass2_tile<false>(xr, yr, full_end, t, COLS, vec, nm, inv);
        for (int base = full_end - STEP; base >= 0; base -= STEP)
            pass2_tile<true>(xr, yr, base, t, COLS, vec, nm, inv);
    } else {
        for (int base = 0; base < full_end; base += STEP)
            pass2_tile<true>(xr, yr, base, t, COLS, vec, nm, inv);
        if (full_end < COLS)
            pass2_tile<false>(xr, yr, full_end, t, COLS, vec, nm, inv);
    }
}
