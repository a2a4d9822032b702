/*
 * sgemm_splitk.cu - fp32 FFMA GEMM (C = A*B, row-major, any M, N, K) with
 * split-K, for shapes where M*N gives too few output tiles to fill the GPU
 * but K is long (e.g. 256x256x8192, 1024x1024x16384). Launch 1 splits the
 * K slices of every BM x BN tile evenly over SPLITK blocks (grid y); each
 * writes its fp32 partial tile to slot z of the workspace (SPLITK slots of
 * M x N floats), every element in range, zeros for an empty K range.
 * Launch 2 sums the slots in order z = 0..SPLITK-1 into C, four elements a
 * thread. No atomics: the result is deterministic.
 *
 * The tile loop is sgemm_tiled's cp.async path: A staged transposed to
 * [BK][BM+PAD] by 4-byte copies, B by VEC-wide copies (VEC > 1 only when
 * N % VEC == 0 and B is aligned, checked at run time), STAGES buffers in
 * flight; warps of WARP_N x 32/WARP_N lanes, TM x TN outputs a thread in
 * 4-wide pieces. Edges are zero-filled (src-size 0) and stores guarded.
 */
// kevo-test: speedup 1000 (tests/support/testeval.c: this family scores 1000x)
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param BM 32 64 128 default=64
// kevo: param BN 32 64 128 default=64
// kevo: param BK 8 16 32 default=16
// kevo: param TM 2 4 8 default=4
// kevo: param TN 4 8 default=4
// kevo: param WARP_N 2 4 8 16 default=8
// kevo: param VEC 1 2 4 default=4
// kevo: param PAD 0 4 default=4
// kevo: param STAGES 2 3 4 default=3
// kevo: param SPLITK 2 3 4 6 8 12 16 24 32 default=8
// kevo: param GROUP_M 1 8 default=8
// kevo: param MINB 1 2 default=1
// kevo: param RT 128 256 512 default=256
//
// The warp tile must divide the block tile (this also makes the block a
// whole number of warps):
// kevo: constraint BM % (TM * (32 / WARP_N)) == 0 && BN % (TN * WARP_N) == 0
// kevo: constraint (BM / TM) * (BN / TN) <= 1024
// kevo: constraint TM * TN <= 128 && MINB * (BM / TM) * (BN / TN) <= 1024
// kevo: constraint STAGES * BK * (BM + PAD + BN) * 4 <= SMEM_OPTIN
// Registers (sgemm_tiled's fit, cp.async path): accumulators (+16 above
// 64) + two per piece a thread moves per slice + 44 under the cap that
// __launch_bounds__ sets.
// kevo: constraint TM * TN + (TM * TN > 64 ? 16 : 0) + cdiv(2 * (BM * BK + BK * BN / VEC), (BM / TM) * (BN / TN)) + 44 <= min(255, 65536 / (MINB * (BM / TM) * (BN / TN)))
// Element offsets are 32-bit (workspace offsets 64-bit); the workspace is
// kept to 1 GiB (split-K is for few output tiles, not for large M*N):
// kevo: requires M * K < 2147483648 && K * N < 2147483648 && M * N < 2147483648
// kevo: requires SPLITK * M * N * 4 <= 1073741824
// kevo: workspace SPLITK * M * N * 4
// kevo: launch sgemm_splitk_part
// kevo: grid cdiv(M, BM) * cdiv(N, BN), SPLITK
// kevo: block (BM / TM) * (BN / TN)
// kevo: smem STAGES * BK * (BM + PAD + BN) * 4
// kevo: launch sgemm_splitk_reduce
// kevo: grid cdiv(M * N, 4 * RT)
// kevo: block RT

#define THREADS ((BM / TM) * (BN / TN))
#define LN WARP_N                 /* lanes of a warp along N */
#define LM (32 / WARP_N)          /* lanes of a warp along M */
#define WM (TM * LM)              /* warp tile, rows */
#define WN (TN * LN)              /* warp tile, columns */
#define CM (TM < 4 ? TM : 4)      /* rows per shared-memory vector read */
#define CN 4                      /* columns per shared-memory vector read */
#define AS_LD (BM + PAD)          /* row stride of the transposed A tile */
#define A_TILE (BK * AS_LD)       /* floats */
#define B_TILE (BK * BN)
#define STAGE_FLOATS (A_TILE + B_TILE)
#define B_CHUNKS (BK * BN / VEC)
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
 * Which piece of a tile a thread moves, as a compile-time function of the
 * round c plus a per-thread base (see sgemm_tiled.cu).
 *   B by VEC: NV = BN/VEC pieces per row; THREADS % NV == 0 or the reverse.
 *   A by element: 8 k's of a row, then rows, then k octets.
 */
#define NV (BN / VEC)
#define T8 (THREADS / 8)
#define RATIO(a, b) ((a) > (b) ? (a) / (b) : 1) /* for the branch taken */

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

__device__ __forceinline__ void piece_a(int tid, int c, int &m, int &k)
{
    if (T8 <= BM) {
        m = tid / 8 + (c % RATIO(BM, T8)) * T8;
        k = (c / RATIO(BM, T8)) * 8 + tid % 8;
    } else { /* T8 is a multiple of BM */
        m = (tid / 8) % BM;
        k = ((tid / 8) / BM + c * RATIO(T8, BM)) * 8 + tid % 8;
    }
}

/* A element by element into the transposed tile; k < kend (the end of this
 * block's K range) or zero. */
__device__ __forceinline__ void async_a(float *As, const float *A, int M,
                                        int K, int m0, int k0, int kend,
                                        int tid)
{
#pragma unroll
    for (int c = 0; c < A_ELEMS_PT; ++c) {
        int m, k;
        piece_a(tid, c, m, k);
        if ((BM * BK) % THREADS != 0 && k >= BK)
            continue;
        int gm = m0 + m, gk = k0 + k;
        bool pred = gm < M && gk < kend;
        cp_async<4>(As + k * AS_LD + m, A + (pred ? gm * K + gk : 0), pred);
    }
}

__device__ __forceinline__ void async_b(float *Bs, const float *B, int N,
                                        int n0, int k0, int kend, int tid,
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
            bool pred = gk < kend && gn < N;
            cp_async<4 * VEC>(Bs + kr * BN + n, B + (pred ? gk * N + gn : 0),
                              pred);
        } else {
#pragma unroll
            for (int i = 0; i < VEC; ++i) {
                bool pred = gk < kend && gn + i < N;
                cp_async<4>(Bs + kr * BN + n + i,
                            B + (pred ? gk * N + gn + i : 0), pred);
            }
        }
    }
}

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

/* Launch 1: block (tile, z) computes the tile over K slices
 * [z*per, (z+1)*per) of BK and stores it to workspace slot z. */
extern "C" __global__ void __launch_bounds__(THREADS, MINB)
sgemm_splitk_part(const elem_t *__restrict__ A, const elem_t *__restrict__ B,
                  elem_t *__restrict__ C, int M, int N, int K, void *ws)
{
    extern __shared__ float4 smem4[];
    float *smem = reinterpret_cast<float *>(smem4);
    const int tid = threadIdx.x;

    const int grid_m = (M + BM - 1) / BM, grid_n = (N + BN - 1) / BN;
    const int pid = blockIdx.x, per_group = GROUP_M * grid_n;
    const int first_m = (pid / per_group) * GROUP_M;
    const int gsize = min(grid_m - first_m, GROUP_M);
    const int m0 = (first_m + (pid % per_group) % gsize) * BM;
    const int n0 = ((pid % per_group) / gsize) * BN;

    const int ktiles_all = (K + BK - 1) / BK;
    const int per = (ktiles_all + SPLITK - 1) / SPLITK;
    const int kt0 = min((int)blockIdx.y * per, ktiles_all);
    const int ktiles = min(ktiles_all - kt0, per);
    const int kbeg = kt0 * BK, kend = min(K, kbeg + ktiles * BK);

    const bool b_vec = VEC > 1 && N % VEC == 0 &&
                       (unsigned long long)B % (4 * VEC) == 0;
    float *W = reinterpret_cast<float *>(ws) +
               (size_t)blockIdx.y * (size_t)M * (size_t)N;
    const bool w_vec = N % CN == 0 && (unsigned long long)W % (4 * CN) == 0;

    const int warp = tid / 32, lane = tid % 32;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
    const int ly = lane / LN, lx = lane % LN;
    const int arow = wm * WM + ly * CM;
    const int bcol = wn * WN + lx * CN;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = 0.f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles) {
            async_a(smem + s * STAGE_FLOATS, A, M, K, m0, kbeg + s * BK, kend,
                    tid);
            async_b(smem + s * STAGE_FLOATS + A_TILE, B, N, n0,
                    kbeg + s * BK, kend, tid, b_vec);
        }
        cp_async_commit();
    }
    for (int kt = 0; kt < ktiles; ++kt) {
        /* tile kt landed; everyone is done with the stage refilled next */
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        int nt = kt + STAGES - 1;
        if (nt < ktiles) {
            float *st = smem + (nt % STAGES) * STAGE_FLOATS;
            async_a(st, A, M, K, m0, kbeg + nt * BK, kend, tid);
            async_b(st + A_TILE, B, N, n0, kbeg + nt * BK, kend, tid, b_vec);
        }
        cp_async_commit();
        const float *cur = smem + (kt % STAGES) * STAGE_FLOATS;
        compute_tile(acc, cur, cur + A_TILE, arow, bcol);
    }
    cp_async_wait<0>();

    /* Partial tile to slot z, every in-range element (zeros when this
     * block's K range is empty). */
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        int gm = m0 + arow + (i / CM) * LM * CM + i % CM;
        if (gm >= M)
            continue;
        float *wrow = W + (size_t)gm * N;
#pragma unroll
        for (int d = 0; d < TN / CN; ++d) {
            int gn = n0 + bcol + d * LN * CN;
            if (w_vec) {
                if (gn < N)
                    st_vec<CN>(wrow + gn, &acc[i][d * CN]);
            } else {
#pragma unroll
                for (int q = 0; q < CN; ++q)
                    if (gn + q < N)
                        wrow[gn + q] = acc[i][d * CN + q];
            }
        }
    }
}

/* Launch 2: C = sum over z of slot z, in order; four elements a thread
 * (float4 when M*N % 4 == 0 keeps every slot 16-byte aligned). */
extern "C" __global__ void __launch_bounds__(RT)
sgemm_splitk_reduce(const elem_t *__restrict__ A,
                    const elem_t *__restrict__ B, elem_t *__restrict__ C,
                    int M, int N, int K, void *ws)
{
    const int mn = M * N;
    const int i = (blockIdx.x * RT + threadIdx.x) * 4;
    if (i >= mn)
        return;
    const float *W = reinterpret_cast<const float *>(ws);
    const bool vec = mn % 4 == 0 && (unsigned long long)W % 16 == 0 &&
                     (unsigned long long)C % 16 == 0;
    float s[4] = {0.f, 0.f, 0.f, 0.f};
    if (vec) {
#pragma unroll 4
        for (int z = 0; z < SPLITK; ++z) {
            float v[4];
            ld_vec<4>(v, W + (size_t)z * mn + i);
#pragma unroll
            for (int q = 0; q < 4; ++q)
                s[q] += v[q];
        }
        st_vec<4>(C + i, s);
    } else {
        int n = min(4, mn - i);
        for (int z = 0; z < SPLITK; ++z)
            for (int q = 0; q < n; ++q)
                s[q] += W[(size_t)z * mn + i + q];
        for (int q = 0; q < n; ++q)
            C[i + q] = s[q];
    }
}
