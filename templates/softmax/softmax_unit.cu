/*
 * softmax_unit.cu - row softmax with 16-byte global accesses for any COLS,
 * the row held on chip (registers, then shared memory). A row starts at
 * r*COLS elements, so for odd COLS its first byte is anywhere in a 16-byte
 * word: the row is addressed as the 16-byte units that cover it, from the
 * unit holding its first byte to the one holding its last. Interior units
 * are loaded and stored 16 bytes at a time (ld/st.global.v4); only the two
 * edge units are read and written element by element, masked to the row
 * (bytes of the neighbouring rows are never written), as is a unit that is
 * not wholly inside x (the matrix's last, or the first if x itself is not
 * 16-byte aligned). A cluster of CL blocks owns a row (CL = 1: a block per
 * row); rank k holds units [k*q, (k+1)*q), q = cdiv(units, CL).
 *
 * Each thread keeps its first REG units in registers (raw) and the next
 * ones in SMK KB of dynamic shared memory (raw, so 16-bit rows take half
 * the bytes of fp32 ones; with ASYNC fetched by cp.async, all requests in
 * flight at once); units past both caches are streamed: folded in
 * pass 1 and read again in pass 2. So a row is read once when it fits the
 * block's (or cluster's) REG*THREADS*16 + SMK KB, twice in part otherwise,
 * and any COLS runs. Pass 1 folds everything into an online (max, sum)
 * pair; one block reduction; with CL > 1 the CL pairs are exchanged through
 * distributed shared memory (each lane reads one rank's pair; combined in
 * rank order: deterministic). Pass 2 writes exp(x - max) / sum. fp32 math.
 * The CPU emulator (scripts/tplcc.sh --emu) runs CL = 1 only.
 */
// The default point is the best of a 45 s kevo run on fp32 8192x4097
// (H100, bench/results/2026-11-23-h100-softmax-eval2.log).
// kevo: problem softmax
// kevo: dtypes fp32 fp16 bf16
// kevo: param CL 1 2 4 8 16 default=1
// kevo: param THREADS 128 256 512 1024 default=256
// kevo: param REG 0 1 2 4 6 8 12 16 default=4
// kevo: param SMK 0 16 32 48 64 96 128 160 192 224 default=16
// kevo: param UNROLL 1 2 4 default=2
// Hints: loads 0 plain, 1 ld.global.nc (__ldg), 2 .cg (L2 only), 3 .cs
// (evict first); stores 0 plain, 1 .cs, 2 .cg.
// kevo: param LDH 0 1 2 3 default=2
// kevo: param STH 0 1 2 default=2
// kevo: param MINB 1 2 3 4 8 default=2
// 1: the shared-memory part of the slice is fetched with cp.async, all
// of it in flight at once; 0: through registers, UNROLL units at a time:
// kevo: param ASYNC 0 1 default=1
// OCC caps the blocks resident on an SM (0: no cap) by padding the
// dynamic shared memory: launch-only, one compile serves every value.
// kevo: param OCC 0 2 3 4 6 8 12 default=0
// kevo: constraint OCC * THREADS < 2048
// The register units (4 words each, ~6 with the bf16 conversions) + a
// streaming group as floats + ~32 must fit the cap that __launch_bounds__ implies; the shared cache must
// fit MINB blocks an SM (233472 B on sm_90, 1 KB reserved a block):
// kevo: constraint MINB * THREADS <= 2048
// kevo: constraint REG * 6 + UNROLL * 8 + 28 <= min(255, 65536 / (MINB * THREADS) / 8 * 8)
// kevo: constraint MINB * (SMK * 1024 + 2048) <= 233472
// kevo: constraint SMK * 1024 <= SMEM_OPTIN - 1024
// kevo: requires COLS <= 1000000000 && CL * ROWS <= 2147483647
// kevo: launch softmax_unit
// kevo: grid CL * ROWS
// kevo: block THREADS
// kevo: cluster CL, 1, 1
// kevo: smem max(SMK * 1024, OCC ? (SMEM_OPTIN + 1024) / OCC - 2048 : 0)

#define ES ((int)sizeof(elem_t))
#define VE (16 / ES)                    /* elements per 16-byte unit */
#define SJ (SMK * 1024 / (16 * THREADS)) /* shared units per thread */
#define NW (THREADS / 32)
#define L2E 1.4426950408889634f
#define NEG_INF __int_as_float(0xff800000)

typedef unsigned long long u64;
typedef unsigned int u32;

template <int H> __device__ __forceinline__ uint4 ldh(const uint4 *p)
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

template <int H> __device__ __forceinline__ void sth(uint4 *p, uint4 v)
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

/* Cluster barrier halves and a distributed-shared-memory read of rank r's
 * copy of a shared float2 (sm_90). The emulator has no clusters. */
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
    u32 a = (u32)__cvta_generic_to_shared(p), ra;
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

/* 16 bytes global -> shared without registers (cp.async, sm_80+); the
 * emulator copies at once. */
__device__ __forceinline__ void cp_async16(uint4 *dst, const uint4 *src)
{
#ifdef __CUDA_ARCH__
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                 ::"r"((u32)__cvta_generic_to_shared(dst)), "l"(src)
                 : "memory");
#else
    *dst = *src;
#endif
}
__device__ __forceinline__ void async_commit()
{
#ifdef __CUDA_ARCH__
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
__device__ __forceinline__ void async_wait()
{
#ifdef __CUDA_ARCH__
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

/* One row's geometry, the same in every rank and thread. */
struct rowgeo {
    const unsigned char *base; /* x's 16-byte unit holding the row start */
    int off;                   /* bytes of the previous row in unit 0 */
    int nu;                    /* units covering the row */
    int u0, u1;                /* this rank's units */
};

__device__ __forceinline__ rowgeo geo(const elem_t *x, long long row,
                                      int COLS, int rank)
{
    rowgeo g;
    u64 a = (u64)(x + row * COLS);
    g.off = (int)(a & 15);
    g.base = (const unsigned char *)(a - (u64)g.off);
    long long nb = (long long)g.off + (long long)COLS * ES;
    g.nu = (int)((nb + 15) / 16);
    int q = (g.nu + CL - 1) / CL;
    g.u0 = min(g.nu, rank * q);
    g.u1 = min(g.nu, g.u0 + q);
    return g;
}

/* Unit u (global index in the row) as raw elements: 16 bytes at once for
 * an interior unit, masked element loads (-inf outside the row) at the
 * edges, all -inf past this rank's units (u >= u1). Only an edge unit can
 * reach outside x (before an unaligned x, past its end); the masked loads
 * stay inside. */
__device__ __forceinline__ uint4 load_unit(int u, const rowgeo &g, int COLS)
{
    if (u > 0 && u < g.nu - 1 && u < g.u1)
        return ldh<LDH>(reinterpret_cast<const uint4 *>(g.base) + u);
    uint4 w;
    elem_t *e = reinterpret_cast<elem_t *>(&w);
    const elem_t *gu = reinterpret_cast<const elem_t *>(g.base) + u * VE;
#pragma unroll
    for (int i = 0; i < VE; ++i) {
        long long pos = (long long)u * 16 + i * ES - g.off;
        bool in = u < g.u1 && pos >= 0 && pos / ES < COLS;
        e[i] = in ? gu[i] : FROM_F32(NEG_INF);
    }
    return w;
}

/* Unit u into shared slot dst: an interior unit by cp.async, an edge or
 * absent one through registers (masked, as load_unit). */
__device__ __forceinline__ void async_unit(uint4 *dst, int u, const rowgeo &g,
                                           int COLS)
{
    if (u > 0 && u < g.nu - 1 && u < g.u1)
        cp_async16(dst, reinterpret_cast<const uint4 *>(g.base) + u);
    else
        *dst = load_unit(u, g, COLS);
}

__device__ __forceinline__ float ufv(const uint4 &w, int i)
{
    return TO_F32(reinterpret_cast<const elem_t *>(&w)[i]);
}

/* Writes unit u: 16 bytes when interior and y is aligned like x, else
 * element by element inside the row. yr = y's row start - off bytes. */
__device__ __forceinline__ void store_unit(elem_t *yr, int u, const rowgeo &g,
                                           int COLS, bool yal, uint4 w)
{
    if (u >= g.u1)
        return;
    if (yal && u > 0 && u < g.nu - 1) {
        sth<STH>(reinterpret_cast<uint4 *>(yr) + u, w);
        return;
    }
    const elem_t *e = reinterpret_cast<const elem_t *>(&w);
#pragma unroll
    for (int i = 0; i < VE; ++i) {
        long long pos = (long long)u * 16 + i * ES - g.off;
        if (pos >= 0 && pos / ES < COLS)
            yr[u * VE + i] = e[i];
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

/* Folds N units into (m, s): one rescale at most. */
template <int N>
__device__ __forceinline__ void fold(float &m, float &s, const uint4 *w)
{
    float cm = m;
#pragma unroll
    for (int u = 0; u < N; ++u)
#pragma unroll
        for (int i = 0; i < VE; ++i)
            cm = fmaxf(cm, ufv(w[u], i));
    if (cm == NEG_INF)
        return;
    s *= exp2f((m - cm) * L2E);
    m = cm;
    const float nm = -cm * L2E;
#pragma unroll
    for (int u = 0; u < N; ++u)
#pragma unroll
        for (int i = 0; i < VE; ++i)
            s += exp2f(fmaf(ufv(w[u], i), L2E, nm));
}

__device__ __forceinline__ uint4 softmax_unit_out(uint4 w, float nm, float inv)
{
    uint4 o;
    elem_t *e = reinterpret_cast<elem_t *>(&o);
#pragma unroll
    for (int i = 0; i < VE; ++i)
        e[i] = FROM_F32(exp2f(fmaf(ufv(w, i), L2E, nm)) * inv);
    return o;
}

extern "C" __global__ void __launch_bounds__(THREADS, MINB)
softmax_unit(const elem_t *__restrict__ x, elem_t *__restrict__ y, int ROWS,
             int COLS, void *ws)
{
    extern __shared__ uint4 cache[]; /* [SJ][THREADS] units */
    __shared__ float red_m[NW], red_s[NW];
    __shared__ float2 part;

    const int t = threadIdx.x;
    const int rank = CL > 1 ? (int)(blockIdx.x % CL) : 0;
    const long long row = blockIdx.x / CL;
    const rowgeo g = geo(x, row, COLS, rank);
    const int nj = (g.u1 - g.u0 + THREADS - 1) / THREADS; /* units/thread */
    const int ub = g.u0 + t; /* thread's unit j is ub + j*THREADS */
    const bool yal = (((u64)x ^ (u64)y) & 15) == 0;

    /* pass 1: the register units' loads first (bytes in flight); with
     * ASYNC the shared-memory units are all requested at once as cp.async
     * copies (no register staging, so the whole slice is in flight), else
     * they stream through registers UNROLL at a time; units past both
     * caches stream through the fold */
    uint4 v[REG > 0 ? REG : 1];
#pragma unroll
    for (int j = 0; j < REG; ++j)
        v[j] = load_unit(ub + j * THREADS, g, COLS);
    float m = NEG_INF, s = 0.f;
    int j = REG;
    if (ASYNC && SJ > 0) {
        const int je = min(nj, REG + SJ);
        for (int jj = REG; jj < je; ++jj)
            async_unit(&cache[(jj - REG) * THREADS + t], ub + jj * THREADS,
                       g, COLS);
        async_commit();
        j = je;
    }
    for (; j < nj; j += UNROLL) {
        uint4 c[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            c[u] = load_unit(ub + (j + u) * THREADS, g, COLS);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            if (SJ > 0 && j + u < REG + SJ)
                cache[(j + u - REG) * THREADS + t] = c[u];
        fold<UNROLL>(m, s, c);
    }
    if (REG > 0)
        fold<REG>(m, s, v);
    if (ASYNC && SJ > 0) {
        /* only this thread reads its own copies back: no block barrier */
        async_wait();
        const int je = min(nj, REG + SJ);
        for (int jj = REG; jj < je; ++jj) {
            uint4 c = cache[(jj - REG) * THREADS + t];
            fold<1>(m, s, &c);
        }
    }

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

    /* the cluster's pair: lane r reads rank r's, combined in rank order */
    if (CL > 1) {
        if (t == 0) {
            float2 p;
            p.x = m;
            p.y = s;
            part = p;
        }
        cl_arrive();
        cl_wait();
        float2 p = cl_read(&part, t % 32 < CL ? t % 32 : 0);
        m = NEG_INF;
        s = 0.f;
#pragma unroll
        for (int r = 0; r < CL; ++r)
            combine(m, s, __shfl_sync(0xffffffffu, p.x, r),
                    __shfl_sync(0xffffffffu, p.y, r));
        cl_arrive(); /* done reading the partners' pairs */
    }
    const float nm = -m * L2E, inv = 1.f / s;

    /* pass 2: registers, shared memory, then a second read of the rest */
    elem_t *yr = reinterpret_cast<elem_t *>(
        reinterpret_cast<unsigned char *>(y + row * COLS) - g.off);
#pragma unroll
    for (int j = 0; j < REG; ++j)
        store_unit(yr, ub + j * THREADS, g, COLS, yal,
                   softmax_unit_out(v[j], nm, inv));
    for (int j = REG; j < nj; j += UNROLL) {
        uint4 c[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            c[u] = SJ > 0 && j + u < REG + SJ
                       ? cache[(j + u - REG) * THREADS + t]
                       : load_unit(ub + (j + u) * THREADS, g, COLS);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            store_unit(yr, ub + (j + u) * THREADS, g, COLS, yal,
                       softmax_unit_out(c[u], nm, inv));
    }
    if (CL > 1)
        cl_wait(); /* partners are done with this block's pair */
}
