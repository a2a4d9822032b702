//! softmax_harness.cu - the softmax problem's GPU side (fitness/softmax.c):
//! input generator, fp64 reference and the baselines (naive softmax, copy
//! of the same bytes). Compiled by the worker after the dtype's prelude
//! (elem_t, TO_F32, FROM_F32). Lines starting //! are notes, not compiled:
//! src/tools/embed.c embeds the rest into kevo at build time.
__device__ __forceinline__ unsigned long long sm_mix(unsigned long long z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
__device__ __forceinline__ float sm_unit(unsigned long long h) {
  return (float)(h >> 40) * (1.0f / 16777216.0f);
}
//! Row r: offset in [-80, 80), spread in [0.5, 10): values up to +-90,
//! so exp() without max-subtraction overflows (or underflows to a zero
//! sum) in fp32, and no two rows look alike.
extern "C" __global__ void kevo_softmax_gen(elem_t *x, int rows, int cols, unsigned long long seed) {
  int r = blockIdx.x;
  unsigned long long hr = sm_mix(seed ^ sm_mix(0x5157ull + r));
  float off = sm_unit(hr) * 160.0f - 80.0f;
  float spread = 0.5f + sm_unit(sm_mix(hr)) * 9.5f;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
    unsigned long long h = sm_mix(seed ^ sm_mix(((unsigned long long)r << 32) | (unsigned)c));
    x[(long long)r * cols + c] = FROM_F32(off + spread * (2.0f * sm_unit(h) - 1.0f));
  }
}
__device__ double sm_block_red(double v, int is_max) {
  __shared__ double red[256];
  red[threadIdx.x] = v;
  __syncthreads();
  for (int s = 128; s; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = is_max ? fmax(red[threadIdx.x], red[threadIdx.x + s]) : red[threadIdx.x] + red[threadIdx.x + s];
    __syncthreads();
  }
  double out = red[0];
  __syncthreads();
  return out;
}
//! fp64 reference, one block of 256 per row.
extern "C" __global__ void kevo_softmax_ref(const elem_t *x, double *y, int rows, int cols) {
  long long base = (long long)blockIdx.x * cols;
  double m = -1.0e308;
  for (long long c = threadIdx.x; c < cols; c += 256) m = fmax(m, (double)TO_F32(x[base + c]));
  m = sm_block_red(m, 1);
  double s = 0;
  for (long long c = threadIdx.x; c < cols; c += 256) s += exp((double)TO_F32(x[base + c]) - m);
  s = sm_block_red(s, 0);
  for (long long c = threadIdx.x; c < cols; c += 256) y[base + c] = exp((double)TO_F32(x[base + c]) - m) / s;
}
//! Baseline: naive fp32 softmax, one block of 256 per row, 3 passes.
__device__ float sm_red_f(float v, int is_max) {
  __shared__ float red[256];
  red[threadIdx.x] = v;
  __syncthreads();
  for (int s = 128; s; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = is_max ? fmaxf(red[threadIdx.x], red[threadIdx.x + s]) : red[threadIdx.x] + red[threadIdx.x + s];
    __syncthreads();
  }
  float out = red[0];
  __syncthreads();
  return out;
}
extern "C" __global__ void base_softmax_naive(const elem_t *x, elem_t *y, int rows, int cols) {
  long long base = (long long)blockIdx.x * cols;
  float m = -3.0e38f;
  for (long long c = threadIdx.x; c < cols; c += 256) m = fmaxf(m, TO_F32(x[base + c]));
  m = sm_red_f(m, 1);
  float s = 0;
  for (long long c = threadIdx.x; c < cols; c += 256) s += __expf(TO_F32(x[base + c]) - m);
  s = sm_red_f(s, 0);
  for (long long c = threadIdx.x; c < cols; c += 256) y[base + c] = FROM_F32(__expf(TO_F32(x[base + c]) - m) / s);
}
//! Baseline: copy the same bytes, 16 B per thread and step.
extern "C" __global__ void base_copy(const unsigned char *src, unsigned char *dst, long long n) {
  long long nv = n / 16, stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nv; i += stride)
    ((uint4 *)dst)[i] = ((const uint4 *)src)[i];
  if (blockIdx.x == 0 && threadIdx.x < (n & 15)) dst[nv * 16 + threadIdx.x] = src[nv * 16 + threadIdx.x];
}
