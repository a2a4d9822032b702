/*
 * softmax_block.cu - row softmax, one block of THREADS per row: the design
 * for long rows. Pass 1 reads the row once, each thread keeping an online
 * (running max, rescaled sum) pair; its first REG chunks of VEC columns stay
 * in registers and, with CACHE=1, the next ones in dynamic shared memory as
 * fp32 (at most 192 KB a block). One block reduction combines the pairs.
 * Pass 2 writes exp(x - max) / sum from registers, shared memory, or, past
 * both caches, a second read of x (any COLS works, e.g. 65536 fp32 rows:
 * 2 reads of the uncached part + 1 write). VEC-wide accesses only when x, y
 * and COLS keep row starts aligned (checked at run time), scalar otherwise.
 * With GRID > 0 the grid is persistent: GRID blocks an SM, each looping
 * over rows gridDim.x apart.
 */
// kevo: problem softmax
// kevo: dtypes fp32 fp16 bf16
// kevo: param THREADS 128 256 512 1024 default=256
// kevo: param VEC 1 2 4 8 default=4
// kevo: param REG 0 1 2 4 8 16 default=4
// kevo: param CACHE 0 1 default=1
// kevo: param UNROLL 1 2 4 default=2
// kevo: param MINB 1 2 4 6 8 16 default=4
// OCC caps the blocks resident on an SM (0: no cap) by padding the
// dynamic shared memory: launch-only, one compile serves every value.
// kevo: param OCC 0 2 3 4 6 8 12 default=0
// kevo: constraint OCC * THREADS < 2048
// GRID: blocks per SM of a persistent grid that loops over the rows (0: a
// block per row). Launch-only as well.
// kevo: param GRID 0 1 2 3 4 8 default=0
// MINB = blocks per SM that __launch_bounds__ asks registers for. The live
// values ((REG + UNROLL) * VEC) + 16 must fit that register cap (ptxas
// allocates in 8s); fitted on every point of the space:
// kevo: constraint MINB * THREADS <= 2048
// kevo: constraint (REG + UNROLL) * VEC + 16 <= min(255, 65536 / (MINB * THREADS) / 8 * 8)
// kevo: constraint CACHE == 0 || SMEM_OPTIN >= 196608
// Column indices are int with headroom for one unrolled step:
// kevo: requires COLS <= 2147000000
// Shape fact VCOLS: COLS % VEC == 0; when 0 the VEC-wide path cannot run
// and its build leaves it out (less PTX, less NVRTC time; issue 32).
// kevo: fact VCOLS COLS % VEC == 0
// kevo: launch softmax_block
// kevo: grid GRID ? min(ROWS, GRID * SMS) : ROWS
// kevo: block THREADS
// The shared cache: chunk rows past the registers, capped at 49152 floats
// (CAP_FLOATS below; the two must agree):
// kevo: smem max(CACHE ? max(0, min(cdiv(COLS, THREADS * VEC) - REG, 49152 / (THREADS * VEC))) * THREADS * VEC * 4 : 0, OCC ? (SMEM_OPTIN + 1024) / OCC - 2048 : 0)

#define TV (THREADS * VEC)        /* columns per chunk row of the block */
#define WV (VEC < 4 ? VEC : 4)    /* floats per shared-memory access */
#define CAP_FLOATS 49152          /* 192 KB: see the smem directive */
#define NWARPS (THREADS / 32)
#define L2E 1.4426950408889634f
#define NEG_INF __int_as_float(0xff800000)

template <int N> struct alignas(sizeof(elem_t) * N) evec {
    elem_t v[N];
};
template <int N> struct alignas(4 * N) fvec {
    float v[N];
};

/* v, hidden from the optimizer: values computed from it inside the row
 * loop stay there, instead of being hoisted and holding registers. */
__device__ __forceinline__ int opaque(int v)
{
#ifdef __CUDA_ARCH__
    asm volatile("mov.b32 %0, %0;" : "+r"(v));
#endif
    return v;
}

/* e^d for d <= 0; error ~|d|*2^-24, far below the fp32 tolerance. */
__device__ __forceinline__ float fexp(float d) { return exp2f(d * L2E); }

/* Columns col..col+VEC-1 of a row as floats; -inf past the end. */
__device__ __forceinline__ void load_chunk(float (&f)[VEC],
                                           const elem_t *row, int col,
                                           int cols, bool vec)
{
    if (VEC > 1 && vec) { /* cols % VEC == 0: a chunk is all in or all out */
        if (col < cols) {
            evec<VEC> t = *reinterpret_cast<const evec<VEC> *>(row + col);
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                f[i] = TO_F32(t.v[i]);
        } else {
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                f[i] = NEG_INF;
        }
    } else {
#pragma unroll
        for (int i = 0; i < VEC; ++i)
            f[i] = col + i < cols ? TO_F32(row[col + i]) : NEG_INF;
    }
}

__device__ __forceinline__ void store_chunk(elem_t *row, int col, int cols,
                                            const float (&f)[VEC], bool vec)
{
    if (VEC > 1 && vec) {
        if (col < cols) {
            evec<VEC> t;
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                t.v[i] = FROM_F32(f[i]);
            *reinterpret_cast<evec<VEC> *>(row + col) = t;
        }
    } else {
#pragma unroll
        for (int i = 0; i < VEC; ++i)
            if (col + i < cols)
                row[col + i] = FROM_F32(f[i]);
    }
}

/* Shared cache layout: chunk row r, thread t keeps its VEC floats as
 * VEC/WV pieces at r*TV + h*THREADS*WV + t*WV, so each access of a warp is
 * contiguous (conflict-free). Only the writing thread reads them back. */
__device__ __forceinline__ void cache_put(float *cache, int r, int tid,
                                          const float (&f)[VEC])
{
#pragma unroll
    for (int h = 0; h < VEC / WV; ++h) {
        fvec<WV> t;
#pragma unroll
        for (int i = 0; i < WV; ++i)
            t.v[i] = f[h * WV + i];
        *reinterpret_cast<fvec<WV> *>(cache + r * TV + h * THREADS * WV +
                                      tid * WV) = t;
    }
}

__device__ __forceinline__ void cache_get(float (&f)[VEC], const float *cache,
                                          int r, int tid)
{
#pragma unroll
    for (int h = 0; h < VEC / WV; ++h) {
        fvec<WV> t = *reinterpret_cast<const fvec<WV> *>(
            cache + r * TV + h * THREADS * WV + tid * WV);
#pragma unroll
        for (int i = 0; i < WV; ++i)
            f[h * WV + i] = t.v[i];
    }
}

/* Folds a chunk into the running (m, s): one rescale per chunk at most. */
__device__ __forceinline__ void online(float &m, float &s,
                                       const float (&f)[VEC])
{
    float cm = f[0];
#pragma unroll
    for (int i = 1; i < VEC; ++i)
        cm = fmaxf(cm, f[i]);
    if (cm == NEG_INF)
        return; /* nothing in this chunk */
    if (cm > m) {
        s *= fexp(m - cm); /* m = -inf: s is 0 and stays 0 */
        m = cm;
    }
#pragma unroll
    for (int i = 0; i < VEC; ++i)
        s += fexp(f[i] - m);
}

/* (m, s) of two parts; no NaN when either part is empty (m = -inf). */
__device__ __forceinline__ void combine(float &m, float &s, float m2, float s2)
{
    float mn = fmaxf(m, m2);
    s = (m == mn ? s : s * fexp(m - mn)) + (m2 == mn ? s2 : s2 * fexp(m2 - mn));
    m = mn;
}

__device__ __forceinline__ void warp_reduce(float &m, float &s)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, o);
        float s2 = __shfl_xor_sync(0xffffffffu, s, o);
        combine(m, s, m2, s2);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, MINB)
softmax_block(const elem_t *__restrict__ x, elem_t *__restrict__ y, int ROWS,
              int COLS, void *ws)
{
    extern __shared__ float4 smem4[];
    float *cache = reinterpret_cast<float *>(smem4);
    __shared__ float red_m[NWARPS], red_s[NWARPS];
    __shared__ float fin_m, fin_s;

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const bool vec = VEC > 1 && VCOLS && COLS % VEC == 0 &&
                     (unsigned long long)x % (VEC * sizeof(elem_t)) == 0 &&
                     (unsigned long long)y % (VEC * sizeof(elem_t)) == 0;
    const int nch = (COLS + TV - 1) / TV; /* chunk rows in this row */
    /* chunk rows REG .. REG+ncache-1 live in shared memory (= smem) */
    const int ncache = CACHE ? max(0, min(nch - REG, CAP_FLOATS / TV)) : 0;

    /* Each thread reuses only its own cache slots and the barriers below
     * order the reduction's shared words, so rows need no extra barrier.
     * Unsigned: a grid of ROWS blocks steps past 2^31 for ROWS > 2^30. */
    for (unsigned row = blockIdx.x; row < (unsigned)ROWS; row += gridDim.x) {
        const int tx = opaque(tid); /* chunk offsets and bounds: per row */
        const elem_t *xr = x + (long long)row * COLS;
        elem_t *yr = y + (long long)row * COLS;

        /* pass 1: registers, then the rest with the online update */
        float v[REG > 0 ? REG : 1][VEC];
#pragma unroll
        for (int j = 0; j < REG; ++j)
            load_chunk(v[j], xr, j * TV + tx * VEC, COLS, vec);
        float m = NEG_INF, s = 0.f;
#pragma unroll
        for (int j = 0; j < REG; ++j)
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                m = fmaxf(m, v[j][i]);
        if (m != NEG_INF)
#pragma unroll
            for (int j = 0; j < REG; ++j)
#pragma unroll
                for (int i = 0; i < VEC; ++i)
                    s += fexp(v[j][i] - m);
        for (int j = REG; j < nch; j += UNROLL) {
            float f[UNROLL][VEC];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
                load_chunk(f[u], xr, (j + u) * TV + tx * VEC, COLS, vec);
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                if (CACHE && j + u - REG < ncache)
                    cache_put(cache, j + u - REG, tx, f[u]);
                online(m, s, f[u]);
            }
        }

        /* one block reduction of the (m, s) pairs */
        warp_reduce(m, s);
        if (lane == 0) {
            red_m[warp] = m;
            red_s[warp] = s;
        }
        __syncthreads();
        if (warp == 0) {
            m = lane < NWARPS ? red_m[lane] : NEG_INF;
            s = lane < NWARPS ? red_s[lane] : 0.f;
            warp_reduce(m, s);
            if (lane == 0) {
                fin_m = m;
                fin_s = s;
            }
        }
        __syncthreads();
        m = fin_m;
        const float inv = 1.f / fin_s;

        /* pass 2: write */
#pragma unroll
        for (int j = 0; j < REG; ++j) {
            float o[VEC];
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                o[i] = fexp(v[j][i] - m) * inv;
            store_chunk(yr, j * TV + tx * VEC, COLS, o, vec);
        }
        for (int j = REG; j < nch; j += UNROLL) {
            float f[UNROLL][VEC];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                if (CACHE && j + u - REG < ncache)
                    cache_get(f[u], cache, j + u - REG, tx);
                else
                    load_chunk(f[u], xr, (j + u) * TV + tx * VEC, COLS, vec);
            }
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
                for (int i = 0; i < VEC; ++i)
                    f[u][i] = fexp(f[u][i] - m) * inv;
                store_chunk(yr, (j + u) * TV + tx * VEC, COLS, f[u], vec);
            }
        }
    }
}
