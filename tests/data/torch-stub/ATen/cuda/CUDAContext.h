/* Stand-in (see ../../torch/extension.h). */
#pragma once
#include <cuda_runtime.h>
namespace at {
namespace cuda {
struct CUDAStream {
    operator cudaStream_t() const;
};
const cudaDeviceProp *getCurrentDeviceProperties();
CUDAStream getCurrentCUDAStream();
} // namespace cuda
} // namespace at
