/*
 * sgemm_tiled.cu - fp32 FFMA GEMM (C = A*B, row-major, any M, N, K) in the
 * siboehm kernel-10 / CUTLASS SIMT style. A block computes a BM x BN tile of
 * C over BK-deep slices staged in shared memory, A transposed to [BK][BM+PAD]
 * so a thread reads its rows as float4s. Each warp owns a WM x WN tile
 * (WARP_N lanes along N); each thread owns TM x TN outputs in 4-wide pieces
 * strided across the warp tile, so shared-memory reads are conflict-free.
 * Staging: ASYNC=0 goes through registers (STAGES 1: one buffer; 2: register
 * prefetch + double buffer), ASYNC=1 uses cp.async with STAGES buffers. Edges
 * are zero-filled and stores predicated; VEC-wide global loads are used only
 * when pointer and leading dimension allow (checked at run time). GROUP_M
 * orders blocks in column groups for L2 reuse. Not: tensor cores, split-K.
 */
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 128 256 default=128
// kevo: param BN 32 64 128 256 default=128
// kevo: param BK 8 16 32 default=16
// kevo: param TM 2 4 8 16 default=8
// kevo: param TN 2 4 8 16 default=8
// kevo: param WARP_N 1 2 4 8 16 32 default=8
// kevo: param VEC 1 2 4 default=4
// kevo: param PAD 0 4 default=4
// kevo: param ASYNC 0 1 default=1
// kevo: param STAGES 1 2 3 4 default=2
// kevo: param GROUP_M 1 4 8 16 default=8
// kevo: param MINB 1 2 default=2
// kevo: arg group_m GROUP_M
//
// The warp tile must divide the block tile (this also makes the block a
// whole number of warps):
// kevo: constraint BM % (TM * (32 / WARP_N)) == 0 && BN % (TN * WARP_N) == 0
// kevo: constraint (BM / TM) * (BN / TN) <= 1024
// At most 128 accumulators, and a register cap of at least 64 (below that
// every sampled point spilled):
// kevo: constraint TM * TN <= 128 && MINB * (BM / TM) * (BN / TN) <= 1024
// ASYNC=0 has 1 (single) or 2 (prefetch) buffers; cp.async needs >= 2:
// kevo: constraint ASYNC ? STAGES >= 2 : STAGES <= 2
// kevo: constraint STAGES * BK * (BM + PAD + BN) * 4 <= SMEM_OPTIN
// Registers: accumulators (+16 above 64 of them) + half the register-
// prefetch values + two per piece a thread moves per slice (addresses,
// predicates) + 44 must fit the cap that __launch_bounds__ sets. Fitted to
// ptxas on ~430 sampled points: it admits none that spilled and 80% of
// those that did not.
// kevo: constraint TM * TN + (TM * TN > 64 ? 16 : 0) + (ASYNC ? 0 : cdiv((STAGES - 1) * BK * (BM + BN), 2 * (BM / TM) * (BN / TN))) + cdiv(2 * (ASYNC ? BM * BK + BK * BN / VEC : (BM + BN) * BK / VEC), (BM / TM) * (BN / TN)) + 44 <= min(255, 65536 / (MINB * (BM / TM) * (BN / TN)))
// Element offsets are 32-bit (gemm's check_shape keeps each matrix below
// 2^31 elements anyway):
// kevo: requires M * K < 2147483648 && K * N < 2147483648 && M * N < 2147483648
// kevo: launch sgemm_tiled
// kevo: grid cdiv(M, BM) * cdiv(N, BN)
// kevo: block (BM / TM) * (BN / TN)
// kevo: smem STAGES * BK * (BM + PAD + BN) * 4

#define THREADS ((BM / TM) * (BN / TN))
#define LN WARP_N                 /* lanes of a warp along N */
#define LM (32 / WARP_N)          /* lanes of a warp along M */
#define WM (TM * LM)              /* warp tile, rows */
#define WN (TN * LN)              /* warp tile, columns */
#define CM (TM < 4 ? TM : 4)      /* rows per shared-memory vector read */
#define CN (TN < 4 ? TN : 4)      /* columns per shared-memory vector read */
#define AS_LD (BM + PAD)          /* row stride of the transposed A tile */
#define A_TILE (BK * AS_LD)       /* floats */
#define B_TILE (BK * BN)
#define STAGE_FLOATS (A_TILE + B_TILE)

/* VEC-wide pieces of a tile and how many each thread moves (the last
 * round may be partial; guarded by idx < *_CHUNKS). */
#define A_CHUNKS (BM * BK / VEC)
#define B_CHUNKS (BK * BN / VEC)
#define A_PT ((A_CHUNKS + THREADS - 1) / THREADS)
#define B_PT ((B_CHUNKS + THREADS - 1) / THREADS)
#define A_ELEMS_PT ((BM * BK + THREADS - 1) / THREADS)

template <int N> struct alignas(4 * N) fvec {
    float v[N];
};

template <int N>
__device__ __forceinline__ void ld_vec(float *dst, const float *src)
{
    fvec<N> t = *reinterpret_cast<const fvec<N> *>(src);
#pragma unroll
    for (int i = 0; i < N; ++i)
        dst[i] = t.v[i];
}

template <int N>
__device__ __forceinline__ void st_vec(float *dst, const float *src)
{
    fvec<N> t;
#pragma unroll
    for (int i = 0; i < N; ++i)
        t.v[i] = src[i];
    *reinterpret_cast<fvec<N> *>(dst) = t;
}

/* cp.async of BYTES (4, 8, 16) with zero fill when !pred (src-size 0: no
 * global read). The host branch is a plain copy for CPU emulation. */
template <int BYTES>
__device__ __forceinline__ void cp_async(float *dst, const float *src,
                                         bool pred)
{
#if defined(__CUDA_ARCH__)
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    int n = pred ? BYTES : 0;
    if (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                     ::"r"(d), "l"(src), "r"(n));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n"
                     ::"r"(d), "l"(src), "n"(BYTES), "r"(n));
#else
    for (int i = 0; i < BYTES / 4; ++i)
        dst[i] = pred ? src[i] : 0.f;
#endif
}

__device__ __forceinline__ void cp_async_commit(void)
{
#if defined(__CUDA_ARCH__)
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

template <int N> __device__ __forceinline__ void cp_async_wait(void)
{
#if defined(__CUDA_ARCH__)
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

/*
 * Which piece of a tile a thread moves. Every split is a compile-time
 * function of the round c plus a per-thread base (tid < THREADS is not
 * something the compiler knows, so "(tid + c*THREADS) % X" would be
 * computed and kept per round: measured as spills at BK=32).
 *   A by VEC (ASYNC=0): KV = BK/VEC pieces per row, THREADS % KV == 0.
 *   B by VEC: NV = BN/VEC pieces per row; THREADS % NV == 0 or the reverse.
 *   A by element (ASYNC=1): 8 k's of a row, then rows, then k octets.
 */
#define KV (BK / VEC)
#define NV (BN / VEC)
#define T8 (THREADS / 8)
#define RATIO(a, b) ((a) > (b) ? (a) / (b) : 1) /* for the branch taken */

__device__ __forceinline__ void piece_a_vec(int tid, int c, int &m, int &k)
{
    m = tid / KV + c * (THREADS / KV);
    k = (tid % KV) * VEC;
}

__device__ __forceinline__ void piece_b(int tid, int c, int &k, int &n)
{
    if (THREADS % NV == 0) {
        k = tid / NV + c * (THREADS / NV);
        n = (tid % NV) * VEC;
    } else { /* NV is a multiple of THREADS */
        k = c / RATIO(NV, THREADS);
        n = (tid + (c % RATIO(NV, THREADS)) * THREADS) * VEC;
    }
}

__device__ __forceinline__ void piece_a_elem(int tid, int c, int &m, int &k)
{
    if (T8 <= BM) {
        m = tid / 8 + (c % RATIO(BM, T8)) * T8;
        k = (c / RATIO(BM, T8)) * 8 + tid % 8;
    } else { /* T8 is a multiple of BM */
        m = (tid / 8) % BM;
        k = ((tid / 8) / BM + c * RATIO(T8, BM)) * 8 + tid % 8;
    }
}

/* ---- ASYNC=0: global -> registers -> shared (A transposed) ---- */

__device__ __forceinline__ void gload_a(float (&ra)[A_PT][VEC],
                                        const float *A, int M, int K,
                                        int m0, int k0, int tid, bool vec)
{
#pragma unroll
    for (int c = 0; c < A_PT; ++c) {
        int m, kk;
        piece_a_vec(tid, c, m, kk);
        int gm = m0 + m, gk = k0 + kk;
        bool in = (A_CHUNKS % THREADS == 0 || m < BM) && gm < M;
        const float *p = A + (in ? gm * K + gk : 0);
        if (VEC > 1 && vec) {
            if (in && gk < K)
                ld_vec<VEC>(ra[c], p);
            else
#pragma unroll
                for (int i = 0; i < VEC; ++i)
                    ra[c][i] = 0.f;
        } else {
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                ra[c][i] = (in && gk + i < K) ? p[i] : 0.f;
        }
    }
}

__device__ __forceinline__ void sstore_a(float *As,
                                         const float (&ra)[A_PT][VEC],
                                         int tid)
{
#pragma unroll
    for (int c = 0; c < A_PT; ++c) {
        int m, kk;
        piece_a_vec(tid, c, m, kk);
        if (A_CHUNKS % THREADS == 0 || m < BM) {
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                As[(kk + i) * AS_LD + m] = ra[c][i];
        }
    }
}

__device__ __forceinline__ void gload_b(float (&rb)[B_PT][VEC],
                                        const float *B, int N, int K,
                                        int n0, int k0, int tid, bool vec)
{
#pragma unroll
    for (int c = 0; c < B_PT; ++c) {
        int kr, n;
        piece_b(tid, c, kr, n);
        int gk = k0 + kr, gn = n0 + n;
        bool in = (B_CHUNKS % THREADS == 0 || kr < BK) && gk < K;
        const float *p = B + (in ? gk * N + gn : 0);
        if (VEC > 1 && vec) {
            if (in && gn < N)
                ld_vec<VEC>(rb[c], p);
            else
#pragma unroll
                for (int i = 0; i < VEC; ++i)
                    rb[c][i] = 0.f;
        } else {
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                rb[c][i] = (in && gn + i < N) ? p[i] : 0.f;
        }
    }
}

__device__ __forceinline__ void sstore_b(float *Bs,
                                         const float (&rb)[B_PT][VEC],
                                         int tid)
{
#pragma unroll
    for (int c = 0; c < B_PT; ++c) {
        int kr, n;
        piece_b(tid, c, kr, n);
        if (B_CHUNKS % THREADS == 0 || kr < BK)
            st_vec<VEC>(Bs + kr * BN + n, rb[c]);
    }
}

/* ---- ASYNC=1: cp.async straight into shared memory ---- */

/* A element by element (4-byte copies can transpose). A warp covers 8 k's
 * of 4 rows: 32-byte global sectors, and with PAD=4 the banks 4k+m are
 * distinct. */
__device__ __forceinline__ void async_a(float *As, const float *A, int M,
                                        int K, int m0, int k0, int tid)
{
#pragma unroll
    for (int c = 0; c < A_ELEMS_PT; ++c) {
        int m, k;
        piece_a_elem(tid, c, m, k);
        if ((BM * BK) % THREADS != 0 && k >= BK)
            continue;
        int gm = m0 + m, gk = k0 + k;
        bool pred = gm < M && gk < K;
        cp_async<4>(As + k * AS_LD + m, A + (pred ? gm * K + gk : 0), pred);
    }
}

__device__ __forceinline__ void async_b(float *Bs, const float *B, int N,
                                        int K, int n0, int k0, int tid,
                                        bool vec)
{
#pragma unroll
    for (int c = 0; c < B_PT; ++c) {
        int kr, n;
        piece_b(tid, c, kr, n);
        if (B_CHUNKS % THREADS != 0 && kr >= BK)
            continue;
        int gk = k0 + kr, gn = n0 + n;
        if (VEC > 1 && vec) {
            bool pred = gk < K && gn < N;
            cp_async<4 * VEC>(Bs + kr * BN + n, B + (pred ? gk * N + gn : 0),
                              pred);
        } else {
#pragma unroll
            for (int i = 0; i < VEC; ++i) {
                bool pred = gk < K && gn + i < N;
                cp_async<4>(Bs + kr * BN + n + i,
                            B + (pred ? gk * N + gn + i : 0), pred);
            }
        }
    }
}

/* ---- the FFMA inner loop over one staged BK slice ---- */

__device__ __forceinline__ void compute_tile(float (&acc)[TM][TN],
                                             const float *As, const float *Bs,
                                             int arow, int bcol)
{
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
        float a[TM], b[TN];
#pragma unroll
        for (int c = 0; c < TM / CM; ++c)
            ld_vec<CM>(&a[c * CM], As + kk * AS_LD + arow + c * LM * CM);
#pragma unroll
        for (int d = 0; d < TN / CN; ++d)
            ld_vec<CN>(&b[d * CN], Bs + kk * BN + bcol + d * LN * CN);
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j)
                acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, MINB)
sgemm_tiled(const elem_t *__restrict__ A, const elem_t *__restrict__ B,
            elem_t *__restrict__ C, int M, int N, int K, void *ws,
            int group_m)
{
    extern __shared__ float4 smem4[];
    float *smem = reinterpret_cast<float *>(smem4);
    const int tid = threadIdx.x;

    /* Block swizzle: group_m (GROUP_M, an int argument: its values share
     * one compile) block rows sweep a column band together. */
    const int grid_m = (M + BM - 1) / BM, grid_n = (N + BN - 1) / BN;
    const int pid = blockIdx.x, per_group = group_m * grid_n;
    const int first_m = (pid / per_group) * group_m;
    const int gsize = min(grid_m - first_m, group_m);
    const int m0 = (first_m + (pid % per_group) % gsize) * BM;
    const int n0 = ((pid % per_group) / gsize) * BN;

    /* Vector loads/stores only where every row start is aligned. */
    const bool a_vec = VEC > 1 && K % VEC == 0 &&
                       (unsigned long long)A % (4 * VEC) == 0;
    const bool b_vec = VEC > 1 && N % VEC == 0 &&
                       (unsigned long long)B % (4 * VEC) == 0;
    const bool c_vec = CN > 1 && N % CN == 0 &&
                       (unsigned long long)C % (4 * CN) == 0;

    const int warp = tid / 32, lane = tid % 32;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
    const int ly = lane / LN, lx = lane % LN;
    const int arow = wm * WM + ly * CM; /* first row of piece 0 in tile */
    const int bcol = wn * WN + lx * CN; /* first column of piece 0 */

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.f;

    const int ktiles = (K + BK - 1) / BK;
    if (ASYNC) {
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < ktiles) {
                async_a(smem + s * STAGE_FLOATS, A, M, K, m0, s * BK, tid);
                async_b(smem + s * STAGE_FLOATS + A_TILE, B, N, K, n0,
                        s * BK, tid, b_vec);
            }
            cp_async_commit();
        }
        for (int kt = 0; kt < ktiles; ++kt) {
            /* tile kt landed; everyone is done with the stage refilled next */
            cp_async_wait<(STAGES >= 2 ? STAGES - 2 : 0)>();
            __syncthreads();
            int nt = kt + STAGES - 1;
            if (nt < ktiles) {
                float *st = smem + (nt % STAGES) * STAGE_FLOATS;
                async_a(st, A, M, K, m0, nt * BK, tid);
                async_b(st + A_TILE, B, N, K, n0, nt * BK, tid, b_vec);
            }
            cp_async_commit();
            const float *cur = smem + (kt % STAGES) * STAGE_FLOATS;
            compute_tile(acc, cur, cur + A_TILE, arow, bcol);
        }
    } else {
        float ra[A_PT][VEC], rb[B_PT][VEC];
        if (STAGES == 1) {
            for (int kt = 0; kt < ktiles; ++kt) {
                gload_a(ra, A, M, K, m0, kt * BK, tid, a_vec);
                gload_b(rb, B, N, K, n0, kt * BK, tid, b_vec);
                sstore_a(smem, ra, tid);
                sstore_b(smem + A_TILE, rb, tid);
                __syncthreads();
                compute_tile(acc, smem, smem + A_TILE, arow, bcol);
                __syncthreads();
            }
        } else {
            /* the next slice's loads are in flight during this compute */
            if (ktiles > 0) {
                gload_a(ra, A, M, K, m0, 0, tid, a_vec);
                gload_b(rb, B, N, K, n0, 0, tid, b_vec);
                sstore_a(smem, ra, tid);
                sstore_b(smem + A_TILE, rb, tid);
            }
            __syncthreads();
            for (int kt = 0; kt < ktiles; ++kt) {
                bool more = kt + 1 < ktiles;
                if (more) {
                    gload_a(ra, A, M, K, m0, (kt + 1) * BK, tid, a_vec);
                    gload_b(rb, B, N, K, n0, (kt + 1) * BK, tid, b_vec);
                }
                const float *cur = smem + (kt & 1) * STAGE_FLOATS;
                compute_tile(acc, cur, cur + A_TILE, arow, bcol);
                if (more) {
                    float *nxt = smem + ((kt + 1) & 1) * STAGE_FLOATS;
                    sstore_a(nxt, ra, tid);
                    sstore_b(nxt + A_TILE, rb, tid);
                }
                __syncthreads();
            }
        }
    }

    /* Epilogue: piece (c, d) of the thread's tile; predicated on M, N. */
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        int gm = m0 + arow + (i / CM) * LM * CM + i % CM;
        if (gm >= M)
            continue;
        float *crow = C + gm * N;
#pragma unroll
        for (int d = 0; d < TN / CN; ++d) {
            int gn = n0 + bcol + d * LN * CN;
            if (c_vec) {
                if (gn < N)
                    st_vec<CN>(crow + gn, &acc[i][d * CN]);
            } else {
#pragma unroll
                for (int q = 0; q < CN; ++q)
                    if (gn + q < N)
                        crow[gn + q] = acc[i][d * CN + q];
            }
        }
    }
}
