//! gemm_harness.cu - the GEMM problem's GPU side (fitness/gemm.c): the
//! error scale of the tolerance and the fallback fp64 reference. Compiled
//! by the worker after the dtype's prelude. Lines starting //! are notes,
//! not compiled: src/tools/embed.c embeds the rest into kevo at build time.
//!
//! Fallback fp64 reference, used only when cuBLAS cannot be loaded: one
//! thread per output, 16x16 tiles through shared memory.
extern "C" __global__ void kevo_gemm_ref_f64(const double *A, const double *B, double *C, int M, int N, int K) {
  __shared__ double a[16][17], b[16][17];
  int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  int r = blockIdx.y * 16 + ty, c = blockIdx.x * 16 + tx;
  double acc = 0;
  for (long long k0 = 0; k0 < K; k0 += 16) {
    a[ty][tx] = (r < M && k0 + tx < K) ? A[(long long)r * K + k0 + tx] : 0.0;
    b[ty][tx] = (c < N && k0 + ty < K) ? B[(long long)(k0 + ty) * N + c] : 0.0;
    __syncthreads();
    for (int k = 0; k < 16; k++) acc += a[ty][k] * b[k][tx];
    __syncthreads();
  }
  if (r < M && c < N) C[(long long)r * N + c] = acc;
}
//! Error scale: squared row norms of A (one block per row), squared
//! column norms of B (a thread per column and a K-chunk per grid row,
//! added atomically into zeroed memory), then E = sqrt(na[r]*nb[c]).
extern "C" __global__ void kevo_gemm_rownorm(const double *A, double *na, int M, int K) {
  __shared__ double red[256];
  const double *a = A + (long long)blockIdx.x * K;
  double s = 0;
  for (long long k = threadIdx.x; k < K; k += 256) s += a[k] * a[k];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int o = 128; o; o >>= 1) {
    if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) na[blockIdx.x] = red[0];
}
extern "C" __global__ void kevo_gemm_colnorm(const double *B, double *nb, int K, int N, int chunk) {
  long long c = (long long)blockIdx.x * 256 + threadIdx.x;
  if (c >= N) return;
  long long k0 = (long long)blockIdx.y * chunk, k1 = k0 + chunk;
  if (k1 > K) k1 = K;
  double s = 0;
  for (long long k = k0; k < k1; k++) { double b = B[k * N + c]; s += b * b; }
  atomicAdd(nb + c, s);
}
extern "C" __global__ void kevo_gemm_escale(const double *na, const double *nb, double *E, int M, int N) {
  long long n = (long long)M * N;
  for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < n; i += (long long)gridDim.x * 256)
    E[i] = sqrt(na[i / N] * nb[i % N]);
}
