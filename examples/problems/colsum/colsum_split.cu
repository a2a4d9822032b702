/*
 * colsum_split.cu - two launches. colsum_part: a 2-D grid, blockIdx.x a
 * strip of TX * VEC columns, blockIdx.y one of SPLIT bands of rows; a
 * block of TX x TY threads, thread (tx, ty) owning VEC adjacent columns
 * (one 16-byte load at VEC * sizeof(elem_t) = 16) and every TY-th row of
 * the band, UNROLL rows of loads in flight; the TY partial sums meet in
 * shared memory and the band's sum of each column goes to the workspace
 * (fp32, SPLIT x COLS). colsum_final adds the SPLIT partials of a column
 * (8 threads per column, each every 8th band, then those 8 in order) and
 * rounds once: deterministic, no atomics. Rows whose length or base
 * address do not keep VEC-wide chunks aligned take a scalar path over the
 * same columns.
 */
// kevo: problem colsum
// kevo: dtypes fp32 fp16 bf16
// kevo: param VEC 1 2 4 8 default=4
// kevo: param TX 8 16 32 64 128 default=32
// kevo: param TY 1 2 4 8 16 32 default=8
// kevo: param SPLIT 1 2 4 8 16 32 64 128 default=32
// kevo: param UNROLL 1 2 4 8 default=4
// kevo: constraint TX * TY <= 1024
// kevo: constraint TX * TY >= 32
// kevo: constraint TY * TX * VEC * 4 <= 32768
// kevo: workspace SPLIT * COLS * 4
// kevo: launch colsum_part
// kevo: grid cdiv(COLS, TX * VEC), SPLIT
// kevo: block TX, TY
// kevo: launch colsum_final
// kevo: grid cdiv(COLS, 32)
// kevo: block 32, 8

template <int N> struct alignas(sizeof(elem_t) * N) evec {
    elem_t v[N];
};

extern "C" __global__ void __launch_bounds__(TX * TY)
colsum_part(const elem_t *__restrict__ x, elem_t *__restrict__ out, int ROWS,
            int COLS, void *ws)
{
    __shared__ float sh[TY][TX * VEC];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int c0 = (blockIdx.x * TX + tx) * VEC;
    const bool vec = VEC > 1 && COLS % VEC == 0 &&
                     (unsigned long long)x % (sizeof(elem_t) * VEC) == 0;
    const long long per = ((long long)ROWS + SPLIT - 1) / SPLIT;
    const long long r_begin = blockIdx.y * per;
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
    float *part = (float *)ws + (long long)blockIdx.y * COLS;
    for (int j = ty * TX + tx; j < TX * VEC; j += TX * TY) {
        const int c = blockIdx.x * TX * VEC + j;
        if (c < COLS) {
            float s = 0.f;
#pragma unroll
            for (int k = 0; k < TY; ++k)
                s += sh[k][j];
            part[c] = s;
        }
    }
}

extern "C" __global__ void __launch_bounds__(256)
colsum_final(const elem_t *__restrict__ x, elem_t *__restrict__ out, int ROWS,
             int COLS, void *ws)
{
    __shared__ float sh[8][32];
    const int c = blockIdx.x * 32 + threadIdx.x, ty = threadIdx.y;
    const float *part = (const float *)ws;
    float s = 0.f;
    if (c < COLS) {
#pragma unroll 4
        for (int k = ty; k < SPLIT; k += 8)
            s += part[(long long)k * COLS + c];
    }
    sh[ty][threadIdx.x] = s;
    __syncthreads();
    if (ty == 0 && c < COLS) {
        float t = 0.f;
#pragma unroll
        for (int k = 0; k < 8; ++k)
            t += sh[k][threadIdx.x];
        out[c] = FROM_F32(t);
    }
}
