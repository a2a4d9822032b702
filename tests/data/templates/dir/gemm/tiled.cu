/*
 * tiled.cu - test template (tests/unit/test_tpl.c): shared-memory tiled
 * GEMM, one BM x BN tile of C per block, TM x TN outputs per thread.
 * Correct but unoptimised; only its directives matter to the tests.
 */
// kevo: problem gemm
// kevo: dtypes fp32 fp16
// kevo: param BM 32 64 128 default=64
// kevo: param BN 32 64 128 default=64
// kevo: param BK 8 16 32 default=16
// kevo: param TM 4 8 default=4
// kevo: param TN 4 8
// kevo: constraint (BM/TM)*(BN/TN) <= 256
// kevo: constraint (BM/TM)*(BN/TN) >= 64
// kevo: constraint (BM*BK + BK*BN) * 4 <= SMEM_OPTIN
// kevo: requires K % BK == 0
// kevo: launch gemm_tiled
// kevo: grid cdiv(N, BN), cdiv(M, BM)
// kevo: block (BM/TM)*(BN/TN)
// kevo: smem (BM*BK + BK*BN) * 4

extern "C" __global__ void __launch_bounds__((BM / TM) * (BN / TN))
gemm_tiled(const elem_t *__restrict__ A, const elem_t *__restrict__ B,
           elem_t *__restrict__ C, int M, int N, int K, void *ws)
{
    extern __shared__ float smem[];
    float *As = smem, *Bs = smem + BM * BK;
    const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
    const int row0 = blockIdx.y * BM + ty * TM, col0 = blockIdx.x * BN + tx * TN;
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += blockDim.x) {
            int r = blockIdx.y * BM + i / BK, c = k0 + i % BK;
            As[i] = r < M ? TO_F32(A[(size_t)r * K + c]) : 0.f;
        }
        for (int i = threadIdx.x; i < BK * BN; i += blockDim.x) {
            int r = k0 + i / BN, c = blockIdx.x * BN + i % BN;
            Bs[i] = c < N ? TO_F32(B[(size_t)r * N + c]) : 0.f;
        }
        __syncthreads();
        for (int k = 0; k < BK; k++)
            for (int i = 0; i < TM; i++)
                for (int j = 0; j < TN; j++)
                    acc[i][j] += As[(ty * TM + i) * BK + k] *
                                 Bs[k * BN + tx * TN + j];
        __syncthreads();
    }
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++)
            if (row0 + i < M && col0 + j < N)
                C[(size_t)(row0 + i) * N + col0 + j] = FROM_F32(acc[i][j]);
}
