/*
 * rmsnorm_rows.cu - one group of GROUP threads per row, RPC rows per
 * block. Each thread keeps CPT chunks of VEC elements of its row in
 * registers (VEC * sizeof(elem_t) = 16 bytes is one vector load), so x is
 * read from DRAM once: sum of squares -> rstd, then y = x * rstd * gamma.
 * Columns past the register capacity GROUP * CPT * VEC are re-read (from
 * L1/L2). A row whose length or base address does not keep VEC-wide
 * chunks aligned takes the scalar path (VEC = 1) of the same code. Sums:
 * warp shuffles, then one float per warp in shared memory; fixed order,
 * so the output is deterministic.
 */
// kevo: problem rmsnorm
// kevo: dtypes fp32 fp16 bf16
// kevo: param VEC 1 2 4 8 default=4
// kevo: param GROUP 8 16 32 64 128 256 512 1024 default=128
// kevo: param RPC 1 2 4 8 default=1
// kevo: param CPT 1 2 4 8 16 default=8
// kevo: constraint GROUP * RPC <= 1024
// kevo: constraint GROUP * RPC >= 32
// kevo: constraint CPT * VEC <= 64
// kevo: launch rmsnorm_rows
// kevo: grid cdiv(ROWS, RPC)
// kevo: block GROUP * RPC

#define RMS_EPS 1e-6f
#define NWARP ((GROUP + 31) / 32)

template <int N> struct alignas(sizeof(elem_t) * N) evec {
    elem_t v[N];
};

/* Sum of v over the GROUP threads of group g (every thread of the block
 * calls it: it may synchronize the block). */
__device__ __forceinline__ float group_sum(float v, float *sh, int g, int lane)
{
#pragma unroll
    for (int o = (GROUP < 32 ? GROUP : 32) / 2; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    if (GROUP > 32) {
        if ((lane & 31) == 0)
            sh[g * NWARP + lane / 32] = v;
        __syncthreads();
        v = 0.f;
#pragma unroll
        for (int i = 0; i < NWARP; ++i)
            v += sh[g * NWARP + i];
        __syncthreads();
    }
    return v;
}

template <int V>
__device__ __forceinline__ evec<V> ld(const elem_t *p)
{
    return *reinterpret_cast<const evec<V> *>(p);
}

template <int V>
__device__ __forceinline__ void rms_row(const elem_t *__restrict__ x,
                                        const elem_t *__restrict__ gamma,
                                        elem_t *__restrict__ y, int ROWS,
                                        int COLS, float *sh)
{
    const int g = threadIdx.x / GROUP, lane = threadIdx.x % GROUP;
    const long long row = (long long)blockIdx.x * RPC + g;
    const bool live = row < ROWS;
    const elem_t *xr = x + (live ? row : 0) * COLS;
    elem_t *yr = y + (live ? row : 0) * COLS;
    float v[CPT][V];
    float q = 0.f;
#pragma unroll
    for (int k = 0; k < CPT; ++k) {
        const int c = (k * GROUP + lane) * V;
        if (live && c < COLS) {
            evec<V> a = ld<V>(xr + c);
#pragma unroll
            for (int i = 0; i < V; ++i) {
                v[k][i] = TO_F32(a.v[i]);
                q += v[k][i] * v[k][i];
            }
        } else {
#pragma unroll
            for (int i = 0; i < V; ++i)
                v[k][i] = 0.f;
        }
    }
    const int c_spill = (CPT * GROUP + lane) * V;
    for (int c = c_spill; live && c < COLS; c += GROUP * V) {
        evec<V> a = ld<V>(xr + c);
#pragma unroll
        for (int i = 0; i < V; ++i)
            q += TO_F32(a.v[i]) * TO_F32(a.v[i]);
    }
    const float rstd =
        rsqrtf(group_sum(q, sh, g, lane) / (float)COLS + RMS_EPS);
    if (!live)
        return;
#pragma unroll
    for (int k = 0; k < CPT; ++k) {
        const int c = (k * GROUP + lane) * V;
        if (c < COLS) {
            evec<V> ga = ld<V>(gamma + c), o;
#pragma unroll
            for (int i = 0; i < V; ++i)
                o.v[i] = FROM_F32(v[k][i] * rstd * TO_F32(ga.v[i]));
            *reinterpret_cast<evec<V> *>(yr + c) = o;
        }
    }
    for (int c = c_spill; c < COLS; c += GROUP * V) {
        evec<V> a = ld<V>(xr + c), ga = ld<V>(gamma + c), o;
#pragma unroll
        for (int i = 0; i < V; ++i)
            o.v[i] = FROM_F32(TO_F32(a.v[i]) * rstd * TO_F32(ga.v[i]));
        *reinterpret_cast<evec<V> *>(yr + c) = o;
    }
}

extern "C" __global__ void __launch_bounds__(GROUP * RPC)
rmsnorm_rows(const elem_t *__restrict__ x, const elem_t *__restrict__ gamma,
             elem_t *__restrict__ y, int ROWS, int COLS, void *ws)
{
    __shared__ float sh[RPC * NWARP];
    const bool vec = VEC > 1 && COLS % VEC == 0 &&
                     ((unsigned long long)x | (unsigned long long)gamma |
                      (unsigned long long)y) % (sizeof(elem_t) * VEC) == 0;
    if (vec)
        rms_row<VEC>(x, gamma, y, ROWS, COLS, sh);
    else
        rms_row<1>(x, gamma, y, ROWS, COLS, sh);
}
