/*
 * colsum_cluster.cu - one launch: a 2-D grid, blockIdx.x a strip of
 * TX * VEC columns, the CL blocks of a strip one cluster (1 x CL), block
 * rank k summing the k-th band of rows. Thread (tx, ty) owns VEC adjacent
 * columns (one 16-byte load at VEC * sizeof(elem_t) = 16) and every TY-th
 * row of the band, UNROLL rows of loads in flight; the TY partial sums
 * meet in shared memory, then after a cluster barrier each block adds the
 * CL band sums of its share of the strip's columns through distributed
 * shared memory (ranks in order: deterministic) and writes them. No
 * workspace, no second launch. Rows whose length or base address do not
 * keep VEC-wide chunks aligned take a scalar path over the same columns.
 */
// kevo: problem colsum
// kevo: dtypes fp32 fp16 bf16
// kevo: param VEC 1 2 4 8 default=4
// kevo: param TX 8 16 32 64 128 default=16
// kevo: param TY 2 4 8 16 32 64 default=16
// kevo: param CL 2 4 8 default=8
// kevo: param UNROLL 1 2 4 8 default=4
// kevo: constraint TX * TY <= 1024
// kevo: constraint TX * TY >= 32
// kevo: constraint TY * TX * VEC * 4 <= 32768
// kevo: launch colsum_cluster
// kevo: grid cdiv(COLS, TX * VEC), CL
// kevo: block TX, TY
// kevo: cluster 1, CL, 1

template <int N> struct alignas(sizeof(elem_t) * N) evec {
    elem_t v[N];
};

/* Cluster barrier halves, this block's rank, and a distributed-shared-
 * memory read of rank r's copy of a shared float (sm_90). */
__device__ __forceinline__ void cl_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ unsigned cl_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ float cl_read(const float *p, unsigned r)
{
    unsigned a = (unsigned)__cvta_generic_to_shared(p), ra;
    float v;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(ra) : "r"(a), "r"(r));
    asm volatile("ld.shared::cluster.f32 %0, [%1];"
                 : "=f"(v) : "r"(ra) : "memory");
    return v;
}

extern "C" __global__ void __launch_bounds__(TX * TY)
colsum_cluster(const elem_t *__restrict__ x, elem_t *__restrict__ out,
               int ROWS, int COLS, void *ws)
{
    __shared__ float sh[TY][TX * VEC];
    __shared__ float band[TX * VEC];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TX + tx;
    const unsigned rank = cl_rank();
    const int c0 = (blockIdx.x * TX + tx) * VEC;
    const bool vec = VEC > 1 && COLS % VEC == 0 &&
                     (unsigned long long)x % (sizeof(elem_t) * VEC) == 0;
    const long long per = ((long long)ROWS + CL - 1) / CL;
    const long long r_begin = rank * per;
    const long long r_end = min(r_begin + per, (long long)ROWS);
    float acc[VEC];
#pragma unroll
    for (int i = 0; i < VEC; ++i)
        acc[i] = 0.f;
    if (c0 < COLS) {
        if (vec) {
            long long r = r_begin + ty;
            for (; r + (UNROLL - 1) * TY < r_end; r += UNROLL * TY) {
                evec<VEC> a[UNROLL];
#pragma unroll
                for (int u = 0; u < UNROLL; ++u)
                    a[u] = *reinterpret_cast<const evec<VEC> *>(
                        x + (r + u * TY) * COLS + c0);
#pragma unroll
                for (int u = 0; u < UNROLL; ++u)
#pragma unroll
                    for (int i = 0; i < VEC; ++i)
                        acc[i] += TO_F32(a[u].v[i]);
            }
            for (; r < r_end; r += TY) {
                evec<VEC> a = *reinterpret_cast<const evec<VEC> *>(
                    x + r * COLS + c0);
#pragma unroll
                for (int i = 0; i < VEC; ++i)
                    acc[i] += TO_F32(a.v[i]);
            }
        } else {
            for (long long r = r_begin + ty; r < r_end; r += TY)
#pragma unroll
                for (int i = 0; i < VEC; ++i)
                    if (c0 + i < COLS)
                        acc[i] += TO_F32(x[r * COLS + c0 + i]);
        }
    }
#pragma unroll
    for (int i = 0; i < VEC; ++i)
        sh[ty][tx * VEC + i] = acc[i];
    __syncthreads();
    for (int j = tid; j < TX * VEC; j += TX * TY) {
        float s = 0.f;
#pragma unroll
        for (int k = 0; k < TY; ++k)
            s += sh[k][j];
        band[j] = s;
    }
    cl_sync(); /* every block's band[] is complete */
    for (int j = (int)rank + CL * tid; j < TX * VEC; j += CL * TX * TY) {
        const int c = blockIdx.x * TX * VEC + j;
        if (c < COLS) {
            float s = 0.f;
#pragma unroll
            for (unsigned k = 0; k < CL; ++k)
                s += cl_read(&band[j], k);
            out[c] = FROM_F32(s);
        }
    }
    cl_sync(); /* no block leaves while another reads its band[] */
}
