/*
 * sgemm_warptile.cu - fp32 FFMA GEMM (C = A*B, row-major, any M, N, K)
 * built for instruction issue, with optional split-K for long K.
 *
 * A block computes a BM x BN tile of C over BK-deep slices. Each warp owns
 * a WM x WN warp tile (WM = TM * 32/LN, WN = TN * LN: lanes form a 32/LN x
 * LN grid); each thread owns TM x TN accumulators as 4x4 pieces strided
 * across the warp tile, so every fragment read is one ld.shared.v4 per 4
 * values and a warp's reads are contiguous (conflict-free, broadcast).
 * A is staged transposed ([BK][BM+PAD], 4-byte cp.async, 8 k's x 4 rows
 * a warp: 32-byte sectors, and PAD=4 makes the transposing writes
 * conflict-free); B as [BK][BN] by 16-byte cp.async (4-byte when N % 4 or
 * the pointer forbids it, checked at run time; then a warp's copies are
 * lane-contiguous columns). STAGES shared-memory stages
 * in flight (cp.async groups); register fragments are double-buffered: the
 * next k-step's fragments (across the slice boundary too: one barrier per
 * slice, placed before the last k-step) load while this k-step's FFMAs
 * issue. Interior blocks with K % BK == 0 run a branch-free loop with no
 * predicates; otherwise a uniform branch per slice picks predicate-free
 * copies where the slice is inside M, N and K and zero-filling ones
 * (src-size 0) elsewhere; the epilogue is masked (scalar stores where C's
 * rows are not 16-byte aligned). ORDER is the source order of the FFMAs,
 * which changes ptxas's register allocation and schedule (the gap to
 * cuBLAS at 4096^3 was measured as dispatch stalls, see bench/results/
 * 2026-11-23-h100-sgemm-*).
 *
 * Split-K: launch 1 has S = gridDim.y blocks per output tile, each over a
 * balanced share of the K slices. S = SPLITK, or with SPLITK=0 (auto) as
 * many as fill SMS * MINB block slots once (1 when the tiles alone fill
 * the GPU). S = 1 writes C directly and the reduce launch is one block
 * that returns at once; S > 1 writes fp32 partial tiles to workspace slots
 * and launch 2 sums slots 0..S-1 in order into C (no atomics: bitwise
 * deterministic). The workspace starts with a 16-byte header holding S.
 *
 * Default point BM=128 BN=128 TM=16 TN=8 LN=8 MINB=2 (SPLITK=0, auto):
 * the one point measured best at every fp32 shape tried, so the search
 * starts there; 25-second bench runs from the old default (BN=256 MINB=1)
 * ended at 0.88x cuBLAS for long K. Measured on the H100 in one worker
 * against cuBLAS (bench/results/2026-11-24-h100-perf-s4/c2-summary.txt),
 * old default -> new: 384x384x262144 0.742x -> 1.063x (split-K auto, 29
 * slices), 4096^3 0.932x -> 0.965x, 6144x2048x3072 0.944x -> 0.981x,
 * 6001x5999x6007 0.906x -> 0.912x.
 *
 * Shape fact BVEC (tpl.h "fact"): N % 4 == 0. A shape whose B rows are
 * not 16-byte aligned (BVEC = 0) runs the scalar-B main loop only, so its
 * build leaves out the two 16-byte ones: NVRTC 1.9x faster at
 * 6001x5999x6007 (bench/results/2026-11-24-s9-compile-facts/), and the
 * default point 0.939x cuBLAS against 0.895x, launch by launch on the H100
 * (bench/results/2026-11-24-h100-s9/c2). An aligned build keeps all three
 * loops: with the dead ones left out (facts K % BK == 0, no edge blocks)
 * the live loop compiled 2.6x faster but ran 4-6 % slower at the default
 * point (0.911-0.930x against 0.969x at 4096^3, 0.999-1.024x against
 * 1.063x at 384x384x262144; ORDER=1, a trap or a cheap fallback for a
 * misaligned B instead of the scalar loop did not bring it back, same
 * call): ptxas schedules the loop differently when it is alone.
 *
 * Launch-only params: GROUP_M reaches the kernel as the int argument
 * group_m (tpl.h "arg") and RT as the reduce launch's blockDim.x, so no
 * code names them and points that differ only in them (and SPLITK) share
 * one compile. One-GPU fp32 4096^3 runs, 200 s, seed 11, on the H100
 * (bench/results/2026-11-24-h100-s10/c2): 771 evaluations/min against 404
 * with both compiled in (1577 of 2611 evaluations reused a binary, against
 * 260 of 1369); the default point launch by launch against cuBLAS 0.966x
 * against 0.967x (c1: interleaved, 0.16-0.23 % slower at three shapes,
 * 0.19 % faster at 6001x5999x6007).
 */
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 64 128 256 default=128
// kevo: param BN 64 128 256 default=128
// kevo: param BK 8 16 32 default=8
// kevo: param TM 4 8 16 default=16
// kevo: param TN 4 8 16 default=8
// kevo: param LN 2 4 8 16 default=8
// kevo: param STAGES 3 4 5 6 default=3
// kevo: param PAD 0 4 default=4
// kevo: param GROUP_M 1 4 8 16 default=8
// kevo: param MINB 1 2 default=2
// kevo: param SPLITK 0 1 2 3 4 6 8 12 16 24 32 48 64 default=0
// kevo: param RT 128 256 512 default=256
// kevo: param ORDER 0 1 2 default=0
// kevo: param ORDERU 0 1 2 default=1
//
// Warp tiles divide the block tile; whole warps; at most 1024 threads:
// kevo: constraint BM % (TM * (32 / LN)) == 0 && BN % (TN * LN) == 0
// kevo: constraint BM * BN / (TM * TN) <= 1024 && MINB * BM * BN / (TM * TN) <= 2048
// A loader: 8 k's x THREADS/8 rows a pass; B loader: float4 pieces split
// evenly (threads per row of B a divisor or a multiple of BN/4):
// kevo: constraint BM % (BM * BN / (TM * TN) / 8) == 0
// kevo: constraint (BK * BN / 4) % (BM * BN / (TM * TN)) == 0
// kevo: constraint (BM * BN / (TM * TN)) % (BN / 4) == 0 || (BN / 4) % (BM * BN / (TM * TN)) == 0
// Registers: accumulators + two fragment buffers + ~40 (addresses, loop)
// under the cap that __launch_bounds__ sets:
// kevo: constraint TM * TN + 2 * (TM + TN) + 40 <= min(255, 65536 / (MINB * BM * BN / (TM * TN)))
// kevo: constraint MINB * (STAGES * BK * (BM + PAD + BN) * 4 + 1024) <= 233472
// kevo: constraint STAGES * BK * (BM + PAD + BN) * 4 <= SMEM_OPTIN
// Element offsets are 32-bit; the split-K workspace is kept to 1 GiB. The
// split count S (the kernel reads it as gridDim.y):
//   SPLITK ? SPLITK : max(1, min(SMS * MINB / tiles, K / (16 * BK)))
// kevo: fact BVEC N % 4 == 0
// kevo: arg group_m GROUP_M
// kevo: requires M * K < 2147483648 && K * N < 2147483648 && M * N < 2147483648
// kevo: requires (SPLITK ? SPLITK : max(1, min(SMS * MINB / (cdiv(M, BM) * cdiv(N, BN)), K / (16 * BK)))) * M * N * 4 <= 1073741824
// kevo: workspace 16 + ((SPLITK ? SPLITK : max(1, min(SMS * MINB / (cdiv(M, BM) * cdiv(N, BN)), K / (16 * BK)))) > 1 ? (SPLITK ? SPLITK : max(1, min(SMS * MINB / (cdiv(M, BM) * cdiv(N, BN)), K / (16 * BK)))) * M * N * 4 : 0)
// kevo: launch sgemm_warptile
// kevo: grid cdiv(M, BM) * cdiv(N, BN), SPLITK ? SPLITK : max(1, min(SMS * MINB / (cdiv(M, BM) * cdiv(N, BN)), K / (16 * BK)))
// kevo: block BM * BN / (TM * TN)
// kevo: smem STAGES * BK * (BM + PAD + BN) * 4
// kevo: launch sgemm_warptile_reduce
// kevo: grid (SPLITK ? SPLITK : max(1, min(SMS * MINB / (cdiv(M, BM) * cdiv(N, BN)), K / (16 * BK)))) > 1 ? cdiv(M * N, 4 * RT) : 1
// kevo: block RT

enum {
    THREADS = BM * BN / (TM * TN),
    LM = 32 / LN,             /* lanes of a warp along M */
    WM = TM * LM,             /* warp tile */
    WN = TN * LN,
    WARPS_N = BN / WN,
    AS_LD = BM + PAD,         /* row stride of the transposed A tile */
    A_TILE = BK * AS_LD,      /* floats */
    B_TILE = BK * BN,
    STAGE_FLOATS = A_TILE + B_TILE,
    /* A loader: thread t moves k = t % 8 (+ 8 q) of rows t / 8 (+ r AR) */
    AR = THREADS / 8,         /* rows a pass */
    RA = BM / AR,             /* passes over the rows */
    KA = BK / 8,              /* k octets */
    /* B loader: float4 pieces, NV a row */
    NV = BN / 4,
    B_PT = BK * BN / 4 / THREADS,
    B_RATIO = NV > THREADS ? NV / THREADS : 1,
    B_ROWS = THREADS >= NV ? THREADS / NV : 1, /* rows a round */
    B_SEG = THREADS >= NV ? NV : THREADS /* pieces of a row segment */
};

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

/* cp.async of BYTES (4 or 16); PRED: zero fill when !pred (src-size 0, no
 * global read). The host branch is a plain copy for the CPU emulator. */
template <int BYTES, bool PRED>
__device__ __forceinline__ void cp_async(float *dst, const float *src,
                                         bool pred)
{
#if defined(__CUDA_ARCH__)
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    if (BYTES == 16) {
        if (PRED)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                         ::"r"(d), "l"(src), "r"(pred ? 16 : 0));
        else
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n"
                         ::"r"(d), "l"(src));
    } else {
        if (PRED)
            asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n"
                         ::"r"(d), "l"(src), "r"(pred ? 4 : 0));
        else
            asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n"
                         ::"r"(d), "l"(src));
    }
#else
    for (int i = 0; i < BYTES / 4; ++i)
        dst[i] = (!PRED || pred) ? src[i] : 0.f;
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

/* Per-thread loader state, computed once. */
struct loader {
    const float *a; /* A at row gm (or A itself past M), column ak */
    const float *b; /* B at row kr0, column gn */
    int a_soff;     /* smem offset of the thread's first A element */
    int b_soff;     /* smem offset of its first B piece */
    int ak;         /* its A column within an octet */
    int gm;         /* its first A row (global) */
    int kr0;        /* its first B row within a slice */
    int gn;         /* its first B column (global) */
    int bq3;        /* 3 x its piece's index in its row segment */
};

/* B piece c of a slice: row kr (relative to kr0), column offset n. */
__device__ __forceinline__ int b_row(int c)
{
    return THREADS >= NV ? c * B_ROWS : c / B_RATIO;
}
__device__ __forceinline__ int b_col(int c)
{
    return THREADS >= NV ? 0 : (c % B_RATIO) * THREADS * 4;
}

/* Issues the cp.asyncs of slice kt into stage st. CHECK: predicate on M,
 * N and K (edge tiles, the last partial slice). BV: 16-byte B copies. */
template <bool BV, bool CHECK>
__device__ __forceinline__ void load_slice(float *st, const loader &L,
                                           int kt, int M, int N, int K)
{
    const int k0 = kt * BK;
    const int krem = K - k0; /* columns of A / rows of B left */
    float *as = st + L.a_soff;
    const float *ag = L.a + k0;
#pragma unroll
    for (int q = 0; q < KA; ++q) {
        bool kok = !CHECK || q * 8 + L.ak < krem;
#pragma unroll
        for (int r = 0; r < RA; ++r) {
            bool p = kok && (!CHECK || L.gm + r * AR < M);
            cp_async<4, CHECK>(as + q * 8 * AS_LD + r * AR,
                               p ? ag + r * AR * K + q * 8 : L.a, p);
        }
    }
    float *bs = st + A_TILE + L.b_soff;
    const float *bg = L.b + (size_t)k0 * N;
#pragma unroll
    for (int c = 0; c < B_PT; ++c) {
        const int kr = b_row(c), nc = b_col(c);
        bool kok = !CHECK || L.kr0 + kr < krem;
        const float *src = bg + kr * N + nc;
        if (BV) { /* N % 4 == 0: a piece is all in or all out */
            bool p = kok && (!CHECK || L.gn + nc < N);
            cp_async<16, CHECK>(bs + kr * BN + nc, p ? src : L.b, p);
        } else {
            /* 4-byte copies of the segment's 4 * B_SEG columns, each
             * instruction B_SEG consecutive ones (lane order), not each
             * thread its own 4: a warp's copy touches one or two 128-byte
             * lines instead of four and writes shared memory without bank
             * conflicts. Column i * B_SEG + q of the segment, q = this
             * piece's index, is i * B_SEG - 3q from the piece's start. */
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int o = i * B_SEG - L.bq3;
                bool p = kok && (!CHECK || L.gn + nc + o < N);
                cp_async<4, CHECK>(bs + kr * BN + nc + o, p ? src + o : L.b,
                                   p);
            }
        }
    }
}

/* Fragments of k-step kk of a stage: TM values of A, TN of B. */
__device__ __forceinline__ void load_frag(float (&a)[TM], float (&b)[TN],
                                          const float *st, int kk,
                                          int arow, int bcol)
{
#pragma unroll
    for (int c = 0; c < TM / 4; ++c)
        ld_vec<4>(&a[c * 4], st + kk * AS_LD + arow + c * LM * 4);
#pragma unroll
    for (int d = 0; d < TN / 4; ++d)
        ld_vec<4>(&b[d * 4], st + A_TILE + kk * BN + bcol + d * LN * 4);
}

/* The TM x TN FFMAs of a k-step. ORD (the source order ptxas starts
 * its scheduling and register allocation from): 0 row by row, 1 rows in
 * serpentine (consecutive FFMAs share an operand at the turns), 2 column
 * by column. ORDER is the order of the 16-byte-B mainloops, ORDERU of the
 * one for B rows that are not 16-byte aligned (N % 4 != 0). Measured on
 * the H100, same worker as cuBLAS (bench/results/2026-11-24-h100-perf-
 * s4b/d1, d2): ORDER=1 gives 6001x5999x6007 0.951-0.953x (LN=4) against
 * 0.88x, but 4096^3 0.933x against 0.968x; ORDERU=1 alone (ORDER=0) gives
 * 6001x5999x6007 only 0.895x against 0.881x (4096^3, 6144x2048x3072 and
 * 384x384x262144 within 0.5 %): ptxas allocates registers over the whole
 * kernel, so the order of the mainloop that does not run still counts. */
template <int ORD>
__device__ __forceinline__ void fma_step(float (&acc)[TM][TN],
                                         const float (&a)[TM],
                                         const float (&b)[TN])
{
    if (ORD == 2) {
#pragma unroll
        for (int j = 0; j < TN; ++j)
#pragma unroll
            for (int i = 0; i < TM; ++i)
                acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    } else {
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int jj = 0; jj < TN; ++jj) {
                const int j = ORD == 1 && (i & 1) ? TN - 1 - jj : jj;
                acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
            }
    }
}

/* Issues slice kt (<= last) into stage st. !CHECK: interior block and
 * K % BK == 0, never a predicate. CHECK: a uniform branch per slice picks
 * the predicate-free copies where the slice is inside M, N and K (interior
 * blocks of odd shapes: every slice but a K tail) and predicated ones
 * elsewhere (edge blocks). */
template <bool BV, bool CHECK>
__device__ __forceinline__ void issue(float *st, const loader &L, int kt,
                                      bool interior, int kfull, int M,
                                      int N, int K)
{
    if (!CHECK || (interior && kt < kfull))
        load_slice<BV, false>(st, L, kt, M, N, K);
    else
        load_slice<BV, true>(st, L, kt, M, N, K);
}

/* Slices [kt_beg, kt_end) (at least one) into acc. One barrier a slice,
 * before its last k-step: the next slice's first fragments load right
 * after it and the last k-step's FFMAs cover their latency. !CHECK: the
 * loop body has no branch (past kt_end the last slice is loaded again,
 * into a stage no one reads). */
template <bool BV, bool CHECK>
__device__ __forceinline__ void mainloop(float (&acc)[TM][TN], float *smem,
                                         const loader &L, int kt_beg,
                                         int kt_end, bool interior, int M,
                                         int N, int K, int arow, int bcol)
{
    const int nt = kt_end - kt_beg, last = kt_end - 1, kfull = K / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (!CHECK || s < nt)
            issue<BV, CHECK>(smem + s * STAGE_FLOATS, L,
                             min(kt_beg + s, last), interior, kfull, M, N,
                             K);
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();
    __syncthreads();

    float a[2][TM], b[2][TN];
    load_frag(a[0], b[0], smem, 0, arow, bcol);
    int rd = 0, wr = STAGES - 1, ld = kt_beg + STAGES - 1;
    for (int t = 0; t < nt; ++t) {
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            if (kk == BK - 1) {
                /* slice t+1 landed; all warps are past slice t-1, whose
                 * stage (wr) is refilled now */
                cp_async_wait<STAGES - 3>();
                __syncthreads();
                rd = rd + 1 == STAGES ? 0 : rd + 1;
                load_frag(a[(kk + 1) & 1], b[(kk + 1) & 1],
                          smem + rd * STAGE_FLOATS, 0, arow, bcol);
                if (!CHECK || ld <= last)
                    issue<BV, CHECK>(smem + wr * STAGE_FLOATS, L,
                                     min(ld, last), interior, kfull, M, N,
                                     K);
                cp_async_commit();
                ++ld;
                wr = wr + 1 == STAGES ? 0 : wr + 1;
            } else {
                load_frag(a[(kk + 1) & 1], b[(kk + 1) & 1],
                          smem + rd * STAGE_FLOATS, kk + 1, arow, bcol);
            }
            fma_step<BV ? ORDER : ORDERU>(acc, a[kk & 1], b[kk & 1]);
        }
    }
    cp_async_wait<0>();
}

extern "C" __global__ void __launch_bounds__(THREADS, MINB)
sgemm_warptile(const elem_t *__restrict__ A, const elem_t *__restrict__ B,
               elem_t *__restrict__ C, int M, int N, int K, void *ws,
               int group_m)
{
    extern __shared__ float4 smem4[];
    float *smem = reinterpret_cast<float *>(smem4);
    const int tid = threadIdx.x;

    /* Block swizzle: group_m (GROUP_M, an int argument, so its values
     * share one compile) block rows sweep a column band together. */
    const int grid_m = (M + BM - 1) / BM, grid_n = (N + BN - 1) / BN;
    const int pid = blockIdx.x, per_group = group_m * grid_n;
    const int first_m = (pid / per_group) * group_m;
    const int gsize = min(grid_m - first_m, group_m);
    const int m0 = (first_m + (pid % per_group) % gsize) * BM;
    const int n0 = ((pid % per_group) / gsize) * BN;

    /* This block's share of the K slices (balanced). */
    const int S = gridDim.y, z = blockIdx.y;
    const int ktiles = (K + BK - 1) / BK;
    const int per = ktiles / S, extra = ktiles % S;
    const int kt_beg = z * per + min(z, extra);
    const int kt_end = kt_beg + per + (z < extra);

    const bool interior = m0 + BM <= M && n0 + BN <= N;
    const bool b_vec =
        BVEC && N % 4 == 0 && (unsigned long long)B % 16 == 0;

    loader L;
    {
        const int ar = tid / 8;
        L.ak = tid % 8;
        L.a_soff = L.ak * AS_LD + ar;
        L.gm = m0 + ar;
        L.a = L.gm < M ? A + L.gm * K + L.ak : A;
        L.kr0 = THREADS >= NV ? tid / NV : 0;
        const int n = THREADS >= NV ? (tid % NV) * 4 : tid * 4;
        L.b_soff = L.kr0 * BN + n;
        L.gn = n0 + n;
        L.bq3 = 3 * (n / 4);
        L.b = B + L.kr0 * N + L.gn;
    }

    const int warp = tid / 32, lane = tid % 32;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;
    const int ly = lane / LN, lx = lane % LN;
    const int arow = wm * WM + ly * 4; /* first row of piece 0 in tile */
    const int bcol = wn * WN + lx * 4; /* first column of piece 0 */

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.f;

    if (kt_end > kt_beg) {
        if (!b_vec)
            mainloop<false, true>(acc, smem, L, kt_beg, kt_end, interior, M,
                                  N, K, arow, bcol);
        else if (interior && K % BK == 0)
            mainloop<true, false>(acc, smem, L, kt_beg, kt_end, interior, M,
                                  N, K, arow, bcol);
        else
            mainloop<true, true>(acc, smem, L, kt_beg, kt_end, interior, M,
                                 N, K, arow, bcol);
    }

    /* Output: C itself, or this split's workspace slot. */
    float *out = C;
    if (S > 1)
        out = reinterpret_cast<float *>(reinterpret_cast<char *>(ws) + 16) +
              (size_t)z * (size_t)M * (size_t)N;
    if (blockIdx.x == 0 && z == 0 && tid == 0)
        *reinterpret_cast<int *>(ws) = S;
    const bool o_vec = N % 4 == 0 && (unsigned long long)out % 16 == 0;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        int gm = m0 + arow + (i / 4) * LM * 4 + i % 4;
        if (gm >= M)
            continue;
        float *orow = out + (size_t)gm * N;
#pragma unroll
        for (int d = 0; d < TN / 4; ++d) {
            int gn = n0 + bcol + d * LN * 4;
            if (o_vec) {
                if (gn < N)
                    st_vec<4>(orow + gn, &acc[i][d * 4]);
            } else {
#pragma unroll
                for (int q = 0; q < 4; ++q)
                    if (gn + q < N)
                        orow[gn + q] = acc[i][d * 4 + q];
            }
        }
    }
}

/* Launch 2: C = sum of slots 0..S-1 in order, four elements a thread
 * (float4 when M*N % 4 == 0 keeps every slot 16-byte aligned). S = 1:
 * launch 1 wrote C; this is one block that returns. */
extern "C" __global__ void __launch_bounds__(512)
sgemm_warptile_reduce(const elem_t *__restrict__ A,
                      const elem_t *__restrict__ B, elem_t *__restrict__ C,
                      int M, int N, int K, void *ws)
{
    const int S = *reinterpret_cast<const int *>(ws);
    if (S <= 1)
        return;
    const long long mn = (long long)M * N;
    const long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (i >= mn)
        return;
    const float *W =
        reinterpret_cast<const float *>(reinterpret_cast<const char *>(ws) +
                                        16);
    const bool vec = mn % 4 == 0 && (unsigned long long)C % 16 == 0;
    float s[4] = {0.f, 0.f, 0.f, 0.f};
    const float *p = W + i;
    if (vec) {
#pragma unroll 4
        for (int z = 0; z < S; ++z, p += mn) {
            float v[4];
            ld_vec<4>(v, p);
#pragma unroll
            for (int q = 0; q < 4; ++q)
                s[q] += v[q];
        }
        st_vec<4>(C + i, s);
    } else {
        const int n = (int)min(4LL, mn - i);
        for (int z = 0; z < S; ++z, p += mn)
#pragma unroll
            for (int q = 0; q < 4; ++q)
                if (q < n)
                    s[q] += p[q];
#pragma unroll
        for (int q = 0; q < 4; ++q)
            if (q < n)
                C[i + q] = s[q];
    }
}
