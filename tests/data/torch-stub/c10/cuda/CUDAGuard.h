/* Stand-in (see ../../torch/extension.h). */
#pragma once
namespace c10 {
namespace cuda {
struct CUDAGuard {
    explicit CUDAGuard(torch::Device d);
};
} // namespace cuda
} // namespace c10
