//! userprob_harness.cu - the GPU side shared by every user-defined problem
//! (fitness/userprob.c): the input generator for each distribution, a
//! non-finite counter for the reference self-check and the copy baseline.
//! Compiled by the worker after the dtype's prelude, followed by the
//! problem file's reference (kevo_reference). Lines starting //! are notes,
//! not compiled: src/util/tools/embed.c embeds the rest at build time.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__device__ __forceinline__ unsigned long long up_mix(unsigned long long z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
//! uniform in [0, 1) with 24 bits
__device__ __forceinline__ float up_unit(unsigned long long h) {
  return (float)(h >> 40) * (1.0f / 16777216.0f);
}
//! dist: 0 uniform(a,b) 1 normal(a,b) 2 offset(a,b,c) 3 int(a,b) 4 const(a).
//! dt: 0 fp32, 1 fp16, 2 bf16 (enum dtype). cols: elements per row
//! (offset's rows). Element i depends on seed and i only.
extern "C" __global__ void kevo_up_gen(void *p, long long n, int dt, int dist, float a, float b, float c,
                                       long long cols, unsigned long long seed) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    unsigned long long h = up_mix(seed ^ up_mix((unsigned long long)i));
    float v;
    if (dist == 0) {
      v = a + (b - a) * up_unit(h);
    } else if (dist == 1) {
      float u1 = ((float)(h >> 40) + 1.0f) * (1.0f / 16777217.0f); /* (0, 1] */
      float u2 = up_unit(up_mix(h));
      v = a + b * sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    } else if (dist == 2) {
      unsigned long long hr = up_mix(seed ^ up_mix(0x0ff5e7ull + (unsigned long long)(i / cols)));
      v = a + (b - a) * up_unit(hr) + c * (2.0f * up_unit(h) - 1.0f);
    } else if (dist == 3) {
      float k = floorf(up_unit(h) * (b - a + 1.0f));
      v = fminf(a + k, b);
    } else {
      v = a;
    }
    if (dt == 1)
      ((__half *)p)[i] = __float2half_rn(v);
    else if (dt == 2)
      ((__nv_bfloat16 *)p)[i] = __float2bfloat16_rn(v);
    else
      ((float *)p)[i] = v;
  }
}
//! count[0] += non-finite elements of p[0..n); count[1] = the largest index + 1 of one.
extern "C" __global__ void kevo_up_nonfinite(const double *p, long long n, unsigned long long *count) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    if (!isfinite(p[i])) {
      atomicAdd(count, 1ull);
      atomicMax(count + 1, (unsigned long long)i + 1);
    }
}
//! Baseline: copy n bytes, 16 B per thread and step.
extern "C" __global__ void base_up_copy(const unsigned char *src, unsigned char *dst, long long n) {
  long long nv = n / 16, stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nv; i += stride)
    ((uint4 *)dst)[i] = ((const uint4 *)src)[i];
  if (blockIdx.x == 0 && threadIdx.x < (n & 15)) dst[nv * 16 + threadIdx.x] = src[nv * 16 + threadIdx.x];
}
