/*
 * softmax_bulk.cu - row softmax with one DRAM read of every row through
 * bulk asynchronous copies (cp.async.bulk, the 1-D TMA) into a ring of
 * shared-memory row buffers, any COLS. A cluster of CL blocks owns a row
 * (CL = 1: a block per row); the grid is persistent: cluster c processes
 * rows c, c + nclusters, ... and keeps the copies of the next nbuf - 1 rows
 * in flight while it works on one, so DRAM never waits for the compute.
 *
 * Alignment: a row starts at r*COLS elements, so for odd COLS its first
 * byte is anywhere in a 16-byte word. Each row is copied as the 16-byte
 * units that cover it (from the unit holding its first byte to the one
 * holding its last), so the copies and all shared-memory and global
 * accesses of the body are 16 bytes wide; only the first and the last
 * unit of a row are masked (the bytes of the neighbouring rows in them are
 * ignored and never written). A unit that is not wholly inside x (the
 * last of the matrix, or the first when x itself is not 16-byte aligned)
 * is not copied but read element-wise. The units of a row are
 * split over the cluster's ranks: rank k holds units [k*q, (k+1)*q) of the
 * row, q = cdiv(units, CL), so a 400000-column fp32 row (1.6 MB) lives in
 * 8 blocks' shared memory (CL = 16, non-portable, halves the slices).
 * On the H100 (bench/results/2026-11-24-h100-perf-s4/), fp32 256x400000:
 * CL = 8 with DROP = 1 (15 clusters) 0.887x copy; DROP = 0 (16 clusters
 * of 8 are not all resident) 0.577x; CL = 16 0.38-0.84x at every
 * NBUF/BPS/DROP tried; CL = 7 (tried, then dropped from the list)
 * 0.51-0.57x; XCH = 1 0.828x vs XCH = 0 0.850x in one worker (spreads
 * near 4 %: no gain seen). Nsight Compute at CL = 8 DROP = 1: DRAM 73.9 %
 * of peak over the kernel, bytes = one read of x and one write of y,
 * issue slots 31 % busy, barrier waits the largest stall reason: the
 * per-row phases (fold, barriers, write), not the bytes or the compute,
 * keep it under the copy. Per row: an online (max, sum) fold of the
 * block's units, a block reduction, with CL > 1 a cluster exchange of the
 * CL pairs through distributed shared memory (one DSMEM load per lane,
 * combined in rank order: deterministic), then y written from shared
 * memory in 16-byte stores (element-wise only at the two edge units, or
 * everywhere if y is not aligned like x). fp32 math.
 *
 * Shared memory: a ring of chunk slots, NBUF row slices of NCH chunks and
 * XCH spare ones, sized for 4-byte elements; 2-byte dtypes fit about
 * twice as many row buffers in the same bytes (nbuf <= 16). Chunk k of a
 * block's sequence (row iteration k / NCH) lives in slot k % (nbuf * NCH
 * + XCH) and is copied once chunk k - that was written out; the XCH
 * spare ones only when a row's fold ends. The smem and
 * launch directives cannot see the dtype, hence the fp32 sizing. The CPU
 * emulator (scripts/tplcc.sh --emu) runs CL = 1 only (no clusters): the
 * copies become memcpy there.
 */
// kevo: problem softmax
// kevo: dtypes fp32 fp16 bf16
// kevo: param CL 1 2 4 8 16 default=8
// kevo: param THREADS 128 256 384 512 768 1024 default=384
// kevo: param NBUF 1 2 3 4 6 8 default=1
// 16-byte units folded per step (loads in flight per thread):
// kevo: param UNROLL 1 2 4 default=4
// Chunks of a row slice, each one bulk copy on its own mbarrier: the fold
// starts on a chunk as soon as it lands, and in the write pass a chunk is
// refilled with the next row as soon as it is written out (with NBUF = 1
// that is the only overlap of DRAM reads with the compute):
// kevo: param NCH 1 2 4 8 default=8
// Spare chunk slots (the ring holds NBUF * NCH + XCH chunks): the copies
// into them are started when a row's fold ends, so reads stay in flight
// while the block reduces and waits on the cluster barrier:
// kevo: param XCH 0 1 default=0
// Blocks per SM the persistent grid is sized for, and clusters left out
// of it (to fit a GPC-shaped cluster count or divide ROWS evenly):
// kevo: param BPS 1 2 3 4 default=1
// kevo: param DROP 0 1 2 4 6 8 default=1
// L2 policy of the copies: 0 normal, 1 evict-first; stores: 0 plain,
// 1 streaming (.cs):
// kevo: param EVF 0 1 default=0
// kevo: param STH 0 1 default=1
// kevo: constraint BPS * THREADS <= 2048
// kevo: constraint SMS * BPS / CL - DROP >= 1
// The ring (fp32-sized, see above) + ~2 KB of static and reserved shared
// memory per block, BPS blocks per SM (233472 B an SM on sm_90):
// kevo: requires (NBUF * NCH + XCH) * cdiv(cdiv(cdiv(COLS, 4) + 1, CL), NCH) * 16 <= SMEM_OPTIN - 2048
// kevo: requires BPS * ((NBUF * NCH + XCH) * cdiv(cdiv(cdiv(COLS, 4) + 1, CL), NCH) * 16 + 3072) <= 233472
// kevo: requires COLS <= 536000000
// kevo: launch softmax_bulk
// kevo: grid CL * min(ROWS, SMS * BPS / CL - DROP)
// kevo: block THREADS
// kevo: cluster CL, 1, 1
// kevo: smem (NBUF * NCH + XCH) * cdiv(cdiv(cdiv(COLS, 4) + 1, CL), NCH) * 16

#define ES ((int)sizeof(elem_t))
#define VE (16 / ES) /* elements per 16-byte unit */
#define NW (THREADS / 32)
#define MAXB 16      /* row buffers at most (NCH mbarriers each) */
#define L2E 1.4426950408889634f
#define NEG_INF __int_as_float(0xff800000)

typedef unsigned long long u64;
typedef unsigned int u32;
#ifndef __CUDA_ARCH__ /* the host pass (nvcc, the emulator): <sched.h>'s */
extern "C" int sched_yield(void) noexcept;
#endif

/* ---- sm_90 primitives; the emulator branch does the same in order ---- */

__device__ __forceinline__ u32 saddr(const void *p)
{
#ifdef __CUDA_ARCH__
    return (u32)__cvta_generic_to_shared(p);
#else
    (void)p;
    return 0;
#endif
}

__device__ __forceinline__ void mbar_init(u64 *b)
{
#ifdef __CUDA_ARCH__
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(saddr(b))
                 : "memory");
#else
    *b = 0;
#endif
}

__device__ __forceinline__ void mbar_fence_init()
{
#ifdef __CUDA_ARCH__
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

/* Expects bytes of copies on b and arrives (the one arrival of a phase). */
__device__ __forceinline__ void mbar_expect(u64 *b, u32 bytes)
{
#ifdef __CUDA_ARCH__
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 ::"r"(saddr(b)), "r"(bytes) : "memory");
#else
    (void)b;
    (void)bytes;
#endif
}

__device__ __forceinline__ void mbar_wait(u64 *b, u32 parity)
{
#ifdef __CUDA_ARCH__
    u32 a = saddr(b);
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "WAIT_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "@!p bra WAIT_%=;\n"
                 "}\n" ::"r"(a), "r"(parity) : "memory");
#else
    /* *b counts completed phases (see mbar_emu_done) */
    while ((__atomic_load_n(b, __ATOMIC_ACQUIRE) & 1) == parity)
        sched_yield();
#endif
}

/* The emulator's copies are done when issued: completes the phase. */
__device__ __forceinline__ void mbar_emu_done(u64 *b)
{
#ifndef __CUDA_ARCH__
    __atomic_fetch_add(b, 1, __ATOMIC_RELEASE);
#else
    (void)b;
#endif
}

/* bytes (a multiple of 16, 16-byte aligned ends) from global src to
 * shared dst, completing on mbarrier b. */
__device__ __forceinline__ void bulk_load(void *dst, const void *src,
                                          u32 bytes, u64 *b, u64 pol)
{
#ifdef __CUDA_ARCH__
    if (EVF)
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::"
                     "complete_tx::bytes.L2::cache_hint [%0], [%1], %2, "
                     "[%3], %4;" ::"r"(saddr(dst)), "l"(src), "r"(bytes),
                     "r"(saddr(b)), "l"(pol) : "memory");
    else
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::"
                     "complete_tx::bytes [%0], [%1], %2, [%3];"
                     ::"r"(saddr(dst)), "l"(src), "r"(bytes), "r"(saddr(b))
                     : "memory");
#else
    (void)b;
    (void)pol;
    memcpy(dst, src, bytes);
#endif
}

__device__ __forceinline__ u64 evict_first_policy()
{
    u64 pol = 0;
#ifdef __CUDA_ARCH__
    if (EVF)
        asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;"
                     : "=l"(pol));
#endif
    return pol;
}

/* Generic-proxy reads of a buffer before the async proxy refills it. */
__device__ __forceinline__ void fence_async()
{
#ifdef __CUDA_ARCH__
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

__device__ __forceinline__ void cl_sync()
{
#ifdef __CUDA_ARCH__
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}

/* rank r's copy of the shared float2 at p (distributed shared memory). */
__device__ __forceinline__ float2 cl_read(const float2 *p, int r)
{
    float2 v;
#ifdef __CUDA_ARCH__
    u32 ra;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(ra) : "r"(saddr(p)), "r"(r));
    asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];"
                 : "=f"(v.x), "=f"(v.y) : "r"(ra) : "memory");
#else
    (void)r;
    v = *p;
#endif
    return v;
}

__device__ __forceinline__ void st16(uint4 *p, uint4 v)
{
#ifdef __CUDA_ARCH__
    if (STH) {
        __stcs(p, v);
        return;
    }
#endif
    *p = v;
}

/* ---- one row's geometry, the same in every rank and every thread ---- */
struct rowgeo {
    const unsigned char *base; /* x's 16-byte unit holding the row start */
    int off;                   /* bytes of the previous row in unit 0 */
    int nu;                    /* units covering the row */
    int c0, ncp;               /* units [c0, ncp) lie inside x: copied */
    int u0, u1;                /* this rank's units */
};

__device__ __forceinline__ rowgeo geo(const elem_t *x, long long row,
                                      int COLS, long long total, int rank)
{
    rowgeo g;
    u64 a = (u64)(x + row * COLS);
    g.off = (int)(a & 15);
    g.base = (const unsigned char *)(a - (u64)g.off);
    long long nb = (long long)g.off + (long long)COLS * ES;
    g.nu = (int)((nb + 15) / 16);
    /* the units past x's last 16-byte boundary are not copied */
    u64 xend = ((u64)(x + total)) & ~(u64)15;
    long long inside = ((long long)xend - (long long)(u64)g.base) / 16;
    g.ncp = (int)(inside < g.nu ? inside : g.nu);
    g.c0 = (u64)g.base < (u64)x; /* x itself not 16-byte aligned */
    int q = (g.nu + CL - 1) / CL;
    g.u0 = min(g.nu, rank * q);
    g.u1 = min(g.nu, g.u0 + q);
    return g;
}

/* Issues the copy of chunk c of this rank's units of a row into its
 * slot sc: local units [c*per, (c+1)*per) land at sc + (unit - c*per)*16
 * (per fixed for the launch, so every chunk fits every slot). */
__device__ __forceinline__ void issue(unsigned char *sc, u64 *bar,
                                      const rowgeo &g, int c, int per,
                                      u64 pol)
{
    int nloc = g.u1 - g.u0;
    int lo = max(c * per, g.c0 - g.u0);
    int hi = min(min(nloc, (c + 1) * per), g.ncp - g.u0);
    int n = max(0, hi - lo); /* units to copy */
    mbar_expect(bar, (u32)n * 16u);
    if (n > 0)
        bulk_load(sc + (size_t)(lo - c * per) * 16,
                  g.base + (size_t)(g.u0 + lo) * 16,
                  (u32)n * 16u, bar, pol);
    mbar_emu_done(bar);
}

/* Element i of a 16-byte unit as float. */
__device__ __forceinline__ float ufv(const uint4 &w, int i)
{
    return TO_F32(reinterpret_cast<const elem_t *>(&w)[i]);
}

/* The floats of unit u (shared copy at su); edge units are masked (-inf
 * outside the row) and the uncopied last unit is read from global. */
__device__ __forceinline__ void unit_vals(float (&f)[VE], const uint4 *su,
                                          int u, const rowgeo &g,
                                          int COLS)
{
    if (u > 0 && u < g.nu - 1) {
        uint4 w = *su;
#pragma unroll
        for (int i = 0; i < VE; ++i)
            f[i] = ufv(w, i);
        return;
    }
    const elem_t *gu = reinterpret_cast<const elem_t *>(g.base) + u * VE;
    const elem_t *s = reinterpret_cast<const elem_t *>(su);
#pragma unroll
    for (int i = 0; i < VE; ++i) {
        long long c = ((long long)u * 16 + i * ES - g.off) / ES;
        bool in = (long long)u * 16 + i * ES >= g.off && c < COLS;
        f[i] = !in                        ? NEG_INF
               : u >= g.c0 && u < g.ncp ? TO_F32(s[i])
                                        : TO_F32(gu[i]);
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

/* Folds N units' floats into (m, s): one rescale at most. */
template <int N>
__device__ __forceinline__ void fold(float &m, float &s, const float (*f)[VE])
{
    float cm = m;
#pragma unroll
    for (int u = 0; u < N; ++u)
#pragma unroll
        for (int i = 0; i < VE; ++i)
            cm = fmaxf(cm, f[u][i]);
    if (cm == NEG_INF)
        return;
    s *= exp2f((m - cm) * L2E);
    m = cm;
    const float nm = -cm * L2E;
#pragma unroll
    for (int u = 0; u < N; ++u)
#pragma unroll
        for (int i = 0; i < VE; ++i)
            s += exp2f(fmaf(f[u][i], L2E, nm));
}

/* Writes unit u of the row: 16 bytes when whole and y is aligned like x,
 * else element by element inside the row. */
__device__ __forceinline__ void unit_store(elem_t *yr, int u,
                                           const rowgeo &g, int COLS,
                                           bool yal, const float (&f)[VE],
                                           float nm, float inv)
{
    uint4 w;
    elem_t *e = reinterpret_cast<elem_t *>(&w);
#pragma unroll
    for (int i = 0; i < VE; ++i)
        e[i] = FROM_F32(exp2f(fmaf(f[i], L2E, nm)) * inv);
    if (yal && u > 0 && u < g.nu - 1) {
        st16(reinterpret_cast<uint4 *>(yr) + u, w);
        return;
    }
    /* yr is y's row start minus off bytes (possibly unaligned for !yal) */
#pragma unroll
    for (int i = 0; i < VE; ++i) {
        long long pos = (long long)u * 16 + i * ES - g.off;
        if (pos >= 0 && pos / ES < COLS)
            yr[(pos + g.off) / ES] = e[i];
    }
}

/* Thread 0's copy queue: chunk k of this block's sequence (row iteration
 * k / NCH, chunk k % NCH) goes to slot k % NS, and is issued once chunk
 * k - NS was written out. Issues every chunk up to index last. */
struct copyq {
    long long nxt; /* the next chunk to issue */
};

__device__ __forceinline__ void issue_upto(copyq &q, long long last,
                                           unsigned char *ring, u64 *bar,
                                           int ns, size_t slot_bytes,
                                           int per, const elem_t *x,
                                           int ROWS, int COLS,
                                           long long total, int rank,
                                           int cid, int ncl, u64 pol)
{
    for (; q.nxt <= last; ++q.nxt) {
        const long long row = cid + (q.nxt / NCH) * ncl;
        if (row >= ROWS)
            return;
        const int sl = (int)(q.nxt % ns);
        issue(ring + sl * slot_bytes, &bar[sl],
              geo(x, row, COLS, total, rank), (int)(q.nxt % NCH), per, pol);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
softmax_bulk(const elem_t *__restrict__ x, elem_t *__restrict__ y, int ROWS,
             int COLS, void *ws)
{
    extern __shared__ float4 smem4[];
    unsigned char *ring = reinterpret_cast<unsigned char *>(smem4);
    __shared__ u64 bar[MAXB * NCH + 2]; /* one a slot */
    __shared__ float red_m[NW], red_s[NW];
    __shared__ float2 part[2];

    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int rank = CL > 1 ? (int)(blockIdx.x % CL) : 0;
    const int cid = blockIdx.x / CL, ncl = gridDim.x / CL;
    const long long total = (long long)ROWS * COLS;
    /* a chunk: per units, a 1/NCH of the most units a rank holds for this
     * dtype; the smem directive sizes NBUF * NCH + XCH slots for 4-byte
     * elements, so 2-byte dtypes fit about twice as many row buffers */
    const int qmax = (int)((((long long)COLS * ES + 15) / 16 + 1 + CL - 1) /
                           CL);
    const int q4 = ((COLS + 3) / 4 + 1 + CL - 1) / CL;
    const int per = (qmax + NCH - 1) / NCH, per4 = (q4 + NCH - 1) / NCH;
    const size_t slot_bytes = (size_t)per * 16;
    const int avail = (int)((long long)(NBUF * NCH + XCH) * per4 / per);
    const int nbuf = min(MAXB, (avail - XCH) / NCH);
    const int ns = nbuf * NCH + XCH; /* slots */
    /* y's rows can take 16-byte stores where x's can */
    const bool yal = (((u64)x ^ (u64)y) & 15) == 0;
    const u64 pol = evict_first_policy();
    copyq q = {0};

    if (t == 0) {
        for (int b = 0; b < ns; ++b)
            mbar_init(&bar[b]);
        mbar_fence_init();
    }
    __syncthreads();
    /* the first nbuf rows; the XCH spare slots wait for the first gap */
    if (t == 0)
        issue_upto(q, ns - XCH - 1, ring, bar, ns, slot_bytes, per, x, ROWS,
                   COLS, total, rank, cid, ncl, pol);

    int it = 0;
    for (long long row = cid; row < ROWS; row += ncl, ++it) {
        const long long k0 = (long long)it * NCH; /* first chunk of the row */
        const rowgeo g = geo(x, row, COLS, total, rank);
        const int nloc = g.u1 - g.u0;

        /* fold this rank's units, a chunk as soon as it lands */
        float m = NEG_INF, s = 0.f;
#pragma unroll 1
        for (int c = 0; c < NCH; ++c) {
            const int end = min(nloc, (c + 1) * per);
            const int sl = (int)((k0 + c) % ns);
            /* local unit k of the row is sc[k - c * per] */
            const uint4 *sc =
                reinterpret_cast<const uint4 *>(ring + sl * slot_bytes);
            int k = c * per + t;
            mbar_wait(&bar[sl], (u32)(((k0 + c) / ns) & 1));
            for (; k + (UNROLL - 1) * THREADS < end; k += UNROLL * THREADS) {
                float f[UNROLL][VE];
#pragma unroll
                for (int j = 0; j < UNROLL; ++j)
                    unit_vals(f[j], sc + (k - c * per) + j * THREADS,
                              g.u0 + k + j * THREADS, g, COLS);
                fold<UNROLL>(m, s, f);
            }
            for (; k < end; k += THREADS) {
                float f[1][VE];
                unit_vals(f[0], sc + (k - c * per), g.u0 + k, g, COLS);
                fold<1>(m, s, f);
            }
        }
        /* the gap before this row's writes (reductions, cluster barrier):
         * the spare slots (freed by the last row's writes) start copies of
         * the rows after, so DRAM still has reads in flight meanwhile */
        if (XCH && t == 0) {
            fence_async();
            issue_upto(q, k0 - 1 + ns, ring, bar, ns, slot_bytes, per, x,
                       ROWS, COLS, total, rank, cid, ncl, pol);
        }

        /* the block's pair, in a fixed order */
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            float m2 = __shfl_xor_sync(0xffffffffu, m, o);
            float s2 = __shfl_xor_sync(0xffffffffu, s, o);
            combine(m, s, m2, s2);
        }
        if (lane == 0) {
            red_m[warp] = m;
            red_s[warp] = s;
        }
        __syncthreads();
        m = red_m[0];
        s = red_s[0];
#pragma unroll
        for (int w = 1; w < NW; ++w)
            combine(m, s, red_m[w], red_s[w]);

        /* the cluster's pair: lane r reads rank r's pair, then every lane
         * combines ranks 0..CL-1 in order. part[] is a ring of 2: a rank
         * overwrites slot it&1 only after the next row's cluster barrier,
         * which its partners reach after reading this row's pairs. */
        if (CL > 1) {
            if (t == 0) {
                float2 pm;
                pm.x = m;
                pm.y = s;
                part[it & 1] = pm;
            }
            cl_sync();
            float2 p = cl_read(&part[it & 1], lane < CL ? lane : 0);
            m = NEG_INF;
            s = 0.f;
#pragma unroll
            for (int r = 0; r < CL; ++r)
                combine(m, s, __shfl_sync(0xffffffffu, p.x, r),
                        __shfl_sync(0xffffffffu, p.y, r));
        }
        const float nm = -m * L2E, inv = 1.f / s;

        /* write from shared memory; each chunk, once written out (and red_*
         * read), frees its slot: the queue refills it, keeping XCH slots
         * for the next gap */
        elem_t *yr = reinterpret_cast<elem_t *>(
            reinterpret_cast<unsigned char *>(y + row * COLS) - g.off);
#pragma unroll 1
        for (int c = 0; c < NCH; ++c) {
            const int end = min(nloc, (c + 1) * per);
            const int sl = (int)((k0 + c) % ns);
            const uint4 *sc =
                reinterpret_cast<const uint4 *>(ring + sl * slot_bytes);
            int k = c * per + t;
            for (; k + (UNROLL - 1) * THREADS < end; k += UNROLL * THREADS) {
                float f[UNROLL][VE];
#pragma unroll
                for (int j = 0; j < UNROLL; ++j)
                    unit_vals(f[j], sc + (k - c * per) + j * THREADS,
                              g.u0 + k + j * THREADS, g, COLS);
#pragma unroll
                for (int j = 0; j < UNROLL; ++j)
                    unit_store(yr, g.u0 + k + j * THREADS, g, COLS, yal, f[j],
                               nm, inv);
            }
            for (; k < end; k += THREADS) {
                float f[VE];
                unit_vals(f, sc + (k - c * per), g.u0 + k, g, COLS);
                unit_store(yr, g.u0 + k, g, COLS, yal, f, nm, inv);
            }
            __syncthreads();
            if (t == 0) {
                fence_async();
                issue_upto(q, k0 + c + ns - XCH, ring, bar, ns, slot_bytes,
                           per, x, ROWS, COLS, total, rank, cid, ncl, pol);
            }
        }
    }
    if (CL > 1)
        cl_sync(); /* partners may still read this block's part[] */
}
