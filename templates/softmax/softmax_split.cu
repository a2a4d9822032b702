/*
 * softmax_split.cu - row softmax with each row split over NS = cdiv(COLS,
 * THREADS*VEC*CPT) blocks, for very long rows and few rows (a row per
 * block would leave SMs idle). Launch 1: block (row, k) folds its slice
 * into an online (max, sum) pair and writes it to the workspace. Launch 2:
 * block (row, k) combines the row's NS pairs in a fixed order (so every
 * block of a row gets the same bits: deterministic), reads its slice again
 * and writes exp(x - max) / sum. Traffic: 2 reads + 1 write, the second
 * read partly from L2: with REV=1 launch 2 walks the blocks backwards, so
 * it starts on the slices launch 1 read last. Any COLS: full tiles run
 * unchecked, the last partial tile is predicated; VEC-wide accesses only
 * when x, y and COLS keep row starts aligned (checked at run time). fp32
 * math.
 */
// kevo: problem softmax
// kevo: dtypes fp32 fp16 bf16
// kevo: param THREADS 128 256 512 1024 default=256
// kevo: param VEC 1 2 4 8 default=4
// kevo: param CPT 1 2 4 8 16 32 64 default=16
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
// CPT chunks per thread and slice, read UNROLL at a time:
// kevo: constraint UNROLL <= CPT && CPT % UNROLL == 0
// kevo: constraint MINB * THREADS <= 2048
// kevo: constraint UNROLL * VEC <= 32
// kevo: constraint UNROLL * VEC + 32 <= min(255, 65536 / (MINB * THREADS) / 8 * 8)
// Column indices are int with headroom for one slice; the grid is flat:
// kevo: requires COLS <= 2147000000 - THREADS * VEC * CPT
// kevo: requires cdiv(COLS, THREADS * VEC * CPT) * ROWS <= 2147483647
// Shape fact VCOLS: COLS % VEC == 0; when 0 the VEC-wide path cannot run
// and its build leaves it out (less PTX, less NVRTC time; issue 32).
// kevo: fact VCOLS COLS % VEC == 0
// kevo: launch softmax_split_stats
// kevo: grid cdiv(COLS, THREADS * VEC * CPT) * ROWS
// kevo: block THREADS
// kevo: smem OCC ? (SMEM_OPTIN + 1024) / OCC - 2048 : 0
// kevo: launch softmax_split_write
// kevo: grid cdiv(COLS, THREADS * VEC * CPT) * ROWS
// kevo: block THREADS
// kevo: smem OCC ? (SMEM_OPTIN + 1024) / OCC - 2048 : 0
// One (max, sum) float pair per block:
// kevo: workspace cdiv(COLS, THREADS * VEC * CPT) * ROWS * 8

#define SPAN (THREADS * VEC)  /* columns one chunk step of a block covers */
#define STEP (UNROLL * SPAN)  /* columns one tile covers */
#define SLICE (CPT * SPAN)    /* columns of one block */
#define NW (THREADS / 32)
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

/* This thread's chunk of the step at base: VEC adjacent columns (vec) or
 * VEC columns THREADS apart (scalar, coalesced). FULL: all < end. Missing
 * columns read as -inf. */
template <int H, bool FULL>
__device__ __forceinline__ void load(chunk_t &c, const elem_t *row, int base,
                                     int t, int end, bool vec)
{
    if (VEC > 1 && vec) {
        if (FULL || base + t * VEC < end) {
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
            int col = base + i * THREADS + t;
            if (FULL || col < end)
                reinterpret_cast<eraw_t *>(&c)[i] = ldh<H>(p + col);
            else
                el(c, i) = FROM_F32(NEG_INF);
        }
    }
}

template <int H, bool FULL>
__device__ __forceinline__ void store(elem_t *row, int base, int t, int end,
                                      bool vec, const chunk_t &c)
{
    if (VEC > 1 && vec) {
        if (FULL || base + t * VEC < end) {
            raw_t *p = reinterpret_cast<raw_t *>(row + base + t * VEC);
#pragma unroll
            for (int k = 0; k < NR; ++k)
                sth<H>(p + k, c.r[k]);
        }
    } else {
        eraw_t *p = reinterpret_cast<eraw_t *>(row);
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
            int col = base + i * THREADS + t;
            if (FULL || col < end)
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

/* Block-wide (m, s) in a fixed order: every thread gets the same bits. */
__device__ __forceinline__ void block_combine(float &m, float &s)
{
    __shared__ float red_m[NW], red_s[NW];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, o);
        float s2 = __shfl_xor_sync(0xffffffffu, s, o);
        combine(m, s, m2, s2);
    }
    if (NW > 1) {
        if (threadIdx.x % 32 == 0) {
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
        return;
    s *= exp2f((m - cm) * L2E);
    m = cm;
    const float nm = -cm * L2E;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
        for (int i = 0; i < VEC; ++i)
            s += exp2f(fmaf(fv(c[u], i), L2E, nm));
}

template <bool FULL>
__device__ __forceinline__ void stats_tile(float &m, float &s,
                                           const elem_t *xr, int base, int t,
                                           int end, bool vec)
{
    chunk_t c[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
        load<LDH, FULL>(c[u], xr, base + u * SPAN, t, end, vec);
    fold(m, s, c);
}

template <bool FULL>
__device__ __forceinline__ void write_tile(const elem_t *xr, elem_t *yr,
                                           int base, int t, int end, bool vec,
                                           float nm, float inv)
{
    chunk_t c[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
        load<LD2, FULL>(c[u], xr, base + u * SPAN, t, end, vec);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
        for (int i = 0; i < VEC; ++i)
            el(c[u], i) = FROM_F32(exp2f(fmaf(fv(c[u], i), L2E, nm)) * inv);
        store<STH, FULL>(yr, base + u * SPAN, t, end, vec, c[u]);
    }
}

__device__ __forceinline__ bool use_vec(const elem_t *x, const elem_t *y,
                                        int cols)
{
    return VEC > 1 && VCOLS && cols % VEC == 0 && (unsigned long long)x % RB == 0 &&
           (unsigned long long)y % RB == 0;
}

extern "C" __global__ void __launch_bounds__(THREADS, MINB)
softmax_split_stats(const elem_t *__restrict__ x, elem_t *__restrict__ y,
                    int ROWS, int COLS, void *ws)
{
    const int ns = (COLS + SLICE - 1) / SLICE;
    const long long row = blockIdx.x / ns;
    const int k = blockIdx.x % ns, t = threadIdx.x;
    const elem_t *xr = x + row * COLS;
    const bool vec = use_vec(x, y, COLS);
    const int lo = k * SLICE, end = min(COLS, lo + SLICE);
    /* full tiles: CPT % UNROLL == 0, so a slice is whole tiles up to the
     * row's end */
    const int full_end = lo + (end - lo) / STEP * STEP;

    float m = NEG_INF, s = 0.f;
    for (int base = lo; base < full_end; base += STEP)
        stats_tile<true>(m, s, xr, base, t, end, vec);
    if (full_end < end)
        stats_tile<false>(m, s, xr, full_end, t, end, vec);
    block_combine(m, s);
    if (t == 0) {
        float2 p;
        p.x = m;
        p.y = s;
        reinterpret_cast<float2 *>(ws)[blockIdx.x] = p;
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, MINB)
softmax_split_write(const elem_t *__restrict__ x, elem_t *__restrict__ y,
                    int ROWS, int COLS, void *ws)
{
    const int ns = (COLS + SLICE - 1) / SLICE;
    const unsigned b = REV ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
    const long long row = b / ns;
    const int k = b % ns, t = threadIdx.x;
    const elem_t *xr = x + row * COLS;
    elem_t *yr = y + row * COLS;
    const bool vec = use_vec(x, y, COLS);

    /* the row's pairs: thread t folds t, t+THREADS, ...; then the fixed
     * block order */
    const float2 *part = reinterpret_cast<const float2 *>(ws) + row * ns;
    float m = NEG_INF, s = 0.f;
    for (int i = t; i < ns; i += THREADS) {
        float2 p = part[i];
        combine(m, s, p.x, p.y);
    }
    block_combine(m, s);
    const float nm = -m * L2E, inv = 1.f / s;

    const int lo = k * SLICE, end = min(COLS, lo + SLICE);
    const int full_end = lo + (end - lo) / STEP * STEP;
    if (REV) {
        if (full_end < end)
            write_tile<false>(xr, yr, full_end, t, end, vec, nm, inv);
        for (int base = full_end - STEP; base >= lo; base -= STEP)
            write_tile<true>(xr, yr, base, t, end, vec, nm, inv);
    } else {
        for (int base = lo; base < full_end; base += STEP)
            write_tile<true>(xr, yr, base, t, end, vec, nm, inv);
        if (full_end < end)
            write_tile<false>(xr, yr, full_end, t, end, vec, nm, inv);
    }
}
