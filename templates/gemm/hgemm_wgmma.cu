/*
 * hgemm_wgmma.cu - C = A * B for fp16/bf16 (row-major, fp32 accumulation)
 * on Hopper (sm_90a), with TMA and wgmma: the fast path when K and N are
 * multiples of 8 (TMA's 16-byte row strides). hgemm_packed covers the rest.
 *
 * Each block computes BM x BN tiles of C. Warpgroup 0 is the producer: one
 * thread issues the TMA loads of a k slice (BM x BK of A, K-major; BK x BN
 * of B, read N-major in 64-column boxes) into one of STAGES shared-memory
 * stages, 128-byte swizzled, each stage guarded by a full and an empty
 * mbarrier. Warpgroups 1..CONSUMERS split the tile's rows: each holds MI =
 * BM / (64 CONSUMERS) m64nBNk16 fp32 accumulators and runs wgmma from the
 * stage, keeping one slice's wgmmas in flight. TMA boxes past M, N, K
 * read zeros; stores are clipped.
 *
 * Parameters:
 *   BM, BN      block tile (BN is the wgmma N)
 *   CONSUMERS   consumer warpgroups (SETREG=1: setmaxnreg moves registers
 *               from the producer, 40, to them, 232)
 *   STAGES, BK  pipeline depth and k slice (BK=32: 64-byte swizzle for A)
 *   PERSIST     1: min(SMS, tiles) blocks loop over the tiles
 *   GROUP_M     tile rows swept together (L2 reuse; an int argument)
 *   CLUSTER     blocks sharing operand loads by TMA multicast: 2 on
 *               adjacent M tiles (CLN=0, B shared; MCK=1 splits B's boxes
 *               by k rows) or N tiles (CLN=1, A shared); 4 is a 2 x 2
 *               square, SMS / 4 - CL4_SPARE clusters (not all fit the GPCs)
 *   EPI         1: C leaves through shared memory and TMA stores (EPW=1:
 *               each warp stores its 16 rows itself, stmatrix); EPO=1
 *               defers a tile's stores into the next tile's k loop
 *   SK          0: whole tiles; 2: stream-K over the last partial wave;
 *               3: split-K when there are fewer tiles than clusters
 *   LEAN        1: unsigned counters, warp-uniform indices (fewer
 *               instructions around each wgmma)
 *   L2P         L2 promotion of the load tensor maps (bytes; launch-only)
 *   KREV        1: a block's odd waves run k backwards; 2: and odd GROUP_M
 *               groups sweep N backwards (each wave starts on data in L2)
 * Schedule: above struct sched; epilogues: above store_box, sk3_reduce.
 * Measurements, what was tried and dropped: bench/notes/hgemm_wgmma.md.
 */
// kevo: problem gemm
// kevo: dtypes fp16 bf16
// kevo: param BM 64 128 256 default=128
// kevo: param BN 64 128 256 default=256
// kevo: param CONSUMERS 1 2 default=2
// kevo: param STAGES 2 3 4 5 6 7 8 9 default=4
// kevo: param GROUP_M 1 4 8 16 default=8
// kevo: param PERSIST 0 1 default=1
// kevo: param SETREG 0 1 default=1
// kevo: param CLUSTER 1 2 4 default=2
// kevo: param CLN 0 1 default=0
// kevo: param CL4_SPARE 0 1 2 3 default=3
// kevo: param EPI 0 1 default=1
// kevo: param EPO 0 1 default=1
// kevo: param SK 0 2 3 default=0
// kevo: param BK 32 64 default=64
// kevo: param LEAN 0 1 default=1
// kevo: param MCK 0 1 default=1
// kevo: param EPW 0 1 default=1
// kevo: param L2P 0 64 128 256 default=128
// kevo: param KREV 0 1 2 default=2
//
// Each consumer warpgroup owns 1 or 2 m64 row blocks, at most 128 fp32
// accumulators per thread:
// kevo: constraint BM % (64 * CONSUMERS) == 0 && BM / (64 * CONSUMERS) <= 2
// kevo: constraint BM / (64 * CONSUMERS) * BN <= 256
// The deferred epilogue stores through the EPI = 1 boxes:
// kevo: constraint !EPO || (EPI == 1 && (SETREG || CONSUMERS == 1))
// Stream-K and split-K over a persistent grid; their flags (one a
// consumer of a block):
// kevo: constraint !SK || (PERSIST == 1 && CONSUMERS * SMS <= 2048)
// setmaxnreg only pays when 384 threads share the register file:
// kevo: constraint !SETREG || CONSUMERS == 2
// kevo: constraint 1024 + STAGES * (BM + BN) * BK * 2 + EPI * CONSUMERS * 16384 + 256 <= SMEM_OPTIN
// A pair on adjacent M tiles (CLN = 0) splits the B boxes of a stage in
// halves; a pair on adjacent N tiles (CLN = 1) the A rows:
// kevo: constraint CLUSTER == 1 || CLN == 1 || BN >= 128
// kevo: constraint CLUSTER == 2 || CLN == 0
// CL4_SPARE only means something with CLUSTER = 4:
// kevo: constraint CLUSTER == 4 || CL4_SPARE == 3
// kevo: constraint CLUSTER < 4 || !SK
// kevo: constraint !MCK || (CLUSTER == 2 && CLN == 0)
// kevo: constraint !EPW || EPI == 1
// kevo: constraint !KREV || PERSIST == 1
// TMA: 16-byte global row strides (checked for the tensor maps as well):
// kevo: requires K % 8 == 0 && N % 8 == 0
// A's k slices: BK = 64 rows of 128 bytes, BK = 32 rows of 64 bytes:
// kevo: tensormap tmA A 64, BM / (1 + CLN + (CLUSTER == 4)) swizzle=128 l2=L2P
// kevo: tensormap tmA32 A 32, BM / (1 + CLN + (CLUSTER == 4)) swizzle=64 l2=L2P
// kevo: tensormap tmB B 64, BK / (1 + MCK) swizzle=128 l2=L2P
// kevo: tensormap tmC C 64, 64 / (1 + 3 * EPW) swizzle=128
// kevo: arg group_m GROUP_M
// Stream-K and split-K: the flags, then one fp32 BM x BN tile of partials
// a block:
// kevo: workspace min(SK, 1) * (262144 + SMS * BM * BN * 4)
// kevo: launch hgemm_wgmma
// With SK the tiles are shared among all SMS / CLUSTER clusters, so the
// grid is whole even with fewer tiles than clusters:
// kevo: grid CLUSTER * (PERSIST ? SK >= 2 ? SMS / CLUSTER : min(SMS / CLUSTER - (CLUSTER == 4 ? CL4_SPARE : 0), cdiv(cdiv(M, BM), CLUSTER == 4 ? 2 : CLN ? 1 : CLUSTER) * cdiv(cdiv(N, BN), CLUSTER == 4 ? 2 : CLN ? CLUSTER : 1)) : cdiv(cdiv(M, BM), CLUSTER == 4 ? 2 : CLN ? 1 : CLUSTER) * cdiv(cdiv(N, BN), CLUSTER == 4 ? 2 : CLN ? CLUSTER : 1))
// kevo: block 128 * (CONSUMERS + 1)
// kevo: smem 1024 + STAGES * (BM + BN) * BK * 2 + EPI * CONSUMERS * 16384 + 256
// kevo: cluster CLUSTER, 1, 1

#include "kevo/sm90.cuh"

#define A_ROW (BK * 2)                 /* bytes of an A row of a slice */
#define A_SWZ (BK == 64 ? 1 : 2)       /* its swizzle: 128 or 64 bytes */
#define MI (BM / (64 * CONSUMERS))     /* m64 blocks a consumer */
#define SK3_Q (MI * BN / 8) /* SK = 3: float4 groups a thread holds (<= 32) */
#define THREADS (128 * (CONSUMERS + 1))
#define A_BYTES (BM * BK * 2)          /* A slice: BM rows of 128 B */
#define B_BYTES (BN * BK * 2)          /* B slice: BN/64 boxes of BK rows */
#define B_BOX_BYTES (64 * BK * 2)
#define STAGE_BYTES (A_BYTES + B_BYTES) /* a multiple of 1024 */
/* blocks of a cluster along M and along N; rank = rn * CL_M + rm */
#define CL_M (CLUSTER == 4 ? 2 : CLN ? 1 : CLUSTER)
#define CL_N (CLUSTER == 4 ? 2 : CLN ? CLUSTER : 1)
/* blocks a block's stage takes TMA bytes from (itself included) */
#define CL_PEERS (CL_M + CL_N - 1)
#define B_BOXES_OWN (BN / 64 / CL_M)   /* B boxes a block loads */
#define A_ROWS_OWN (BM / CL_N)         /* A rows a block loads */
#define EPI_BOX_BYTES (64 * 64 * 2)    /* EPI = 1: a 64 x 64 box of C */

/* LEAN = 1: the slice counter is unsigned (stage and parity are a mask and
 * a shift, not signed division), and a consumer's warpgroup index comes
 * from a lane-0 shuffle, so ptxas knows it is warp-uniform and keeps the
 * wgmma descriptors in uniform registers (no R2UR / moves a wgmma). */
#if LEAN
typedef unsigned ctr_t;
#else
typedef int ctr_t;
#endif

/* ---- the kernel ---- */

/* Block tile of the t-th (cluster) tile: group_m (cluster) rows sweep
 * the columns (GROUP_M, an int argument: its values share one compile);
 * tiles_m and tiles_n count cluster tiles (CL_M x CL_N block tiles), and
 * block rank of the cluster takes M tile rank % CL_M and N tile rank /
 * CL_M of it. */
__device__ __forceinline__ void tile_origin(int t, int tiles_m, int tiles_n,
                                            int group_m, int &m0, int &n0)
{
    const int per_group = group_m * tiles_n;
    const int first_m = (t / per_group) * group_m;
    const int gsize = min(tiles_m - first_m, group_m);
    const int rank = CLUSTER == 1 ? 0 : (int)cluster_rank();
    int col = (t % per_group) / gsize;
    if (KREV == 2 && (t / per_group) % 2) /* odd groups sweep N backwards */
        col = tiles_n - 1 - col;
    m0 = ((first_m + (t % per_group) % gsize) * CL_M + rank % CL_M) * BM;
    n0 = (col * CL_N + rank / CL_M) * BN;
}

/* Stage s: A slice at a(s), B slice at a(s) + A_BYTES; full(s) completes
 * when its TMA bytes land, empty(s) when every consumer is done with it.
 * it counts slices over all tiles of the block: stage it % STAGES, phase
 * parity (it / STAGES) & 1. */
struct smem_map {
    unsigned base, epi, bars;
    __device__ unsigned a(int s) const { return base + s * STAGE_BYTES; }
    __device__ unsigned b(int s) const { return a(s) + A_BYTES; }
    __device__ unsigned full(int s) const { return bars + 8 * s; }
    __device__ unsigned empty(int s) const { return bars + 8 * (STAGES + s); }
};

/*
 * Work schedule, the same for the producer and the consumers of a block.
 * Without SK every (cluster) tile is one item over all k slices, dealt
 * round-robin to the ncl = gridDim / CLUSTER clusters (GROUP_M cluster
 * rows sweep the columns, tile_origin).
 * SK = 2 (stream-K over the tail) keeps every whole wave data-parallel and
 * cuts only the last, partial one (or, with fewer tiles than clusters,
 * all of them) into k-slice ranges [su, se) spread evenly over all ncl
 * clusters. A range may be shorter than a tile, so a tile can have
 * several writers (cluster c - 1, c - 2, ... down to the one whose range
 * holds its first slice; they write fp32 partial sums to their blocks'
 * workspace slots and raise flags) and one owner, the cluster holding
 * its last slice, which adds its writers' partials nearest first (a
 * fixed order: the same bits at every launch) and stores C. A cluster
 * takes its range's pieces from the last to the first, so its writer
 * piece (at most one) comes first and its owner piece last. An owner
 * waits only on lower clusters, which needs all clusters resident: the
 * grid is persistent, one block a multiprocessor.
 * SK = 3 is split-K for fewer tiles than clusters (long K): every tile is
 * cut into S = min(ncl / tiles, ktiles, SK3_Q) equal k ranges (none when
 * S < 2),
 * and cluster u < S tiles runs range u / tiles of tile u % tiles, once.
 * The tiles of a range run side by side over the same k slices (as a
 * data-parallel wave does), so the A and B slices they share are read
 * from L2 together; stream-K's staggered ranges read them at different
 * times, and with operands beyond the L2 (1024 x 1024 x 16384: 64 MB) from
 * DRAM again. The S ranges then share the tile's reduction, each adding
 * up 1 / S of it (sk3_reduce).
 */
struct sched {
    int tiles_m, tiles_n, ktiles, ncl, cid, group_m;
    int dp_tiles; /* tiles dealt whole; the rest are stream-K */
    int su, se;   /* this cluster's stream-K slice range */
    int sl;       /* stream-K slices in all (cluster c: [c sl / ncl,
                     (c + 1) sl / ncl)) */
};

__device__ __forceinline__ sched make_sched(int M, int N, int K,
                                            int group_m)
{
    sched g;
    g.group_m = group_m;
    /* with CLUSTER = 2, pairs of M (or N) tiles (the second may lie past
     * M (N): its boxes read zeros and its stores are masked) */
    g.tiles_m = (M + BM * CL_M - 1) / (BM * CL_M);
    g.tiles_n = (N + BN * CL_N - 1) / (BN * CL_N);
    g.ktiles = (K + BK - 1) / BK;
    g.ncl = gridDim.x / CLUSTER;
    g.cid = blockIdx.x / CLUSTER;
    const int tiles = g.tiles_m * g.tiles_n;
    g.dp_tiles = tiles;
    g.su = g.se = 0;
    g.sl = 0;
    if (SK == 2 && tiles % g.ncl != 0)
        g.dp_tiles = tiles / g.ncl * g.ncl;
    if (SK == 3) {
        /* sl = S, the ranges a tile; se = 1: the cluster has a range.
         * S <= SK3_Q: each range reduces at least one float4 group */
        const int S = min(min(g.ncl / tiles, g.ktiles), SK3_Q);
        if (S >= 2) {
            g.dp_tiles = 0;
            g.sl = S;
            g.se = g.cid < S * tiles;
        }
        return g;
    }
    if (g.dp_tiles < tiles) {
        g.sl = (tiles - g.dp_tiles) * g.ktiles;
        g.su = (int)((long long)g.sl * g.cid / g.ncl);
        g.se = (int)((long long)g.sl * (g.cid + 1) / g.ncl);
    }
    return g;
}

/* The block's items in turn: tile t, k slices [kb, ke). With SK = 2, ke
 * < ktiles makes it a writer piece (kb > 0 too: a middle piece), else kb
 * > 0 an owner piece. */
struct item_iter {
    int t, kb, ke;
    int next_dp, ue; /* next dp tile; end of the stream-K slices left */
    __device__ void start(const sched &g)
    {
        next_dp = g.cid;
        ue = g.se;
    }
    __device__ bool next(const sched &g)
    {
        if (next_dp < g.dp_tiles) {
            t = next_dp;
            kb = 0;
            ke = g.ktiles;
            next_dp += g.ncl;
            return true;
        }
        if (!SK || ue <= g.su)
            return false;
        if (SK == 3) { /* range cid / tiles of tile cid % tiles */
            const int tiles = g.tiles_m * g.tiles_n, r = g.cid / tiles;
            ue = 0;
            t = g.cid % tiles;
            kb = g.ktiles * r / g.sl;
            ke = g.ktiles * (r + 1) / g.sl;
            return true;
        }
        const int tl = (ue - 1) / g.ktiles;
        t = g.dp_tiles + tl;
        kb = max(g.su - tl * g.ktiles, 0);
        ke = ue - tl * g.ktiles;
        ue = tl * g.ktiles + kb;
        return true;
    }
};

__device__ __forceinline__ void produce(const smem_map &sm, const tmap_t *ta,
                                        const tmap_t *tb, const sched &g)
{
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(ta) : "memory");
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(tb) : "memory");
    ctr_t it = 0;
    const int rank = CLUSTER == 1 ? 0 : (int)cluster_rank();
    const int rm = rank % CL_M, rn = rank / CL_M;
    /* ranks of the blocks on the same M tile (sharing A) and on the same
     * N tile (sharing B) */
    unsigned mask_a = 0, mask_b = ((1u << CL_M) - 1) << (rn * CL_M);
#pragma unroll
    for (int j = 0; j < CL_N; ++j)
        mask_a |= 1u << (rm + CL_M * j);
    item_iter w;
    w.start(g);
    while (w.next(g)) {
        int m0, n0;
        tile_origin(w.t, g.tiles_m, g.tiles_n, g.group_m, m0, n0);
        /* KREV: in odd waves (t / ncl: a block's n-th item), k from the
         * last slice down, so a wave starts on the slices the previous
         * one read last, while they are still in L2 */
        const bool rev = KREV && ((w.t / g.ncl) & 1);
        for (int k = w.kb; k < w.ke; ++k, ++it) {
            const int kt = rev ? w.kb + w.ke - 1 - k : k;
            const int s = (int)(it % STAGES);
            mbar_wait(sm.empty(s), (unsigned)((it / STAGES) & 1) ^ 1);
            mbar_expect_tx(sm.full(s), STAGE_BYTES);
            if (MCK) {
                /* B first: k rows [rm * BK / 2, (rm + 1) * BK / 2) of
                 * every box of the slice, to both blocks (tmB's box is
                 * BK / 2 rows; the lower half lands at the box's start,
                 * the upper 1024-byte aligned after it, so the 128-byte
                 * swizzle matches a whole box); then this block's A */
#pragma unroll
                for (int j = 0; j < BN / 64; ++j)
                    tma_load_mc(sm.b(s) + j * B_BOX_BYTES +
                                    rm * (BK / 2) * 128,
                                tb, sm.full(s), n0 + 64 * j,
                                kt * BK + rm * (BK / 2), mask_b);
                tma_load(sm.a(s), ta, sm.full(s), kt * BK, m0);
                continue;
            }
            if (CL_N == 1)
                tma_load(sm.a(s), ta, sm.full(s), kt * BK, m0);
            else /* this block's part of the A rows, to the blocks of
                  * its M tile */
                tma_load_mc(sm.a(s) + rn * A_ROWS_OWN * A_ROW, ta,
                            sm.full(s), kt * BK, m0 + rn * A_ROWS_OWN,
                            mask_a);
#pragma unroll
            for (int jj = 0; jj < B_BOXES_OWN; ++jj) {
                const int j = rm * B_BOXES_OWN + jj;
                if (CL_M == 1)
                    tma_load(sm.b(s) + j * B_BOX_BYTES, tb, sm.full(s),
                             n0 + 64 * j, kt * BK);
                else /* to the blocks of its N tile */
                    tma_load_mc(sm.b(s) + j * B_BOX_BYTES, tb, sm.full(s),
                                n0 + 64 * j, kt * BK, mask_b);
            }
        }
    }
}

/* C[r][c], C[r][c + 1] from two fp32 values as one 4-byte store (N % 8
 * == 0 keeps a pair at c < N in bounds and aligned); nothing past M or N. */
__device__ __forceinline__ void store_pair(elem_t *C, int M, int N, int r,
                                           int c, float x, float y)
{
    if (r < M && c < N) {
        elem2 v;
        v.x = FROM_F32(x);
        v.y = FROM_F32(y);
        *reinterpret_cast<elem2 *>(C + (size_t)r * N + c) = v;
    }
}

/* Row r0 + 16 * warp + lane / 4 (+ 8) and column 8 * i + 2 * (lane % 4)
 * (+ 1) of an m64nBN accumulator (PTX ISA, wgmma .m64nNk16 D fragment). */
__device__ __forceinline__ void store_tile(elem_t *C, int M, int N, int r0,
                                           int n0, const float (&d)[BN / 2],
                                           int tid)
{
    const int row = r0 + 16 * (tid / 32) + (tid % 32) / 4;
    const int col = n0 + 2 * (tid % 4);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        if (row + 8 * h >= M)
            continue;
#pragma unroll
        for (int i = 0; i < BN / 8; ++i)
            store_pair(C, M, N, row + 8 * h, col + 8 * i, d[4 * i + 2 * h],
                       d[4 * i + 2 * h + 1]);
    }
}

/*
 * EPI = 1: the m64 x BN accumulator goes out in 64 x 64 boxes through two
 * 8 KB shared buffers per consumer (128-byte swizzle: 16-byte chunk c of
 * row r at chunk c ^ (r % 8), the layout of tensor map tmC, and free of
 * bank conflicts for the fragment's 8 rows x 4 threads) and TMA stores
 * (clipped at the M and N edges). Thread 0 of the warpgroup issues the
 * store of a box and, before a buffer is rewritten, waits until the store
 * that last read it has (cp.async.bulk.wait_group.read 1: all but the
 * newest group, which used the other buffer). The stores run on while the
 * consumer goes on to the next tile.
 */
/* One 64 x 64 box of C at (r0, c0) from the fragment's pairs: v[2 * c +
 * h] is row 16 * warp + lane / 4 + 8 * h, 16-byte chunk c, bytes 4 *
 * (lane % 4) of it. Buffer nbox & 1 of the consumer; nbox counts on. */
__device__ __forceinline__ void store_box(const smem_map &sm,
                                          const tmap_t *tc, int r0, int c0,
                                          const unsigned (&v)[16], int cw,
                                          int tid, int &nbox)
{
    const int lane = tid % 32;
    const unsigned buf = sm.epi + (cw * 2 + (nbox & 1)) * EPI_BOX_BYTES;
    ++nbox;
    if (EPW) {
        /* EPW = 1: the warp's rows 16 * warp .. + 15 of the box (2 KB at
         * buf + 2048 * warp, 1024-aligned, so the swizzle is the box's),
         * written with stmatrix (x4: the 8 x 8 blocks of chunks c, c + 1,
         * halves 0 and 1 - lanes 8 i .. 8 i + 7 address block i's rows)
         * and stored by the warp's lane 0 as one 64 x 16 box (tmC's box
         * is 16 rows): no named barrier, bulk groups per warp. */
        const int w = tid / 32, rr = lane % 8, jb = lane / 8;
        const unsigned rowa = buf + (16 * w + rr + 8 * (jb & 1)) * 128;
        if (lane == 0)
            bulk_wait_read<1>();
        __syncwarp();
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const unsigned addr = rowa + (((2 * q + (jb >> 1)) ^ rr) << 4);
            asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], "
                         "{%1, %2, %3, %4};\n"
                         ::"r"(addr), "r"(v[4 * q]), "r"(v[4 * q + 1]),
                           "r"(v[4 * q + 2]), "r"(v[4 * q + 3])
                         : "memory");
        }
        fence_async_smem();
        __syncwarp();
        if (lane == 0) {
            tma_store(tc, buf + 2048 * w, c0, r0 + 16 * w);
            bulk_commit();
        }
        return;
    }
    if (tid == 0)
        bulk_wait_read<1>();
    bar_named(1 + cw, 128);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int row = 16 * (tid / 32) + lane / 4 + 8 * h;
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            const unsigned addr = buf + row * 128 + ((c ^ (row & 7)) << 4) +
                                  4 * (lane % 4);
            asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr),
                         "r"(v[2 * c + h])
                         : "memory");
        }
    }
    /* generic-proxy writes, then the async proxy (TMA) reads them */
    fence_async_smem();
    bar_named(1 + cw, 128);
    if (tid == 0) {
        tma_store(tc, buf, c0, r0);
        bulk_commit();
    }
}

__device__ __forceinline__ void store_tile_tma(const smem_map &sm,
                                               const tmap_t *tc, int r0,
                                               int n0,
                                               const float (&d)[BN / 2],
                                               int cw, int tid, int &nbox)
{
#pragma unroll
    for (int j = 0; j < BN / 64; ++j) {
        unsigned v[16];
#pragma unroll
        for (int c = 0; c < 8; ++c)
#pragma unroll
            for (int h = 0; h < 2; ++h)
                v[2 * c + h] = pack2(d[4 * (8 * j + c) + 2 * h],
                                     d[4 * (8 * j + c) + 2 * h + 1]);
        store_box(sm, tc, r0, n0 + 64 * j, v, cw, tid, nbox);
    }
}

/*
 * EPO = 1: a tile's C leaves the accumulators as packed pairs (pk[mi][2 *
 * i + h] = columns 8 * i + 2 * (lane % 4) (+ 1), half h of the fragment)
 * at once, and its boxes go out one per k-slice of the block's next tile,
 * after that slice's wgmmas are issued, so the tensor pipe idles only for
 * the drain and the packing between tiles. Box b = mi * (BN / 64) + j.
 */
#define EPO_BOXES (MI * BN / 64)

__device__ __forceinline__ void store_pending(const smem_map &sm,
                                              const tmap_t *tc, int b,
                                              int r0, int n0,
                                              const unsigned (&pk)[MI][BN / 4],
                                              int cw, int tid, int &nbox)
{
#pragma unroll
    for (int bb = 0; bb < EPO_BOXES; ++bb) {
        if (bb != b)
            continue;
        const int mi = bb / (BN / 64), j = bb % (BN / 64);
        unsigned v[16];
#pragma unroll
        for (int k = 0; k < 16; ++k)
            v[k] = pk[mi][16 * j + k];
        store_box(sm, tc, r0 + mi * 64, n0 + 64 * j, v, cw, tid, nbox);
    }
}

/* Gives stage s back to the producer of every block that writes into it
 * (CL_PEERS: itself and those on its M or N tile): thread c < CLUSTER of
 * the warpgroup arrives on block c's barrier; with CLUSTER = 4 the
 * diagonal block (rank ^ 3) shares no operand and is skipped. */
__device__ __forceinline__ void release(const smem_map &sm, int s, int tid)
{
    if (CLUSTER == 1) {
        if (tid == 0)
            mbar_arrive(sm.empty(s));
    } else if (tid < CLUSTER &&
               (CLUSTER < 4 || tid != (int)(cluster_rank() ^ 3))) {
        mbar_arrive_remote(sm.empty(s), tid);
    }
}

/* Stream-K partials: workspace slot of block x holds its fp32 sums, per
 * consumer warpgroup and m64 block in fragment order, four registers i..
 * i + 3 of thread tid as one float4 at (i / 4) * 128 + tid (coalesced);
 * flag (x, cw) = SK_DONE says that part of slot x is complete. The flags
 * live in the workspace, which holds anything at the first launch (the
 * harness poisons it with 0x7fc0dead): only the writer sets SK_DONE and
 * the owner that takes it sets the flag back to 0, so no launch leaves
 * one behind and each is read by exactly one owner. Publishing is a named
 * barrier of the consumer's 128 threads, then st.release.gpu of the flag
 * by one thread; taking, ld.acquire.gpu by one thread (SK = 3: one a
 * flag), then the barrier (causality runs through bar.sync at CTA scope
 * and release/acquire at GPU scope, as in CUTLASS's generic barrier). A
 * __threadfence on either side cost 1-2 % (bench/notes/hgemm_wgmma.md). */
#define SK_FLAG_BYTES 262144 /* SK = 3: 32 flags a (block, consumer) */
#define SK_DONE 0x5c0ffee5u

/* SK = 3 (see the schedule): flag (x, cw, r) = SK_DONE says that slot x
 * holds the sums range r reduces; reader r sets it back to 0. */
__device__ __forceinline__ unsigned *sk3_flag(void *ws, int x, int cw, int r)
{
    return reinterpret_cast<unsigned *>(ws) + (x * CONSUMERS + cw) * 32 + r;
}

__device__ __forceinline__ float4 *sk_part(void *ws, int x, int cw, int mi)
{
    return reinterpret_cast<float4 *>((char *)ws + SK_FLAG_BYTES) +
           (((size_t)x * CONSUMERS + cw) * MI + mi) * (64 * BN / 4);
}

__device__ __forceinline__ unsigned *sk_flag(void *ws, int x, int cw)
{
    return reinterpret_cast<unsigned *>(ws) + x * CONSUMERS + cw;
}

/*
 * SK = 3: the S ranges of a tile share its reduction. A thread's
 * accumulators are SK3_Q float4 groups (m64 block mi, 8 columns i: q =
 * mi * BN / 8 + i), at q * 128 + tid of its consumer's slot. Each range
 * writes all its groups to its block's slot, raises the flag of each
 * other range at once (one thread a flag), waits for the other ranges'
 * flags the same way (one thread a range, each setting its flag back to
 * 0), then adds up groups [Q r / S, Q (r + 1) / S) of all S slots in range
 * order (the same bits at every launch) and stores them from registers.
 * A thread reads only the words it wrote itself in every slot, so the
 * loop is over its few groups (four at a time) and the S slots, not over
 * all its registers.
 * Every range waits for all others, so the S x tiles clusters must be
 * resident together: the persistent grid (one block a multiprocessor) is.
 */
__device__ __forceinline__ void sk3_reduce(elem_t *C, void *ws, int M, int N,
                                           const sched &g, int t, int row0,
                                           int n0, const float (&acc)[MI][BN / 2],
                                           int cw, int tid)
{
    const int S = g.sl, tiles = g.tiles_m * g.tiles_n;
    const int r = g.cid / tiles, rank = (int)(blockIdx.x % CLUSTER);
    const int q0 = SK3_Q * r / S, q1 = SK3_Q * (r + 1) / S;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
        float4 *p = sk_part(ws, blockIdx.x, cw, mi);
#pragma unroll
        for (int i = 0; i < BN / 8; ++i)
            __stcg(p + i * 128 + tid,
                   make_float4(acc[mi][4 * i], acc[mi][4 * i + 1],
                               acc[mi][4 * i + 2], acc[mi][4 * i + 3]));
    }
    bar_named(1 + cw, 128);
    if (tid < S && tid != r) {
        st_release(sk3_flag(ws, blockIdx.x, cw, tid), SK_DONE);
        unsigned *f = sk3_flag(ws, (tid * tiles + t) * CLUSTER + rank, cw, r);
        while (ld_acquire(f) != SK_DONE)
            ;
        *(volatile unsigned *)f = 0u;
    }
    bar_named(1 + cw, 128);
    const int lane = tid % 32;
    const int row = row0 + 16 * (tid / 32) + lane / 4;
    /* four groups at a time, eight slots' loads in flight each */
    for (int qb = q0; qb < q1; qb += 4) {
        float4 sum[4];
#pragma unroll
        for (int j = 0; j < 4; ++j)
            sum[j] = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 8
        for (int r2 = 0; r2 < S; ++r2) {
            const float4 *p =
                sk_part(ws, (r2 * tiles + t) * CLUSTER + rank, cw, 0) + tid;
#pragma unroll
            for (int j = 0; j < 4; ++j)
                if (qb + j < q1) {
                    const float4 v = __ldcg(p + (qb + j) * 128);
                    sum[j].x += v.x;
                    sum[j].y += v.y;
                    sum[j].z += v.z;
                    sum[j].w += v.w;
                }
        }
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int q = qb + j, mi = q / (BN / 8), i = q % (BN / 8);
            /* fragment: (x, y) at row, columns c, c + 1; (z, w) 8 rows
             * down */
            const int rr = row + mi * 64, c = n0 + 8 * i + 2 * (lane % 4);
            if (q < q1) {
                store_pair(C, M, N, rr, c, sum[j].x, sum[j].y);
                store_pair(C, M, N, rr + 8, c, sum[j].z, sum[j].w);
            }
        }
    }
}

__device__ __forceinline__ void consume(const smem_map &sm, elem_t *C,
                                        const tmap_t *tc, void *ws, int M,
                                        int N, const sched &g, int cw,
                                        int tid)
{
    int nbox = 0; /* EPI = 1: boxes stored so far (buffer nbox & 1) */
    float acc[MI][BN / 2];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int i = 0; i < BN / 2; ++i)
            acc[mi][i] = 0.f;
    unsigned pk[MI][BN / 4]; /* EPO = 1: the previous tile's C, packed */
    int pend = 0, pm0 = 0, pn0 = 0; /* its origin (this consumer's rows) */
    ctr_t it = 0;
    const int cwu = LEAN ? __shfl_sync(0xffffffffu, cw, 0) : cw;
    /* descriptors of stage 0; a stage, an m64 block and a k16 step only
     * add to the start address field in the low word (smem offsets <
     * 2^18: no carry out of it) */
    const u64 da0 = make_desc(sm.a(0) + cwu * MI * 64 * A_ROW, 16,
                              8 * A_ROW, A_SWZ);
    const u64 db0 = make_desc(sm.b(0), BK * 128, 1024);
    const unsigned da_lo = (unsigned)da0, db_lo = (unsigned)db0;
    const u64 da_hi = da0 & ~0xFFFFFFFFull, db_hi = db0 & ~0xFFFFFFFFull;
    item_iter w;
    w.start(g);
    while (w.next(g)) {
        int m0, n0;
        tile_origin(w.t, g.tiles_m, g.tiles_n, g.group_m, m0, n0);
        for (int kt = w.kb; kt < w.ke; ++kt, ++it) {
            const int s = (int)(it % STAGES);
            mbar_wait(sm.full(s), (unsigned)(it / STAGES) & 1);
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
                reg_fence(acc[mi]);
            wg_fence();
            const unsigned so = s * (STAGE_BYTES >> 4);
#pragma unroll
            for (int kk = 0; kk < BK / 16; ++kk) {
                const u64 db = db_hi | (db_lo + so + kk * (16 * 128 >> 4));
#pragma unroll
                for (int mi = 0; mi < MI; ++mi) {
                    const u64 da = da_hi | (da_lo + so +
                                            mi * (64 * A_ROW >> 4) +
                                            kk * (32 >> 4));
                    /* the item's first slice overwrites the accumulators */
                    wgmma_m64k16<BN>(acc[mi], da, db, kt > w.kb || kk > 0);
                }
            }
            wg_commit();
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
                reg_fence(acc[mi]);
            /* keep this slice's wgmma in flight; the previous one is done,
             * so its stage goes back to the producer */
            wg_wait<1>();
            if (kt > w.kb)
                release(sm, (int)((it - 1) % STAGES), tid);
            if (EPO && pend && kt - w.kb < EPO_BOXES)
                store_pending(sm, tc, kt - w.kb, pm0, pn0, pk, cw, tid,
                              nbox);
        }
        wg_wait<0>();
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
            reg_fence(acc[mi]);
        release(sm, (int)((it - 1) % STAGES), tid);
        if (EPO && pend) {
            /* boxes of the previous tile that had no k slice (K < 256) */
#pragma unroll
            for (int b = 0; b < EPO_BOXES; ++b)
                if (b >= w.ke - w.kb)
                    store_pending(sm, tc, b, pm0, pn0, pk, cw, tid, nbox);
            pend = 0;
        }
        const int row0 = m0 + cw * MI * 64;
        if (SK == 3 && g.sl >= 2) {
            /* a cluster's one item (so no tile is pending: the deferred
             * stores' registers are free here) */
            sk3_reduce(C, ws, M, N, g, w.t, row0, n0, acc, cw, tid);
            break;
        }
        if (SK && w.ke < g.ktiles) { /* writer piece: partials, flag */
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) {
                float4 *p = sk_part(ws, blockIdx.x, cw, mi);
#pragma unroll
                for (int i = 0; i < BN / 8; ++i)
                    __stcg(p + i * 128 + tid,
                           make_float4(acc[mi][4 * i], acc[mi][4 * i + 1],
                                       acc[mi][4 * i + 2],
                                       acc[mi][4 * i + 3]));
            }
            bar_named(1 + cw, 128);
            if (tid == 0)
                st_release(sk_flag(ws, blockIdx.x, cw), SK_DONE);
            continue;
        }
        if (SK && w.kb > 0) {
            /* owner piece: add the writers' partials, the lower clusters
             * whose ranges reach into the tile (slices from t0 on), the
             * nearest first */
            const int t0 = (w.t - g.dp_tiles) * g.ktiles;
            for (int c = g.cid - 1;; --c) {
                const int su = (int)((long long)g.sl * c / g.ncl);
                if (su < (int)((long long)g.sl * (c + 1) / g.ncl)) {
                    /* a non-empty range: a writer */
                    const int x = c * CLUSTER + (int)(blockIdx.x % CLUSTER);
                    if (tid == 0) {
                        unsigned *f = sk_flag(ws, x, cw);
                        while (ld_acquire(f) != SK_DONE)
                            ;
                        *(volatile unsigned *)f = 0u;
                    }
                    bar_named(1 + cw, 128);
#pragma unroll
                    for (int mi = 0; mi < MI; ++mi) {
                        const float4 *p = sk_part(ws, x, cw, mi);
#pragma unroll
                        for (int i = 0; i < BN / 8; ++i) {
                            const float4 v = __ldcg(p + i * 128 + tid);
                            acc[mi][4 * i] += v.x;
                            acc[mi][4 * i + 1] += v.y;
                            acc[mi][4 * i + 2] += v.z;
                            acc[mi][4 * i + 3] += v.w;
                        }
                    }
                }
                if (su <= t0)
                    break;
            }
        }
        if (EPO) {
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                for (int i = 0; i < BN / 8; ++i)
#pragma unroll
                    for (int h = 0; h < 2; ++h)
                        pk[mi][2 * i + h] = pack2(acc[mi][4 * i + 2 * h],
                                                  acc[mi][4 * i + 2 * h + 1]);
            pend = 1;
            pm0 = row0;
            pn0 = n0;
            continue;
        }
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
            if (EPI)
                store_tile_tma(sm, tc, row0 + mi * 64, n0, acc[mi], cw, tid,
                               nbox);
            else
                store_tile(C, M, N, row0 + mi * 64, n0, acc[mi], tid);
        }
    }
    if (EPO && pend)
#pragma unroll
        for (int b = 0; b < EPO_BOXES; ++b)
            store_pending(sm, tc, b, pm0, pn0, pk, cw, tid, nbox);
    /* the smem of the last boxes is read before the block exits */
    if (EPI && (EPW ? tid % 32 : tid) == 0)
        bulk_wait<0>();
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
hgemm_wgmma(const elem_t *__restrict__ A, const elem_t *__restrict__ B,
            elem_t *__restrict__ C, int M, int N, int K, void *ws,
            const __grid_constant__ tmap_t tmA,
            const __grid_constant__ tmap_t tmA32,
            const __grid_constant__ tmap_t tmB,
            const __grid_constant__ tmap_t tmC, int group_m)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    smem_map sm;
    sm.base = (smem_u32(smem_raw) + 1023u) & ~1023u; /* swizzle atoms */
    sm.epi = sm.base + STAGES * STAGE_BYTES; /* EPI = 1 boxes, 1024-aligned */
    sm.bars = sm.epi + EPI * CONSUMERS * 2 * EPI_BOX_BYTES;
    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    const sched g = make_sched(M, N, K, group_m);

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sm.full(s), 1);
            mbar_init(sm.empty(s), CONSUMERS * CL_PEERS);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    /* with a pair, the peer's barriers exist before any multicast or
     * remote arrive reaches them */
    if (CLUSTER > 1)
        cluster_sync();
    else
        __syncthreads();

    if (wg == 0) {
        if (SETREG)
            asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (tid == 0)
            produce(sm, BK == 64 ? &tmA : &tmA32, &tmB, g);
    } else {
        if (SETREG)
            asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        consume(sm, C, &tmC, ws, M, N, g, wg - 1, tid);
    }
    /* the peer may multicast into this block or arrive on its barriers
     * until it is done too */
    if (CLUSTER > 1)
        cluster_sync();
}
