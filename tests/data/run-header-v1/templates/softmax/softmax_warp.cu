/*
 * softmax_warp.cu - row softmax, one warp per row (RPW rows per warp, WARPS
 * warps per block): the design for short and medium rows. Each lane loads
 * its first CPT columns of the row (VEC-wide chunks strided by 32*VEC) into
 * registers once; max and sum reduce through warp shuffles. Columns past
 * the register cache stream through an online (running max, rescaled sum)
 * loop and are read again for the write, so traffic is 1 read + 1 write when
 * 32*CPT >= COLS and at most 2 + 1 otherwise. VEC-wide accesses (16 bytes at
 * VEC*sizeof(elem_t) = 16) only when x, y and COLS keep every row start
 * aligned, checked at run time; scalar otherwise. fp32 math for all dtypes.
 */
// kevo: problem softmax
// kevo: dtypes fp32 fp16 bf16
// kevo: param WARPS 1 2 4 8 16 default=4
// kevo: param RPW 1 2 4 default=1
// kevo: param VEC 1 2 4 8 default=4
// kevo: param CPT 1 2 4 8 16 32 64 128 default=128
// kevo: param UNROLL 1 2 4 default=2
// kevo: param MINB 1 2 4 8 16 default=1
// OCC caps the blocks resident on an SM (0: no cap) by padding the
// dynamic shared memory: launch-only, one compile serves every value.
// kevo: param OCC 0 2 3 4 6 8 12 default=0
// kevo: constraint OCC * WARPS * 32 < 2048
// kevo: constraint CPT % VEC == 0 && RPW * CPT <= 128
// MINB = blocks per SM that __launch_bounds__ asks registers for. The
// cached values + the streaming chunk + 24 must fit that register cap
// (ptxas allocates in 8s); fitted on the whole space:
// kevo: constraint MINB * WARPS <= 64
// kevo: constraint RPW * CPT + UNROLL * VEC + 24 <= min(255, 65536 / (MINB * WARPS * 32) / 8 * 8)
// Column indices are int with headroom for one unrolled step:
// kevo: requires COLS <= 2147000000
// Shape facts: STREAM, a row has columns past the register cache (else
// the two streaming loops are left out); VCOLS, COLS % VEC == 0 (else the
// VEC-wide path is left out). Measured: see bench/results/
// 2026-11-28-cpu-compile/.
// kevo: fact STREAM COLS > 32 * CPT
// kevo: fact VCOLS COLS % VEC == 0
// kevo: launch softmax_warp
// kevo: grid cdiv(ROWS, WARPS * RPW)
// kevo: block WARPS * 32
// kevo: smem OCC ? (SMEM_OPTIN + 1024) / OCC - 2048 : 0

#define NCH (CPT / VEC)  /* register-cached chunks per lane and row */
#define SPAN (32 * VEC)  /* columns one chunk index covers in a warp */
#define L2E 1.4426950408889634f
#define NEG_INF __int_as_float(0xff800000)

template <int N> struct alignas(sizeof(elem_t) * N) evec {
    elem_t v[N];
};

/* e^d for d <= 0. exp2f of d*log2(e): its error grows like |d|*2^-24, far
 * below the fp32 tolerance (2e-5) for every d that matters. */
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

extern "C" __global__ void __launch_bounds__(WARPS * 32, MINB)
softmax_warp(const elem_t *__restrict__ x, elem_t *__restrict__ y, int ROWS,
             int COLS, void *ws)
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const long long row0 = ((long long)blockIdx.x * WARPS + warp) * RPW;
    const bool vec = VEC > 1 && VCOLS && COLS % VEC == 0 &&
                     (unsigned long long)x % (VEC * sizeof(elem_t)) == 0 &&
                     (unsigned long long)y % (VEC * sizeof(elem_t)) == 0;

    /* All loads of all RPW rows first: the most bytes in flight. */
    float v[RPW][NCH][VEC];
#pragma unroll
    for (int r = 0; r < RPW; ++r) {
        long long row = row0 + r;
        const elem_t *xr = x + (row < ROWS ? row : 0) * COLS;
#pragma unroll
        for (int j = 0; j < NCH; ++j) {
            if (row < ROWS)
                load_chunk(v[r][j], xr, j * SPAN + lane * VEC, COLS, vec);
            else
#pragma unroll
                for (int i = 0; i < VEC; ++i)
                    v[r][j][i] = NEG_INF;
        }
    }

#pragma unroll
    for (int r = 0; r < RPW; ++r) {
        long long row = row0 + r;
        if (row >= ROWS) /* the same for the whole warp */
            break;
        const elem_t *xr = x + row * COLS;
        elem_t *yr = y + row * COLS;

        float m = NEG_INF, s = 0.f;
#pragma unroll
        for (int j = 0; j < NCH; ++j)
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                m = fmaxf(m, v[r][j][i]);
        if (m != NEG_INF)
#pragma unroll
            for (int j = 0; j < NCH; ++j)
#pragma unroll
                for (int i = 0; i < VEC; ++i)
                    s += fexp(v[r][j][i] - m);

        /* columns beyond the register cache: online pass */
        for (int base = NCH * SPAN; STREAM && base < COLS;
             base += UNROLL * SPAN) {
            float f[UNROLL][VEC];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
                load_chunk(f[u], xr, base + u * SPAN + lane * VEC, COLS, vec);
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
                online(m, s, f[u]);
        }
        warp_reduce(m, s);
        const float inv = 1.f / s;

#pragma unroll
        for (int j = 0; j < NCH; ++j) {
            float o[VEC];
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                o[i] = fexp(v[r][j][i] - m) * inv;
            store_chunk(yr, j * SPAN + lane * VEC, COLS, o, vec);
        }
        for (int base = NCH * SPAN; STREAM && base < COLS;
             base += UNROLL * SPAN) {
            float f[UNROLL][VEC];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u)
                load_chunk(f[u], xr, base + u * SPAN + lane * VEC, COLS, vec);
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
                for (int i = 0; i < VEC; ++i)
                    f[u][i] = fexp(f[u][i] - m) * inv;
                store_chunk(yr, base + u * SPAN + lane * VEC, COLS, f[u], vec);
            }
        }
    }
}
