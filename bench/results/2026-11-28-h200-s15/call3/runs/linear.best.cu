// kevo: llm_5a422619 MI=1 NI=3 KW=8 KC=32 PF=0 dtype=fp32
typedef float elem_t;
#define TO_F32(x) (x)
#define FROM_F32(x) (x)
#define MI 1
#define NI 3
#define KW 8
#define KC 32
#define PF 0
#line 1 "llm_5a422619.cu"
// kevo: problem linear
// kevo: dtypes fp32
// kevo: param MI 1 2 4 default=2
// kevo: param NI 1 2 3 4 6 8 default=3
// kevo: param KW 2 4 8 16 default=8
// kevo: param KC 16 32 default=32
// kevo: param PF 0 1 default=1
// kevo: constraint (1 + PF) * (KC / 4) * (2 * MI + NI) + 8 * MI * NI <= 160
// kevo: constraint KW * 32 * ((1 + PF) * (KC / 4) * (2 * MI + NI) + 8 * MI * NI + 56) <= 65536
// kevo: constraint KW * 16 * MI * 8 * NI * 4 <= SMEM_OPTIN
// kevo: launch linear_tf32x3_regdirect
// kevo: grid cdiv(batch, 16 * MI), cdiv(out_features, 8 * NI)
// kevo: block KW * 32
// kevo: smem KW * 16 * MI * 8 * NI * 4

/*
 * out[m, n] = relu( sum_k x[m, k] * W[n, k] + b[n] )
 * Warp tile = CTA tile = BM x BN = (16*MI) x (8*NI); KW warps split K.
 * Per chunk of KC k's, lane (g = lane/4, t = lane%4) holds for each of its rows
 * the KV = KC/4 values at physical k = kb + 16*(v/4) + 4*t + (v%4), v < KV.
 * mma k-step j uses value v = 2j for fragment slot t and v = 2j+1 for slot t+4,
 * identically for A (x rows) and B (W rows), so the dot products are exact
 * permutations of the original sums.
 */

#define BM (16 * MI)
#define BN (8 * NI)
#define NT (KW * 32)
#define KV (KC / 4)
#define KQ (KC / 16)

__device__ __forceinline__ void split_tf32(float v, unsigned &hi, unsigned &lo)
{
    const unsigned h = (__float_as_uint(v) + 0x1000u) & 0xffffe000u;
    const float r = v - __uint_as_float(h); /* exact */
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

extern "C" __global__ void __launch_bounds__(NT)
linear_tf32x3_regdirect(const elem_t *__restrict__ x, const elem_t *__restrict__ w,
                        const elem_t *__restrict__ bias, elem_t *__restrict__ out,
                        int M, int K, int N, void *ws)
{
    extern __shared__ __align__(16) float red[]; /* [KW][BM][BN] */

    const int tid = threadIdx.x;
    const int lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int m0 = blockIdx.x * BM;
    const int n0 = blockIdx.y * BN;
    const int nch = (K + KC - 1) / KC;

    const bool vec = (K & 3) == 0 &&
                     ((reinterpret_cast<unsigned long long>(x) |
                       reinterpret_cast<unsigned long long>(w)) & 15ull) == 0;

    /* rows this lane touches */
    const float *pa[MI][2];
    bool va[MI][2];
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = m0 + i * 16 + g + 8 * h;
            va[i][h] = row < M;
            pa[i][h] = x + (long long)(row < M ? row : 0) * K;
        }
    const float *pb[NI];
    bool vb[NI];
#pragma unroll
    for (int j = 0; j < NI; ++j) {
        const int n = n0 + j * 8 + g;
        vb[j] = n < N;
        pb[j] = w + (long long)(n < N ? n : 0) * K;
    }

    auto load_chunk = [&](int c, float (&ra)[MI][2][KV], float (&rb)[NI][KV]) {
        const int kb = c * KC;
        if (vec && kb + KC <= K) {
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int h = 0; h < 2; ++h)
#pragma unroll
                    for (int q = 0; q < KQ; ++q) {
                        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
                        if (va[i][h]) v = __ldg(reinterpret_cast<const float4 *>(pa[i][h] + kb + 16 * q + 4 * t));
                        ra[i][h][4 * q + 0] = v.x;
                        ra[i][h][4 * q + 1] = v.y;
                        ra[i][h][4 * q + 2] = v.z;
                        ra[i][h][4 * q + 3] = v.w;
                    }
#pragma unroll
            for (int j = 0; j < NI; ++j)
#pragma unroll
                for (int q = 0; q < KQ; ++q) {
                    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
                    if (vb[j]) v = __ldg(reinterpret_cast<const float4 *>(pb[j] + kb + 16 * q + 4 * t));
                    rb[j][4 * q + 0] = v.x;
                    rb[j][4 * q + 1] = v.y;
                    rb[j][4 * q + 2] = v.z;
                    rb[j][4 * q + 3] = v.w;
                }
        } else {
#pragma unroll
            for (int v = 0; v < KV; ++v) {
                const int k = kb + 16 * (v >> 2) + 4 * t + (v & 3);
                const bool kin = k < K;
#pragma unroll
                for (int i = 0; i < MI; ++i)
#pragma unroll
                    for (int h = 0; h < 2; ++h)
                        ra[i][h][v] = (kin && va[i][h]) ? __ldg(pa[i][h] + k) : 0.f;
#pragma unroll
                for (int j = 0; j < NI; ++j)
                    rb[j][v] = (kin && vb[j]) ? __ldg(pb[j] + k) : 0.f;
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

    float ra[MI][2][KV], rb[NI][KV];
    int c = warp;
    if (c < nch) load_chunk(c, ra, rb);

    for (; c < nch; c += KW) {
#if PF
        float na[MI][2][KV], nb[NI][KV];
        const int cn = c + KW;
        if (cn < nch) load_chunk(cn, na, nb); /* in flight while we compute */
#endif
        float part[MI][NI][4];
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
            for (int j = 0; j < NI; ++j)
#pragma unroll
                for (int q = 0; q < 4; ++q) part[i][j][q] = 0.f;

#pragma unroll
        for (int s = 0; s < KC / 8; ++s) {
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
                split_tf32(rb[j][2 * s], bh[j][0], bl[j][0]);     /* slot t,   col g */
                split_tf32(rb[j][2 * s + 1], bh[j][1], bl[j][1]); /* slot t+4, col g */
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

#if PF
        if (cn < nch) {
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int h = 0; h < 2; ++h)
#pragma unroll
                    for (int v = 0; v < KV; ++v) ra[i][h][v] = na[i][h][v];
#pragma unroll
            for (int j = 0; j < NI; ++j)
#pragma unroll
                for (int v = 0; v < KV; ++v) rb[j][v] = nb[j][v];
        }
#else
        if (c + KW < nch) load_chunk(c + KW, ra, rb);
#endif
    }

    /* ---- cross-warp reduction (fixed warp order), bias + relu ---- */
    float *mine = red + warp * (BM * BN);
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = i * 16 + g + 8 * h;
                const int cc = j * 8 + 2 * t;
                *reinterpret_cast<float2 *>(mine + r * BN + cc) =
                    make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
            }
    __syncthreads();

    for (int e = tid; e < BM * BN; e += NT) {
        const int r = e / BN, cc = e - r * BN;
        const int gr = m0 + r, gc = n0 + cc;
        if (gr < M && gc < N) {
            float s = red[e];
#pragma unroll
            for (int q = 1; q < KW; ++q) s += red[q * (BM * BN) + e];
            out[(long long)gr * N + gc] = FROM_F32(fmaxf(s + __ldg(bias + gc), 0.f));
        }
    }
}
