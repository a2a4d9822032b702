// kevo: llm_9c6469bb VEC=4 CX=8 RY=64 UNROLL=4 dtype=fp32
typedef float elem_t;
#define TO_F32(x) (x)
#define FROM_F32(x) (x)
#define VEC 4
#define CX 8
#define RY 64
#define UNROLL 4
#line 1 "llm_9c6469bb.cu"
// kevo: problem sum_dim
// kevo: dtypes fp32
// kevo: param VEC 1 2 4 default=4
// kevo: param CX 2 4 8 16 32 default=8
// kevo: param RY 4 8 16 32 64 128 default=32
// kevo: param UNROLL 1 2 4 8 default=8
// kevo: constraint CX * RY >= 32 && CX * RY <= 1024
// kevo: constraint (CX * RY) % 32 == 0
// kevo: constraint CX * RY * UNROLL * VEC <= 16384
// kevo: launch sum_dim1_block2d
// kevo: grid batch_size * cdiv(dim2, CX * VEC)
// kevo: block CX * RY

#define COLS (CX * VEC)   /* output columns per CTA */
#define NT (CX * RY)      /* threads per CTA */
#define NW (NT / 32)      /* warps per CTA */

__device__ __forceinline__ void sd_ldv(const float *__restrict__ p, float (&v)[VEC])
{
#if VEC == 4
    const float4 t = __ldg(reinterpret_cast<const float4 *>(p));
    v[0] = t.x;
    v[1] = t.y;
    v[2] = t.z;
    v[3] = t.w;
#elif VEC == 2
    const float2 t = __ldg(reinterpret_cast<const float2 *>(p));
    v[0] = t.x;
    v[1] = t.y;
#else
    v[0] = __ldg(p);
#endif
}

extern "C" __global__ void __launch_bounds__(NT)
sum_dim1_block2d(const elem_t *__restrict__ x, elem_t *__restrict__ out, int batch_size,
                 int dim1, int dim2, void *ws)
{
    __shared__ float red[NW][COLS];

    const int tid = threadIdx.x;
    const int cx = tid % CX;          /* column lane */
    const int ry = tid / CX;          /* row group   */
    const int ntile = (dim2 + COLS - 1) / COLS;
    const int b = blockIdx.x / ntile;
    const int tile = blockIdx.x - b * ntile;
    const int col0 = tile * COLS + cx * VEC;
    const float *xb = x + (long long)b * dim1 * dim2 + col0;

    float acc[VEC];
#pragma unroll
    for (int e = 0; e < VEC; ++e)
        acc[e] = 0.f;

    if (col0 < dim2) {
        if ((dim2 % VEC) == 0) {
            /* aligned vector path: col0 .. col0+VEC-1 all valid */
            int i = ry;
            for (; i + (UNROLL - 1) * RY < dim1; i += UNROLL * RY) {
                float v[UNROLL][VEC];
#pragma unroll
                for (int u = 0; u < UNROLL; ++u)
                    sd_ldv(xb + (long long)(i + u * RY) * dim2, v[u]);
#pragma unroll
                for (int u = 0; u < UNROLL; ++u)
#pragma unroll
                    for (int e = 0; e < VEC; ++e)
                        acc[e] += v[u][e];
            }
            for (; i < dim1; i += RY) {
                float v[VEC];
                sd_ldv(xb + (long long)i * dim2, v);
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                    acc[e] += v[e];
            }
        } else {
            /* scalar path for dim2 not a multiple of VEC */
            for (int i = ry; i < dim1; i += RY) {
                const float *row = xb + (long long)i * dim2;
#pragma unroll
                for (int e = 0; e < VEC; ++e)
                    if (col0 + e < dim2)
                        acc[e] += TO_F32(__ldg(row + e));
            }
        }
    }

    /* reduce the row groups that share a warp (lanes differing in the row bits) */
#pragma unroll
    for (int off = CX; off < 32; off <<= 1)
#pragma unroll
        for (int e = 0; e < VEC; ++e)
            acc[e] += __shfl_xor_sync(0xffffffffu, acc[e], off);

    const int lane = tid & 31, warp = tid >> 5;
    if (lane < CX) {
#pragma unroll
        for (int e = 0; e < VEC; ++e)
            red[warp][cx * VEC + e] = acc[e];
    }
    __syncthreads();

    /* across warps, fixed order -> deterministic */
    for (int t = tid; t < COLS; t += NT) {
        const int col = tile * COLS + t;
        if (col < dim2) {
            float s = 0.f;
#pragma unroll
            for (int w = 0; w < NW; ++w)
                s += red[w][t];
            out[(long long)b * dim2 + col] = FROM_F32(s);
        }
    }
}
