// kevo: gemm_naive TILE=8 dtype=fp32
typedef float elem_t;
#define TO_F32(x) (x)
#define FROM_F32(x) (x)
#define TILE 8
#line 1 "gemm_naive.cu"
/*
 * gemm_naive.cu - the stepping stone: a plain shared-memory tiled GEMM
 * (C = A*B row-major, any M, N, K) for fp32, fp16 and bf16 with fp32
 * accumulation. A TILE x TILE block computes a TILE x TILE tile of C, one
 * output per thread, staging TILE-wide slices of A and B in shared memory
 * as fp32 (zero-filled past the edges). A sanity baseline, not a fast
 * kernel: no register tiling, no vector loads, no pipelining.
 */
// kevo: problem gemm
// kevo: dtypes fp32 fp16 bf16
// kevo: param TILE 8 16 32 default=16
// kevo: launch gemm_naive
// A 1-D grid: cdiv(M, TILE) or cdiv(N, TILE) alone may pass 65535.
// kevo: grid cdiv(M, TILE) * cdiv(N, TILE)
// kevo: block TILE, TILE

extern "C" __global__ void __launch_bounds__(TILE * TILE)
gemm_naive(const elem_t *__restrict__ A, const elem_t *__restrict__ B,
           elem_t *__restrict__ C, int M, int N, int K, void *ws)
{
    __shared__ float As[TILE][TILE + 1]; /* +1: no bank conflicts */
    __shared__ float Bs[TILE][TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tiles_n = (N + TILE - 1) / TILE;
    const int row = (blockIdx.x / tiles_n) * TILE + ty;
    const int col = (blockIdx.x % tiles_n) * TILE + tx;

    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = row < M && k0 + tx < K
                         ? TO_F32(A[(long long)row * K + k0 + tx]) : 0.f;
        Bs[ty][tx] = k0 + ty < K && col < N
                         ? TO_F32(B[(long long)(k0 + ty) * N + col]) : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[(long long)row * N + col] = FROM_F32(acc);
}
