// expect: ok
/*
 * harness test (issue 10, item 2): a Kernel Tuner-style SGEMM with
 * file-scope `static constexpr` tile sizes, a constexpr table and a
 * `__device__ const` table read with run-time indices. NVRTC puts such data
 * in .nv.global.init; it never changes, so it must pass (kevo refused
 * every such cubin as "writable __device__ globals" before).
 */
// kevo: problem gemm
// kevo: dtypes fp32
// kevo: param block_size_x 16 default=16
// kevo: param block_size_y 8 default=8
// kevo: param tile_size_y 2 default=2
// kevo: launch sgemm_kt
// kevo: grid cdiv(N, block_size_x), cdiv(M, block_size_y * tile_size_y)
// kevo: block block_size_x, block_size_y

static constexpr int kBM = block_size_y * tile_size_y;
static constexpr int kBN = block_size_x;
static constexpr int kBK = 16;
static constexpr int kRowOf[tile_size_y] = {0, block_size_y};
__device__ const float kOne[4] = {1.0f, 1.0f, 1.0f, 1.0f};

extern "C" __global__ void sgemm_kt(const elem_t *__restrict__ A,
                                    const elem_t *__restrict__ B,
                                    elem_t *__restrict__ C, int M, int N,
                                    int K, void *ws)
{
    __shared__ float As[kBM][kBK + 1], Bs[kBK][kBN + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * block_size_x + tx, nt = block_size_x * block_size_y;
    const long long row0 = (long long)blockIdx.y * kBM,
                    col0 = (long long)blockIdx.x * kBN;
    float acc[tile_size_y] = {};
    for (int k0 = 0; k0 < K; k0 += kBK) {
        for (int i = tid; i < kBM * kBK; i += nt) {
            long long r = row0 + i / kBK;
            int c = k0 + i % kBK;
            As[i / kBK][i % kBK] = r < M && c < K ? TO_F32(A[r * K + c]) : 0.f;
        }
        for (int i = tid; i < kBK * kBN; i += nt) {
            int r = k0 + i / kBN;
            long long c = col0 + i % kBN;
            Bs[i / kBN][i % kBN] = r < K && c < N ? TO_F32(B[(long long)r * N + c]) : 0.f;
        }
        __syncthreads();
        for (int k = 0; k < kBK; k++)
            for (int t = 0; t < tile_size_y; t++)
                acc[t] += As[ty + kRowOf[t]][k] * Bs[k][tx];
        __syncthreads();
    }
    for (int t = 0; t < tile_size_y; t++) {
        long long r = row0 + ty + kRowOf[t], c = col0 + tx;
        if (r < M && c < N)
            C[r * N + c] = FROM_F32(acc[t] * kOne[(r + c) & 3]);
    }
}
