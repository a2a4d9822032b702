/*
 * softmax_cluster.cu - row softmax with a row split over a cluster of CL
 * blocks (CL = 1: a block per row), the slice of each block held on chip:
 * its first REG chunk rows in registers (raw elements), the rest in dynamic
 * shared memory as fp32. So x is read once and y written once even for
 * rows far longer than one SM holds (65536 fp32 = 256 KB: CL = 2 or 4).
 * Each block folds its slice into an online (max, sum) pair, publishes it
 * in its shared memory, and after a cluster barrier every block reads all
 * CL pairs through distributed shared memory in rank order (the same bits
 * in every block: deterministic), then writes from registers and shared
 * memory. A second cluster barrier, split around the writes, keeps each
 * block's pair alive until its partners have read it. Slices are
 * align(cdiv(COLS, CL), VEC) columns; any COLS (chunks past the row end are
 * predicated off, so late ranks may own nothing). VEC-wide accesses only
 * when x, y and COLS keep every row start aligned (checked at run time);
 * otherwise scalar accesses, still coalesced. fp32 math. The CPU emulator
 * (scripts/tplcc.sh --emu) ignores clusters: check CL = 1 there only.
 * CL = 16 (non-portable) halves the slices, so 400000-column fp32 rows
 * run two blocks an SM: fp32 256x400000 at CL=16 THREADS=512 REG=8 VEC=4 UNROLL=2 MINB=2
 * LDH=1 STH=2 ran 0.885x copy on the H100, softmax_bulk's best point
 * 0.850x in the same worker (bench/results/2026-11-24-h100-perf-s4/
 * c3-fp32-256x400000.log).
 * With GRID > 0 the grid is persistent: GRID blocks an SM, each cluster
 * looping over rows gridDim.x / CL apart.
 */
// kevo: problem softmax
// kevo: dtypes fp32 fp16 bf16
// kevo: param CL 1 2 4 8 16 default=4
// kevo: param THREADS 128 256 512 1024 default=256
// kevo: param VEC 1 2 4 8 default=4
// kevo: param REG 0 1 2 4 8 16 default=8
// kevo: param UNROLL 1 2 4 default=2
// Hints: 0 plain, 1 ld.global.nc (__ldg), 2 .cg (L2 only), 3 .cs (evict
// first); stores: 0 plain, 1 .cs, 2 .cg.
// kevo: param LDH 0 1 2 3 default=3
// kevo: param STH 0 1 2 default=1
// kevo: param MINB 1 2 4 default=2
// OCC caps the blocks resident on an SM (0: no cap) by padding the
// dynamic shared memory: launch-only, one compile serves every value.
// kevo: param OCC 0 2 3 4 6 8 12 default=0
// kevo: constraint OCC * THREADS < 2048
// GRID: blocks per SM of a persistent grid whose clusters loop over the
// rows (0: a cluster per row). Launch-only as well.
// kevo: param GRID 0 1 2 3 4 8 default=0
// The register-cached chunks + one streaming group (raw, fp32 at worst)
// + ~24 registers must fit the cap that __launch_bounds__ implies:
// kevo: constraint MINB * THREADS <= 2048
// kevo: constraint (REG + UNROLL) * VEC + 24 <= min(255, 65536 / (MINB * THREADS) / 8 * 8)
// The part of a slice past the registers must fit in shared memory (the
// smem expression below; the kernel computes the same NC):
// kevo: requires max(0, cdiv(align(cdiv(COLS, CL), VEC), THREADS * VEC) - REG) * THREADS * VEC * 4 <= SMEM_OPTIN - 1024
// kevo: requires COLS <= 2000000000 && CL * ROWS <= 2147483647
// Shape fact VCOLS: COLS % VEC == 0; when 0 the VEC-wide path cannot run
// and its build leaves it out (less PTX, less NVRTC time; issue 32).
// kevo: fact VCOLS COLS % VEC == 0
// kevo: launch softmax_cluster
// kevo: grid CL * (GRID ? min(ROWS, max(1, GRID * SMS / CL)) : ROWS)
// kevo: block THREADS
// kevo: cluster CL, 1, 1
// kevo: smem max(max(0, cdiv(align(cdiv(COLS, CL), VEC), THREADS * VEC) - REG) * THREADS * VEC * 4, OCC ? (SMEM_OPTIN + 1024) / OCC - 2048 : 0)

#define TV (THREADS * VEC)     /* columns of one chunk row of a block */
#define WV (VEC < 4 ? VEC : 4) /* floats per shared-memory access */
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
template <int N> struct alignas(4 * N) fvec {
    float v[N];
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

/* v, hidden from the optimizer: values computed from it inside the row
 * loop stay there, instead of being hoisted and holding registers. */
__device__ __forceinline__ int opaque(int v)
{
#ifdef __CUDA_ARCH__
    asm volatile("mov.b32 %0, %0;" : "+r"(v));
#endif
    return v;
}

/* Cluster barrier halves and a distributed-shared-memory read of rank r's
 * copy of a shared variable (sm_90). The emulator has no clusters. */
__device__ __forceinline__ void cl_arrive()
{
#ifdef __CUDA_ARCH__
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void cl_wait()
{
#ifdef __CUDA_ARCH__
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ float2 cl_read(const float2 *p, int r)
{
    float2 v;
#ifdef __CUDA_ARCH__
    unsigned a = (unsigned)__cvta_generic_to_shared(p), ra;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(ra) : "r"(a), "r"(r));
    asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];"
                 : "=f"(v.x), "=f"(v.y) : "r"(ra) : "memory");
#else
    (void)r;
    v = *p;
#endif
    return v;
}

__device__ __forceinline__ elem_t &el(chunk_t &c, int i)
{
    return reinterpret_cast<elem_t *>(&c)[i];
}
__device__ __forceinline__ float fv(const chunk_t &c, int i)
{
    return TO_F32(reinterpret_cast<const elem_t *>(&c)[i]);
}

/* This thread's chunk of the chunk row at base: VEC adjacent columns (vec)
 * or VEC columns THREADS apart (scalar, coalesced). Columns >= end read
 * as -inf. */
__device__ __forceinline__ void load(chunk_t &c, const elem_t *row, int base,
                                     int t, int end, bool vec)
{
    if (VEC > 1 && vec) {
        if (base + t * VEC < end) {
            const raw_t *p = reinterpret_cast<const raw_t *>(row + base +
                                                             t * VEC);
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
            int col = base + i * THREADS + t;
            if (col < end)
                reinterpret_cast<eraw_t *>(&c)[i] = ldh<LDH>(p + col);
            else
                el(c, i) = FROM_F32(NEG_INF);
        }
    }
}

__device__ __forceinline__ void store(elem_t *row, int base, int t, int end,
                                      bool vec, const chunk_t &c)
{
    if (VEC > 1 && vec) {
        if (base + t * VEC < end) {
            raw_t *p = reinterpret_cast<raw_t *>(row + base + t * VEC);
#pragma unroll
            for (int k = 0; k < NR; ++k)
                sth<STH>(p + k, c.r[k]);
        }
    } else {
        eraw_t *p = reinterpret_cast<eraw_t *>(row);
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
            int col = base + i * THREADS + t;
            if (col < end)
                sth<STH>(p + col, reinterpret_cast<const eraw_t *>(&c)[i]);
        }
    }
}

/* Shared cache: chunk row q (past the registers), thread t keeps its VEC
 * floats as VEC/WV pieces at q*TV + h*THREADS*WV + t*WV, so each access of
 * a warp is contiguous. Only the writing thread reads them back. */
__device__ __forceinline__ void cache_put(float *cache, int q, int t,
                                          const chunk_t &c)
{
#pragma unroll
    for (int h = 0; h < VEC / WV; ++h) {
        fvec<WV> w;
#pragma unroll
        for (int i = 0; i < WV; ++i)
            w.v[i] = fv(c, h * WV + i);
        *reinterpret_cast<fvec<WV> *>(cache + q * TV + h * THREADS * WV +
                                      t * WV) = w;
    }
}

__device__ __forceinline__ void cache_get(float (&f)[VEC],
                                          const float *cache, int q, int t)
{
#pragma unroll
    for (int h = 0; h < VEC / WV; ++h) {
        fvec<WV> w = *reinterpret_cast<const fvec<WV> *>(
            cache + q * TV + h * THREADS * WV + t * WV);
#pragma unroll
        for (int i = 0; i < WV; ++i)
            f[h * WV + i] = w.v[i];
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

/* Folds N chunks into (m, s): one rescale at most. */
template <int N>
__device__ __forceinline__ void fold(float &m, float &s, const chunk_t *c)
{
    float cm = m;
#pragma unroll
    for (int u = 0; u < N; ++u)
#pragma unroll
        for (int i = 0; i < VEC; ++i)
            cm = fmaxf(cm, fv(c[u], i));
    if (cm == NEG_INF)
        return;
    s *= exp2f((m - cm) * L2E);
    m = cm;
    const float nm = -cm * L2E;
#pragma unroll
    for (int u = 0; u < N; ++u)
#pragma unroll
        for (int i = 0; i < VEC; ++i)
            s += exp2f(fmaf(fv(c[u], i), L2E, nm));
}

extern "C" __global__ void __launch_bounds__(THREADS, MINB)
softmax_cluster(const elem_t *__restrict__ x, elem_t *__restrict__ y,
                int ROWS, int COLS, void *ws)
{
    extern __shared__ float4 smem4[];
    float *cache = reinterpret_cast<float *>(smem4);
    __shared__ float red_m[NW], red_s[NW];
    __shared__ float2 part;

    const int t = threadIdx.x, rank = blockIdx.x % CL;
    const bool vec = VEC > 1 && VCOLS && COLS % VEC == 0 &&
                     (unsigned long long)x % RB == 0 &&
                     (unsigned long long)y % RB == 0;
    /* the slice, as in the smem directive */
    const int slc = ((COLS + CL - 1) / CL + VEC - 1) / VEC * VEC;
    const int nc = (slc + TV - 1) / TV; /* chunk rows; REG.. in smem */

    /* unsigned: a grid of ROWS clusters steps past 2^31 for ROWS > 2^30 */
    for (unsigned row = blockIdx.x / CL; row < (unsigned)ROWS;
         row += gridDim.x / CL) {
        /* chunk offsets and bounds: per row (opaque) */
        const int lo = opaque(rank) * slc, end = min(COLS, lo + slc);
        const elem_t *xr = x + (long long)row * COLS;
        elem_t *yr = y + (long long)row * COLS;

        /* pass 1: the register rows' loads first (bytes in flight), then the
         * shared-memory rows stream through the online fold */
        chunk_t v[REG > 0 ? REG : 1];
#pragma unroll
        for (int j = 0; j < REG; ++j)
            load(v[j], xr, lo + j * TV, t, end, vec);
        float m = NEG_INF, s = 0.f;
        for (int j = REG; j < nc; j += UNROLL) {
            chunk_t c[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
                load(c[u], xr, lo + (j + u) * TV, t, end, vec);
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
                if (j + u < nc)
                    cache_put(cache, j + u - REG, t, c[u]);
            fold<UNROLL>(m, s, c);
        }
        if (REG > 0)
            fold<REG>(m, s, v);

        /* the block's pair, in a fixed order */
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            float m2 = __shfl_xor_sync(0xffffffffu, m, o);
            float s2 = __shfl_xor_sync(0xffffffffu, s, o);
            combine(m, s, m2, s2);
        }
        if (t % 32 == 0) {
            red_m[t / 32] = m;
            red_s[t / 32] = s;
        }
        __syncthreads();
        m = red_m[0];
        s = red_s[0];
#pragma unroll
        for (int w = 1; w < NW; ++w)
            combine(m, s, red_m[w], red_s[w]);

        /* the cluster's pair: every block combines ranks 0..CL-1 in order */
        if (CL > 1) {
            if (t == 0) {
                float2 p;
                p.x = m;
                p.y = s;
                part = p;
            }
            cl_arrive();
            cl_wait();
            m = NEG_INF;
            s = 0.f;
#pragma unroll
            for (int r = 0; r < CL; ++r) {
                float2 p = cl_read(&part, r);
                combine(m, s, p.x, p.y);
            }
            cl_arrive(); /* done reading the partners' pairs */
        }
        const float nm = -m * L2E, inv = 1.f / s;

        /* pass 2: write from registers, then from shared memory */
#pragma unroll
        for (int j = 0; j < REG; ++j) {
            chunk_t o;
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                el(o, i) = FROM_F32(exp2f(fmaf(fv(v[j], i), L2E, nm)) * inv);
            store(yr, lo + j * TV, t, end, vec, o);
        }
        for (int j = REG; j < nc; ++j) {
            float f[VEC];
            cache_get(f, cache, j - REG, t);
            chunk_t o;
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                el(o, i) = FROM_F32(exp2f(fmaf(f[i], L2E, nm)) * inv);
            store(yr, lo + j * TV, t, end, vec, o);
        }
        if (CL > 1)
            cl_wait(); /* partners are done with this block's pair */
        if (row + gridDim.x / CL < (unsigned)ROWS)
            __syncthreads(); /* every thread has read red_m, red_s */
    }
}
