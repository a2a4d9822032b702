// kevo: llm_4115a691 TILE=32 KCH=32 KWARPS=4 PREFETCH=0 dtype=fp32
typedef float elem_t;
#define TO_F32(x) (x)
#define FROM_F32(x) (x)
#define TILE 32
#define KCH 32
#define KWARPS 4
#define PREFETCH 0
#line 1 "llm_4115a691.cu"
// kevo: problem tril_matmul
// kevo: dtypes fp32
// kevo: param TILE 16 32 default=32
// kevo: param KCH 16 32 default=16
// kevo: param KWARPS 1 2 4 8 16 default=4
// kevo: param PREFETCH 0 1 default=1
// kevo: constraint (1 + PREFETCH) * (KCH / 4) * (2 * (TILE / 16) + TILE / 8) + 8 * (TILE / 16) * (TILE / 8) <= 160
// kevo: constraint KWARPS * 32 * ((1 + PREFETCH) * (KCH / 4) * (2 * (TILE / 16) + TILE / 8) + 8 * (TILE / 16) * (TILE / 8) + 64) <= 65536
// kevo: constraint KWARPS * TILE * TILE * 4 <= SMEM_OPTIN
// kevo: launch tril_tf32x3_regdirect
// kevo: grid cdiv(N, TILE) * cdiv(N, TILE)
// kevo: block KWARPS * 32
// kevo: smem KWARPS * TILE * TILE * 4

/*
 * out = tril(A @ B), A and B lower triangular (get_inputs()).
 * blockIdx.x <  nb(nb+1)/2 : lower tile (bi >= bj), heaviest first; warps split its K range
 * blockIdx.x >= nb(nb+1)/2 : strictly upper tile -> zeros
 * Warp tile = CTA tile = TILE x TILE = (16*MI) x (8*NI).
 * Lane (g = lane/4, t = lane%4), chunk base kb, value v < KV:
 *   physical k      = kb + 16*(v/4) + 4*t + (v%4)   (same map for A and B)
 *   mma k-step s    : slot t <- v = 2s, slot t+4 <- v = 2s+1
 *   physical column of (n-tile ni, fragment column c) = j0 + c*NI + ni
 */

#define MI (TILE / 16)
#define NI (TILE / 8)
#define NT (KWARPS * 32)
#define KV (KCH / 4)
#define KQ (KCH / 16)

__device__ __forceinline__ void split_tf32(float v, unsigned &hi, unsigned &lo)
{
    const unsigned h = (__float_as_uint(v) + 0x1000u) & 0xffffe000u; /* round to tf32 */
    const float r = v - __uint_as_float(h);                           /* exact residual */
    hi = h;
    lo = (__float_as_uint(r) + 0x1000u) & 0xffffe000u;
}

__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* largest e with e*(e+1)/2 <= L */
__device__ __forceinline__ int tri_root(int L)
{
    int e = (int)((sqrtf(8.f * (float)L + 1.f) - 1.f) * 0.5f);
    if (e < 0) e = 0;
    while (e > 0 && e * (e + 1) / 2 > L) --e;
    while ((e + 1) * (e + 2) / 2 <= L) ++e;
    return e;
}

extern "C" __global__ void __launch_bounds__(NT)
tril_tf32x3_regdirect(const elem_t *__restrict__ A, const elem_t *__restrict__ B,
                      elem_t *__restrict__ out, int N, void *ws)
{
    extern __shared__ __align__(16) float red[]; /* [KWARPS][TILE][TILE] */

    const int tid = threadIdx.x;
    const int ntile = (N + TILE - 1) / TILE;
    const int nlow = ntile * (ntile + 1) / 2;
    const int L = blockIdx.x;
    const bool vec = (N & 3) == 0 &&
                     ((reinterpret_cast<unsigned long long>(A) | reinterpret_cast<unsigned long long>(B) |
                       reinterpret_cast<unsigned long long>(out)) & 15ull) == 0;

    if (L >= nlow) {
        /* ---------------- strictly upper tile: zeros ---------------- */
        const int U = L - nlow;
        const int e = tri_root(U);
        const int pos = U - e * (e + 1) / 2;
        const int d = ntile - 1 - e; /* bj - bi >= 1 */
        const int i0 = pos * TILE, j0 = (pos + d) * TILE;
        if (vec) {
            constexpr int C4 = TILE / 4;
            for (int q = tid; q < TILE * C4; q += NT) {
                const int r = q / C4, c = (q % C4) * 4;
                const int gi = i0 + r, gj = j0 + c;
                if (gi < N && gj < N)
                    *reinterpret_cast<float4 *>(out + ((long long)gi * N + gj)) = make_float4(0.f, 0.f, 0.f, 0.f);
            }
        } else {
            for (int q = tid; q < TILE * TILE; q += NT) {
                const int r = q / TILE, c = q % TILE;
                const int gi = i0 + r, gj = j0 + c;
                if (gi < N && gj < N) out[(long long)gi * N + gj] = FROM_F32(0.f);
            }
        }
        return;
    }

    /* ---------------- lower tile, heaviest first ---------------- */
    const int e = tri_root(L);
    const int pos = L - e * (e + 1) / 2;
    const int d = ntile - 1 - e; /* bi - bj */
    const int bj = pos, bi = pos + d;
    const int i0 = bi * TILE, j0 = bj * TILE;
    const int kbeg = j0;                /* B[k][j] == 0 for k < j */
    const int kend = min(N, i0 + TILE); /* A[i][k] == 0 for k > i */
    const int nch = (kend - kbeg + KCH - 1) / KCH;

    const int lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const bool full = vec && i0 + TILE <= N && j0 + TILE <= N;

    const float *pa[MI][2];
    bool va[MI][2];
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = i0 + i * 16 + g + 8 * h;
            va[i][h] = row < N;
            pa[i][h] = A + (long long)(row < N ? row : 0) * N;
        }
    const int ncol = j0 + g * NI; /* this lane's NI contiguous physical columns */

    auto load_chunk = [&](int c, float (&ra)[MI][2][KV], float (&rb)[KV][NI]) {
        const int kb = kbeg + c * KCH;
        if (full && kb + KCH <= kend) {
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int h = 0; h < 2; ++h)
#pragma unroll
                    for (int q = 0; q < KQ; ++q) {
                        const float4 v = __ldg(reinterpret_cast<const float4 *>(pa[i][h] + kb + 16 * q + 4 * t));
                        ra[i][h][4 * q + 0] = v.x;
                        ra[i][h][4 * q + 1] = v.y;
                        ra[i][h][4 * q + 2] = v.z;
                        ra[i][h][4 * q + 3] = v.w;
                    }
#pragma unroll
            for (int v = 0; v < KV; ++v) {
                const int k = kb + 16 * (v >> 2) + 4 * t + (v & 3);
                const float *p = B + ((long long)k * N + ncol);
#if NI == 4
                const float4 x = __ldg(reinterpret_cast<const float4 *>(p));
                rb[v][0] = x.x; rb[v][1] = x.y; rb[v][2] = x.z; rb[v][3] = x.w;
#else
                const float2 x = __ldg(reinterpret_cast<const float2 *>(p));
                rb[v][0] = x.x; rb[v][1] = x.y;
#endif
            }
        } else {
#pragma unroll
            for (int v = 0; v < KV; ++v) {
                const int k = kb + 16 * (v >> 2) + 4 * t + (v & 3);
                const bool kin = k < kend;
#pragma unroll
                for (int i = 0; i < MI; ++i)
#pragma unroll
                    for (int h = 0; h < 2; ++h)
                        ra[i][h][v] = (kin && va[i][h]) ? __ldg(pa[i][h] + k) : 0.f;
#pragma unroll
                for (int ni = 0; ni < NI; ++ni) {
                    const int n = ncol + ni;
                    rb[v][ni] = (kin && n < N) ? __ldg(B + ((long long)k * N + n)) : 0.f;
                }
            }
        }
    };

    float acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int q = 0; q < 4; ++q) acc[i][j][q] = 0.f;

    float ra[MI][2][KV], rb[KV][NI];
    int c = warp;
    if (c < nch) load_chunk(c, ra, rb);

    for (; c < nch; c += KWARPS) {
#if PREFETCH
        float xa[MI][2][KV], xb[KV][NI];
        const int cn = c + KWARPS;
        if (cn < nch) load_chunk(cn, xa, xb); /* in flight during the MMAs below */
#endif
        float part[MI][NI][4];
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
            for (int j = 0; j < NI; ++j)
#pragma unroll
                for (int q = 0; q < 4; ++q) part[i][j][q] = 0.f;

#pragma unroll
        for (int s = 0; s < KCH / 8; ++s) {
            unsigned ah[MI][4], al[MI][4], bh[NI][2], bl[NI][2];
#pragma unroll
            for (int i = 0; i < MI; ++i) {
                split_tf32(ra[i][0][2 * s], ah[i][0], al[i][0]);     /* row g,   slot t   */
                split_tf32(ra[i][1][2 * s], ah[i][1], al[i][1]);     /* row g+8, slot t   */
                split_tf32(ra[i][0][2 * s + 1], ah[i][2], al[i][2]); /* row g,   slot t+4 */
                split_tf32(ra[i][1][2 * s + 1], ah[i][3], al[i][3]); /* row g+8, slot t+4 */
            }
#pragma unroll
            for (int j = 0; j < NI; ++j) {
                split_tf32(rb[2 * s][j], bh[j][0], bl[j][0]);     /* slot t,   column g of n-tile j */
                split_tf32(rb[2 * s + 1][j], bh[j][1], bl[j][1]); /* slot t+4, column g of n-tile j */
            }
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NI; ++j) mma_tf32(part[i][j], al[i], bh[j]);
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NI; ++j) mma_tf32(part[i][j], ah[i], bl[j]);
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NI; ++j) mma_tf32(part[i][j], ah[i], bh[j]);
        }
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
            for (int j = 0; j < NI; ++j)
#pragma unroll
                for (int q = 0; q < 4; ++q) acc[i][j][q] += part[i][j][q];

#if PREFETCH
        if (cn < nch) {
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int h = 0; h < 2; ++h)
#pragma unroll
                    for (int v = 0; v < KV; ++v) ra[i][h][v] = xa[i][h][v];
#pragma unroll
            for (int v = 0; v < KV; ++v)
#pragma unroll
                for (int j = 0; j < NI; ++j) rb[v][j] = xb[v][j];
        }
#else
        if (c + KWARPS < nch) load_chunk(c + KWARPS, ra, rb);
#endif
    }

    /* ---------------- cross-warp reduction (fixed order) + tril mask ---------------- */
    {
        float *mine = red + warp * (TILE * TILE);
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                /* columns 2t*NI .. 2t*NI + 2*NI - 1 of row r are this lane's, contiguous */
                float seg[2 * NI];
#pragma unroll
                for (int j = 0; j < NI; ++j) {
                    seg[j] = acc[i][j][2 * h];
                    seg[NI + j] = acc[i][j][2 * h + 1];
                }
                const int r = i * 16 + g + 8 * h;
                float *dst = mine + r * TILE + 2 * t * NI;
#pragma unroll
                for (int q = 0; q < (2 * NI) / 4; ++q)
                    *reinterpret_cast<float4 *>(dst + 4 * q) =
                        make_float4(seg[4 * q], seg[4 * q + 1], seg[4 * q + 2], seg[4 * q + 3]);
            }
    }
    __syncthreads();

    if (vec) {
        constexpr int C4 = TILE / 4;
        const float4 *red4 = reinterpret_cast<const float4 *>(red);
        for (int q = tid; q < TILE * C4; q += NT) {
            const int r = q / C4, cc = (q % C4) * 4;
            const int gi = i0 + r, gj = j0 + cc;
            if (gi < N && gj < N) {
                float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
                if (gj <= gi) {
                    s = red4[q];
#pragma unroll
                    for (int w = 1; w < KWARPS; ++w) {
                        const float4 v = red4[w * (TILE * C4) + q];
                        s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
                    }
                    s.y = gj + 1 <= gi ? s.y : 0.f;
                    s.z = gj + 2 <= gi ? s.z : 0.f;
                    s.w = gj + 3 <= gi ? s.w : 0.f;
                }
                *reinterpret_cast<float4 *>(out + ((long long)gi * N + gj)) = s;
            }
        }
    } else {
        for (int q = tid; q < TILE * TILE; q += NT) {
            const int r = q / TILE, cc = q % TILE;
            const int gi = i0 + r, gj = j0 + cc;
            if (gi < N && gj < N) {
                float s = 0.f;
                if (gj <= gi) {
                    s = red[q];
#pragma unroll
                    for (int w = 1; w < KWARPS; ++w) s += red[w * (TILE * TILE) + q];
                }
                out[(long long)gi * N + gj] = FROM_F32(s);
            }
        }
    }
}
