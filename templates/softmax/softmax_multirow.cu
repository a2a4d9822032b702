/*
 * softmax_multirow.cu - row softmax for short rows: G lanes per row (2 to
 * 32, so 32/G rows per warp), RPG rows per lane group loaded together, the
 * whole row held in registers as raw elements (NCH chunks of VEC per lane:
 * COLS <= G*VEC*NCH). All loads of all RPG rows are issued first (bytes in
 * flight), then per row an exact max and sum through G-lane shuffles and
 * one write: one read, one write. Chunks past COLS are predicated off (any
 * COLS up to the register capacity). VEC-wide accesses only when x, y and
 * COLS keep every row start aligned (checked at run time); otherwise
 * scalar accesses, still coalesced across the group. fp32 math. With
 * GRID > 0 the grid is persistent: GRID blocks an SM, each looping over
 * its rows gridDim.x blocks' worth apart.
 */
// kevo: problem softmax
// kevo: dtypes fp32 fp16 bf16
// kevo: param G 2 4 8 16 32 default=32
// kevo: param VEC 1 2 4 8 default=4
// kevo: param NCH 1 2 3 4 6 8 12 16 24 32 default=32
// kevo: param RPG 1 2 4 default=1
// kevo: param WARPS 1 2 4 8 16 default=4
// Hints: 0 plain, 1 ld.global.nc (__ldg), 2 .cg (L2 only), 3 .cs (evict
// first); stores: 0 plain, 1 .cs, 2 .cg.
// kevo: param LDH 0 1 2 3 default=3
// kevo: param STH 0 1 2 default=1
// kevo: param MINB 1 2 4 8 16 default=1
// OCC caps the blocks resident on an SM (0: no cap) by padding the
// dynamic shared memory: launch-only, one compile serves every value.
// kevo: param OCC 0 2 3 4 6 8 12 default=0
// kevo: constraint OCC * WARPS * 32 < 2048
// GRID: blocks per SM of a persistent grid that loops over the rows (0:
// every row group its own block). Launch-only as well.
// kevo: param GRID 0 1 2 3 4 8 default=0
// The cached rows (raw, fp32 at worst) + ~24 registers must fit the cap
// that __launch_bounds__ implies (ptxas allocates in 8s):
// kevo: constraint RPG * NCH * VEC <= 128
// kevo: constraint MINB * WARPS <= 64
// kevo: constraint RPG * NCH * VEC + 24 <= min(255, 65536 / (MINB * WARPS * 32) / 8 * 8)
// kevo: requires COLS <= G * VEC * NCH
// Shape fact VCOLS: COLS % VEC == 0; when 0 the VEC-wide path cannot run
// and its build leaves it out (less PTX, less NVRTC time; issue 32).
// kevo: fact VCOLS COLS % VEC == 0
// kevo: launch softmax_multirow
// kevo: grid GRID ? min(cdiv(ROWS, WARPS * (32 / G) * RPG), GRID * SMS) : cdiv(ROWS, WARPS * (32 / G) * RPG)
// kevo: block WARPS * 32
// kevo: smem OCC ? (SMEM_OPTIN + 1024) / OCC - 2048 : 0

#define GPB (WARPS * 32 / G) /* lane groups per block */
#define SPAN (G * VEC)       /* columns one chunk index covers in a group */
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

/* v, hidden from the optimizer: values computed from it inside the row
 * loop stay there, instead of being hoisted and holding registers. */
__device__ __forceinline__ int opaque(int v)
{
#ifdef __CUDA_ARCH__
    asm volatile("mov.b32 %0, %0;" : "+r"(v));
#endif
    return v;
}

/* Chunk j of lane l: VEC adjacent columns at j*SPAN + l*VEC (vec) or VEC
 * columns G apart at j*SPAN + i*G + l (scalar). Missing columns: -inf. */
__device__ __forceinline__ void load(chunk_t &c, const elem_t *row, int j,
                                     int l, int cols, bool vec)
{
    if (VEC > 1 && vec) {
        int col = j * SPAN + l * VEC;
        if (col < cols) {
            const raw_t *p = reinterpret_cast<const raw_t *>(row + col);
#pragma unroll
            for (int k = 0; k < NR; ++k)
                c.r[k] = ldh<LDH>(p + k);
        } else {
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                el(c, i) = FROM_F32(NEG_INF);
        }
    } else {
        const eraw_t *p = reinterpret_cast<const eraw_t *>(row);
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
            int col = j * SPAN + i * G + l;
            if (col < cols)
                reinterpret_cast<eraw_t *>(&c)[i] = ldh<LDH>(p + col);
            else
                el(c, i) = FROM_F32(NEG_INF);
        }
    }
}

__device__ __forceinline__ void store(elem_t *row, int j, int l, int cols,
                                      bool vec, const chunk_t &c)
{
    if (VEC > 1 && vec) {
        int col = j * SPAN + l * VEC;
        if (col < cols) {
            raw_t *p = reinterpret_cast<raw_t *>(row + col);
#pragma unroll
            for (int k = 0; k < NR; ++k)
                sth<STH>(p + k, c.r[k]);
        }
    } else {
        eraw_t *p = reinterpret_cast<eraw_t *>(row);
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
            int col = j * SPAN + i * G + l;
            if (col < cols)
                sth<STH>(p + col, reinterpret_cast<const eraw_t *>(&c)[i]);
        }
    }
}

extern "C" __global__ void __launch_bounds__(WARPS * 32, MINB)
softmax_multirow(const elem_t *__restrict__ x, elem_t *__restrict__ y,
                 int ROWS, int COLS, void *ws)
{
    const bool vec = VEC > 1 && VCOLS && COLS % VEC == 0 &&
                     (unsigned long long)x % RB == 0 &&
                     (unsigned long long)y % RB == 0;

    /* the block's rows, gridDim.x blocks' worth apart (one pass unless
     * GRID made the grid persistent); the condition is the block's, so
     * all 32 lanes reach the shuffles. Unsigned: a grid of ROWS blocks
     * (one row a block) steps past 2^31 for ROWS > 2^30. */
    for (unsigned b = blockIdx.x; (long long)b * (GPB * RPG) < ROWS;
         b += gridDim.x) {
        const int t = opaque(threadIdx.x); /* chunk offsets: per row */
        const int l = t % G;
        const long long row0 = ((long long)b * GPB + t / G) * RPG;

        /* every load of every row first: the most bytes in flight */
        chunk_t v[RPG][NCH];
#pragma unroll
        for (int r = 0; r < RPG; ++r) {
            const long long row = row0 + r;
            const elem_t *xr = x + (row < ROWS ? row : 0) * COLS;
#pragma unroll
            for (int j = 0; j < NCH; ++j)
                load(v[r][j], xr, j, l, row < ROWS ? COLS : 0, vec);
        }

        /* All 32 lanes reach the shuffles (rows past ROWS compute garbage
         * that is never stored). */
#pragma unroll
        for (int r = 0; r < RPG; ++r) {
            float m = NEG_INF;
#pragma unroll
            for (int j = 0; j < NCH; ++j)
#pragma unroll
                for (int i = 0; i < VEC; ++i)
                    m = fmaxf(m, fv(v[r][j], i));
#pragma unroll
            for (int o = G / 2; o > 0; o >>= 1)
                m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
            const float nm = m == NEG_INF ? 0.f : -m * L2E;
            float s = 0.f;
#pragma unroll
            for (int j = 0; j < NCH; ++j)
#pragma unroll
                for (int i = 0; i < VEC; ++i)
                    s += exp2f(fmaf(fv(v[r][j], i), L2E, nm));
#pragma unroll
            for (int o = G / 2; o > 0; o >>= 1)
                s += __shfl_xor_sync(0xffffffffu, s, o);
            const float inv = 1.f / s;

            const long long row = row0 + r;
            if (row >= ROWS)
                continue;
            elem_t *yr = y + row * COLS;
#pragma unroll
            for (int j = 0; j < NCH; ++j) {
                chunk_t o;
#pragma unroll
                for (int i = 0; i < VEC; ++i)
                    el(o, i) = FROM_F32(exp2f(fmaf(fv(v[r][j], i), L2E, nm)) *
                                        inv);
                store(yr, j, l, COLS, vec, o);
            }
        }
    }
}
