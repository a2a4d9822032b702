// kevo: llm_62155b26 CLUSTER=16 WARPS=32 VPL=4 dtype=fp32
typedef float elem_t;
#define TO_F32(x) (x)
#define FROM_F32(x) (x)
#define CLUSTER 16
#define WARPS 32
#define VPL 4
#line 1 "llm_62155b26.cu"
// kevo: problem cross_entropy
// kevo: dtypes fp32
// kevo: param CLUSTER 2 4 8 16 default=8
// kevo: param WARPS 4 8 16 32 default=32
// kevo: param VPL 2 4 8 16 default=8
// kevo: constraint WARPS * VPL <= 256
// kevo: launch ce_cluster_fused
// kevo: grid CLUSTER
// kevo: block WARPS * 32
// kevo: cluster CLUSTER, 1, 1

#define NT (WARPS * 32)
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float ce_ninf() { return -__int_as_float(0x7f800000); }

__device__ __forceinline__ unsigned ce_ctarank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

/* st.shared::cluster of v into CTA `cta`'s copy of the shared variable at local_addr */
__device__ __forceinline__ void ce_store_remote(float *local_addr, unsigned cta, float v)
{
    const unsigned a = (unsigned)__cvta_generic_to_shared(local_addr);
    unsigned ra;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(ra) : "r"(a), "r"(cta));
    asm volatile("st.shared::cluster.f32 [%0], %1;" ::"r"(ra), "f"(v) : "memory");
}

/* lane-local online log-sum-exp update with one chunk (masked entries are -inf) */
template <int N>
__device__ __forceinline__ void ce_update(float &m, float &s, const float (&v)[N])
{
    const float ninf = ce_ninf();
    float cm = v[0];
#pragma unroll
    for (int k = 1; k < N; ++k) cm = fmaxf(cm, v[k]);
    const float nm = fmaxf(m, cm);
    if (nm != ninf) {
        float a0 = 0.f, a1 = 0.f;
#pragma unroll
        for (int k = 0; k < N; k += 2) {
            a0 += __expf(v[k] - nm);
            if (k + 1 < N) a1 += __expf(v[k + 1] - nm);
        }
        s = fmaf(s, __expf(m - nm), a0 + a1); /* m = -inf -> factor 0 */
        m = nm;
    }
}

extern "C" __global__ void __launch_bounds__(NT, 1)
ce_cluster_fused(const elem_t *__restrict__ logits, const long long *__restrict__ targets,
                 elem_t *__restrict__ out, int batch, int classes, void *ws)
{
    __shared__ float s_wsum[WARPS], s_wcnt[WARPS];
    __shared__ float s_csum[CLUSTER], s_ccnt[CLUSTER]; /* used in CTA 0 only */

    /* early arrive; the matching wait (before any DSMEM access) guarantees that
       every CTA of the cluster is running */
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");

    const float ninf = ce_ninf();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned rank = ce_ctarank();
    const int nwarps = CLUSTER * WARPS;
    const bool vec = ((classes & 3) == 0) &&
                     ((reinterpret_cast<unsigned long long>(logits) & 15ull) == 0ull);

    float lsum = 0.f, lcnt = 0.f;
    for (int row = (int)rank * WARPS + warp; row < batch; row += nwarps) {
        const float *rp = logits + (long long)row * classes;
        const long long t = __ldg(targets + row);
        const bool valid = (t >= 0) && (t < (long long)classes);
        const float xt = valid ? TO_F32(__ldg(rp + t)) : 0.f;

        float m = ninf, s = 0.f;
        if (vec) {
            const float4 *rp4 = reinterpret_cast<const float4 *>(rp);
            const int n4 = classes >> 2;
            for (int c = lane; c < n4; c += VPL * 32) {
                float f[VPL * 4];
#pragma unroll
                for (int j = 0; j < VPL; ++j) {
                    const int i = c + j * 32;
                    const float4 q = (i < n4) ? __ldg(rp4 + i) : make_float4(ninf, ninf, ninf, ninf);
                    f[4 * j + 0] = q.x; f[4 * j + 1] = q.y;
                    f[4 * j + 2] = q.z; f[4 * j + 3] = q.w;
                }
                ce_update(m, s, f);
            }
        } else {
            for (int c = lane; c < classes; c += VPL * 128) {
                float f[VPL * 4];
#pragma unroll
                for (int j = 0; j < VPL * 4; ++j) {
                    const int i = c + j * 32;
                    f[j] = (i < classes) ? TO_F32(__ldg(rp + i)) : ninf;
                }
                ce_update(m, s, f);
            }
        }
        /* merge the lanes' (m, s) */
        float M = m;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) M = fmaxf(M, __shfl_xor_sync(FULL_MASK, M, o));
        float S = (m == ninf) ? 0.f : s * __expf(m - M);
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) S += __shfl_xor_sync(FULL_MASK, S, o);
        if (valid) { lsum += (M + __logf(S)) - xt; lcnt += 1.f; }
    }

    if (lane == 0) { s_wsum[warp] = lsum; s_wcnt[warp] = lcnt; }
    __syncthreads();
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    if (warp == 0) {
        float a = (lane < WARPS) ? s_wsum[lane] : 0.f;
        float b = (lane < WARPS) ? s_wcnt[lane] : 0.f;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            a += __shfl_xor_sync(FULL_MASK, a, o);
            b += __shfl_xor_sync(FULL_MASK, b, o);
        }
        if (lane == 0) {
            ce_store_remote(&s_csum[rank], 0u, a);
            ce_store_remote(&s_ccnt[rank], 0u, b);
        }
    }
    /* release the DSMEM stores / acquire them in CTA 0 */
    asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
    if (rank == 0 && threadIdx.x == 0) {
        float a = 0.f, b = 0.f;
#pragma unroll
        for (int r = 0; r < CLUSTER; ++r) { a += s_csum[r]; b += s_ccnt[r]; }
        out[0] = FROM_F32(a / b);
    }
}
